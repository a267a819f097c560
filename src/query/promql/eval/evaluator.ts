/**
 * The evaluator: one instance per time grid (the query's steps, or a subquery's), evaluating
 * each node for all of its steps at once, as Prometheus' engine does (`promql/engine.go`,
 * instant queries being one step). Selectors read storage once for the whole grid and then walk
 * the steps with a cursor, so a range query never re-selects per step.
 *
 * Time rules (Prometheus 3): an instant-vector sample is the newest one at or before
 * `t - offset` and after `t - offset - lookback` (left-open), unless it is a staleness marker;
 * a range window is `(t - offset - range, t - offset]`; `@` replaces `t` by a fixed time for
 * that selector or subquery; subquery steps are aligned to multiples of the step in absolute
 * time.
 */

import type {
  DurationExpr,
  DurationNode,
  Expr,
  MatrixSelector,
  SubqueryExpr,
  TimeModifiers,
  VectorSelector,
} from '../ast.js';
import { type FloatHistogram, mulHistogram } from '../histogram/float-histogram.js';
import { isCounterReset } from '../histogram/reset.js';
import { isStaleNaN, type Label, type Labels, PromqlError } from '../types.js';
import { evalAggregate } from './aggregate.js';
import { evalBinary } from './binary.js';
import { evalCall } from './calls.js';
import type { EvalHost, Pushdown, QueryContext, RangeInput, ResolvedModifiers } from './eval-host.js';
import type { SampleBudget } from './sample-budget.js';
import { HISTOGRAM, newStepSeries, type RawSeries, type StepSeries, setHistogram, type Value } from './values.js';

export { throwIfCancelled } from './interrupter.js';
export type { EvalHost, Pushdown, QueryContext, RangeInput, ResolvedModifiers };

export class Evaluator implements EvalHost {
  readonly steps: number;
  readonly times: Float64Array;
  private readonly samples: SampleBudget;

  constructor(
    readonly ctx: QueryContext,
    readonly startMs: number,
    readonly endMs: number,
    readonly intervalMs: number,
  ) {
    this.steps = endMs < startMs ? 0 : Math.floor((endMs - startMs) / intervalMs) + 1;
    this.samples = ctx.samples;
    this.samples.charge(this.steps);
    this.times = new Float64Array(this.steps);
    for (let i = 0; i < this.steps; i++) this.times[i] = startMs + i * intervalMs;
  }

  /** The last step's time (the end aligned down to the grid). */
  get lastTimeMs(): number {
    return this.steps > 0 ? (this.times[this.steps - 1] as number) : this.startMs;
  }

  /** Throws if the query was cancelled (no yield: for synchronous loops). */
  checkCancelled(): void {
    this.ctx.interrupt.check();
  }

  /** Throws if the query was cancelled and yields to the event loop now and then. */
  checkpoint(): Promise<void> {
    return this.ctx.interrupt.checkpoint();
  }

  async eval(expr: Expr): Promise<Value> {
    await this.checkpoint();
    if (this.ctx.pushdown) {
      const pushed = await this.ctx.pushdown.evaluate(this, expr);
      if (pushed?.kind === 'vector') this.samples.charge(this.steps * pushed.series.length);
      if (pushed) return pushed;
    }
    switch (expr.type) {
      case 'NumberLiteral':
        return { kind: 'scalar', values: new Float64Array(this.steps).fill(expr.value) };
      case 'StringLiteral':
        return { kind: 'string', value: expr.value };
      case 'ParenExpr':
        return this.eval(expr.expr);
      case 'UnaryExpr':
        return this.evalUnary(expr.op, await this.eval(expr.expr));
      case 'VectorSelector':
        return { kind: 'vector', series: await this.selectVector(expr, false) };
      case 'MatrixSelector':
        return { kind: 'matrix', series: (await this.selectRange(expr)).series };
      case 'SubqueryExpr':
        return { kind: 'matrix', series: (await this.evalSubquery(expr)).series };
      case 'BinaryExpr':
        return evalBinary(this, expr);
      case 'AggregateExpr':
        return evalAggregate(this, expr);
      case 'Call':
        return evalCall(this, expr);
    }
  }

  /** Evaluates an expression the type checker guarantees to be a scalar. */
  async scalar(expr: Expr): Promise<Float64Array> {
    const value = await this.eval(expr);
    if (value.kind !== 'scalar') throw new PromqlError('internal', `expected scalar, got ${value.kind}`);
    return value.values;
  }

  /** Evaluates an expression the type checker guarantees to be an instant vector. */
  async vector(expr: Expr): Promise<StepSeries[]> {
    const value = await this.eval(expr);
    if (value.kind !== 'vector') throw new PromqlError('internal', `expected instant vector, got ${value.kind}`);
    return value.series;
  }

  private evalUnary(op: '+' | '-', value: Value): Value {
    if (op === '+') return value;
    if (value.kind === 'scalar') return { kind: 'scalar', values: value.values.map((v) => -v) };
    if (value.kind !== 'vector') throw new PromqlError('internal', `unary minus on ${value.kind}`);
    return {
      kind: 'vector',
      series: value.series.map((s) => ({
        ...s,
        dropName: true,
        values: s.values.map((v) => -v),
        histograms: s.histograms?.map((h) => (h === undefined ? h : mulHistogram(h, -1))),
        timestamps: undefined,
      })),
    };
  }

  /** Evaluates a duration expression (`[5m + step()]`) to whole milliseconds. */
  resolveDuration(node: DurationExpr, allowNegative: boolean): number {
    const seconds = this.durationSeconds(node);
    const where = `${node.pos.start}:${node.pos.end}`;
    if (!Number.isFinite(seconds)) throw new PromqlError('bad_data', `${where}: duration is NaN or infinite`);
    if (seconds <= 0 && !allowNegative) throw new PromqlError('bad_data', `${where}: duration must be greater than 0`);
    if (Math.abs(seconds) > 2 ** 63 / 1e9) throw new PromqlError('bad_data', `${where}: duration is out of range`);
    return Math.trunc(seconds * 1000);
  }

  private durationSeconds(node: DurationNode): number {
    if (node.type === 'NumberLiteral') return node.value;
    const lhs = node.lhs ? this.durationSeconds(node.lhs) : 0;
    const rhs = node.rhs ? this.durationSeconds(node.rhs) : 0;
    const where = `${node.pos.start}:${node.pos.end}`;
    switch (node.op) {
      case 'step':
        return this.ctx.queryStepMs / 1000;
      case 'range':
        return (this.ctx.queryEndMs - this.ctx.queryStartMs) / 1000;
      case 'min_of':
        return Math.min(lhs, rhs);
      case 'max_of':
        return Math.max(lhs, rhs);
      case '+':
        return node.lhs === null ? rhs : lhs + rhs;
      case '-':
        return node.lhs === null ? -rhs : lhs - rhs;
      case '*':
        return lhs * rhs;
      case '/':
        if (rhs === 0) throw new PromqlError('bad_data', `${where}: division by zero`);
        return lhs / rhs;
      case '%':
        if (rhs === 0) throw new PromqlError('bad_data', `${where}: modulo by zero`);
        return lhs % rhs;
      case '^':
        return lhs ** rhs;
    }
  }

  resolveModifiers(m: TimeModifiers): ResolvedModifiers {
    const offsetMs = m.offsetExpr ? this.resolveDuration(m.offsetExpr, true) : m.offsetMs;
    let atMs = m.atMs;
    if (m.startOrEnd === 'start') atMs = this.ctx.queryStartMs;
    else if (m.startOrEnd === 'end') atMs = this.ctx.queryEndMs;
    return { offsetMs, atMs };
  }

  /** The reference time of step `i` for a selector or subquery: `(@ or t) - offset`. */
  referenceTime(m: ResolvedModifiers, step: number): number {
    return (m.atMs ?? (this.times[step] as number)) - m.offsetMs;
  }

  /**
   * Instant-vector selection for every step. With `withTimestamps` the sample times are kept
   * too (for `timestamp()`, which reports them instead of the step time).
   */
  async selectVector(node: VectorSelector, withTimestamps: boolean): Promise<StepSeries[]> {
    if (this.steps === 0) return [];
    const m = this.resolveModifiers(node);
    const lookback = this.ctx.lookbackMs;
    const first = this.referenceTime(m, 0);
    const last = this.referenceTime(m, this.steps - 1);
    const data = await this.ctx.source.select(
      { matchers: node.matchers, startMs: first - lookback, endMs: last },
      this.ctx.signal,
    );
    this.samples.charge(this.steps * data.length);
    const out: StepSeries[] = [];
    for (const s of data) {
      await this.checkpoint();
      const series = newStepSeries(sortedLabels(s.labels), false, this.steps);
      if (withTimestamps) series.timestamps = new Float64Array(this.steps);
      const n = s.t.length;
      let next = 0;
      let any = false;
      for (let i = 0; i < this.steps; i++) {
        const ref = this.referenceTime(m, i);
        while (next < n && (s.t[next] as number) <= ref) next++;
        const k = next - 1;
        if (k < 0) continue;
        const t = s.t[k] as number;
        if (t <= ref - lookback) continue;
        const h = s.h?.[k];
        if (h !== undefined) setHistogram(series, i, node.statsOnly && s.h ? statsHint(s.h, k) : h);
        else {
          const v = s.v[k] as number;
          if (Number.isNaN(v) && isStaleNaN(v)) continue;
          series.values[i] = v;
          series.present[i] = 1;
        }
        if (series.timestamps) series.timestamps[i] = t;
        any = true;
      }
      if (any) out.push(series);
    }
    return out;
  }

  /** A range selector's samples for all steps' windows, staleness markers removed. */
  async selectRange(node: MatrixSelector): Promise<RangeInput> {
    const modifiers = this.resolveModifiers(node.selector);
    const rangeMs = node.rangeExpr ? this.resolveDuration(node.rangeExpr, false) : node.rangeMs;
    if (this.steps === 0) return { series: [], rangeMs, modifiers };
    const first = this.referenceTime(modifiers, 0);
    const last = this.referenceTime(modifiers, this.steps - 1);
    const data = await this.ctx.source.select(
      { matchers: node.selector.matchers, startMs: first - rangeMs, endMs: last },
      this.ctx.signal,
    );
    const series: RawSeries[] = [];
    for (const s of data) {
      const labels = sortedLabels(s.labels);
      if (s.h !== undefined) {
        const all = s.h;
        const hs = node.selector.statsOnly ? all.map((h, k) => (h === undefined ? h : statsHint(all, k))) : all;
        const split = splitHistograms(s.t, s.v, hs);
        if (split.t.length > 0 || split.ht.length > 0) series.push({ labels, dropName: false, ...split });
        continue;
      }
      const clean = withoutStaleMarkers(s.t, s.v);
      if (clean.t.length > 0) series.push({ labels, dropName: false, t: clean.t, v: clean.v });
    }
    return { series, rangeMs, modifiers };
  }

  /**
   * A subquery's points: its expression evaluated on a child grid of `step`-aligned times
   * covering every window `((@ or t) - offset - range, (@ or t) - offset]` of this grid.
   */
  async evalSubquery(node: SubqueryExpr): Promise<RangeInput> {
    const modifiers = this.resolveModifiers(node);
    const rangeMs = node.rangeExpr ? this.resolveDuration(node.rangeExpr, false) : node.rangeMs;
    let stepMs = node.stepMs;
    if (node.stepExpr) stepMs = this.resolveDuration(node.stepExpr, false);
    if (stepMs === 0) stepMs = this.ctx.defaultSubqueryStepMs;
    if (this.steps === 0) return { series: [], rangeMs, modifiers };
    const lowest = (modifiers.atMs ?? this.startMs) - modifiers.offsetMs - rangeMs;
    let innerStart = stepMs * Math.floor(lowest / stepMs);
    if (innerStart <= lowest) innerStart += stepMs;
    const innerEnd = (modifiers.atMs ?? this.lastTimeMs) - modifiers.offsetMs;
    const child = new Evaluator(this.ctx, innerStart, innerEnd, stepMs);
    const inner = await child.vector(node.expr);
    const series: RawSeries[] = [];
    for (const s of inner) {
      let count = 0;
      let histograms = 0;
      for (let i = 0; i < child.steps; i++) {
        if (s.present[i] === 1) count++;
        else if (s.present[i] === HISTOGRAM) histograms++;
      }
      if (count === 0 && histograms === 0) continue;
      const t = new Float64Array(count);
      const v = new Float64Array(count);
      const raw: RawSeries = { labels: s.labels, dropName: s.dropName, t, v };
      if (histograms > 0) {
        raw.ht = new Float64Array(histograms);
        raw.hv = [];
      }
      let k = 0;
      for (let i = 0; i < child.steps; i++) {
        if (s.present[i] === HISTOGRAM && raw.ht && raw.hv) {
          raw.ht[raw.hv.length] = child.times[i] as number;
          raw.hv.push(subqueryHistogram(s.histograms?.[i] as FloatHistogram));
          continue;
        }
        if (s.present[i] !== 1) continue;
        t[k] = child.times[i] as number;
        v[k] = s.values[i] as number;
        k++;
      }
      series.push(raw);
    }
    return { series, rangeMs, modifiers };
  }
}

/** Label sets compare by key, which needs name order; sources should already deliver it. */
function sortedLabels(labels: Labels): Labels {
  for (let i = 1; i < labels.length; i++) {
    if ((labels[i - 1] as Label).name > (labels[i] as Label).name) {
      return [...labels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
  }
  return labels;
}

/** Floats (staleness markers dropped) and histograms of one selected series, apart. */
function splitHistograms(
  t: Float64Array,
  v: Float64Array,
  h: readonly (FloatHistogram | undefined)[],
): { t: Float64Array; v: Float64Array; ht: Float64Array; hv: FloatHistogram[] } {
  const ft: number[] = [];
  const fv: number[] = [];
  const ht: number[] = [];
  const hv: FloatHistogram[] = [];
  for (let i = 0; i < t.length; i++) {
    const x = h[i];
    if (x !== undefined) {
      ht.push(t[i] as number);
      hv.push(x);
      continue;
    }
    const value = v[i] as number;
    if (Number.isNaN(value) && isStaleNaN(value)) continue;
    ft.push(t[i] as number);
    fv.push(value);
  }
  return { t: Float64Array.from(ft), v: Float64Array.from(fv), ht: Float64Array.from(ht), hv };
}

function withoutStaleMarkers(t: Float64Array, v: Float64Array): { t: Float64Array; v: Float64Array } {
  let stale = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    if (Number.isNaN(x) && isStaleNaN(x)) stale++;
  }
  if (stale === 0) return { t, v };
  const outT = new Float64Array(v.length - stale);
  const outV = new Float64Array(v.length - stale);
  let k = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    if (Number.isNaN(x) && isStaleNaN(x)) continue;
    outT[k] = t[i] as number;
    outV[k] = x;
    k++;
  }
  return { t: outT, v: outV };
}

/**
 * A subquery's histogram point forgets a reset/not_reset hint, as Prometheus' does: its points
 * may skip the sample that reset or repeat it, so reset detection must compare the points.
 */
function subqueryHistogram(h: FloatHistogram): FloatHistogram {
  return h.hint === 'reset' || h.hint === 'not_reset' ? { ...h, hint: 'unknown' } : h;
}

/**
 * Sample k of a stats-only selector (stats-selectors.ts) with an "unknown" hint judged against
 * the histogram read before it, as Prometheus' HistogramStatsIterator does.
 */
function statsHint(hs: ReadonlyArray<FloatHistogram | undefined>, k: number): FloatHistogram {
  const h = hs[k] as FloatHistogram;
  const previous = k > 0 ? hs[k - 1] : undefined;
  if (h.hint !== 'unknown' || previous === undefined || isStaleNaN(previous.sum)) return h;
  return { ...h, hint: isCounterReset(h, previous) ? 'reset' : 'not_reset' };
}
