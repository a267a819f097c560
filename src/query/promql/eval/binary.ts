/**
 * Binary operators (Prometheus' `VectorBinop`, `VectorscalarBinop`, `VectorAnd/Or/Unless`):
 * arithmetic, comparisons with and without `bool`, `atan2`, set operations, and vector matching
 * with `on`/`ignoring`/`group_left`/`group_right` (and the experimental `fill*`).
 *
 * Name rules (Prometheus 3, delayed name removal): vector-vector arithmetic drops `__name__` at
 * once; vector-scalar arithmetic and `bool` comparisons only mark the result; a filtering
 * comparison keeps the left side's labels and, between two vectors, clears the mark.
 */

import {
  type BinaryExpr,
  type BinaryOp,
  isComparisonOp,
  isTrimOp,
  type PositionRange,
  type VectorMatching,
} from '../ast.js';
import type { FloatHistogram } from '../histogram/float-histogram.js';
import { formatLabels, labelsKey, METRIC_NAME } from '../labels.js';
import { type Label, type Labels, PromqlError } from '../types.js';
import type { EvalHost } from './eval-host.js';
import { type HistogramOpProblem, type HistogramOpResult, histogramElemOp } from './histogram-binary.js';
import {
  HISTOGRAM,
  histogramAt,
  newStepSeries,
  SeriesCollector,
  type StepSeries,
  setHistogram,
  type Value,
} from './values.js';

/** Labels an arithmetic result loses (`schema.Metadata`: name, type and unit). */
const METADATA_LABELS = new Set([METRIC_NAME, '__type__', '__unit__']);

function isArithmetic(op: BinaryOp): boolean {
  return op === '+' || op === '-' || op === '*' || op === '/' || op === '%' || op === '^' || op === 'atan2';
}

/** Go's math.Pow where it differs from `**`: 1^y and (-1)^±Inf are 1. */
export function goPow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && (y === Number.POSITIVE_INFINITY || y === Number.NEGATIVE_INFINITY)) return 1;
  return x ** y;
}

/** The arithmetic result, or for comparisons whether it holds (value then is `lhs`). */
function applyOp(op: BinaryOp, lhs: number, rhs: number): { value: number; keep: boolean } {
  switch (op) {
    case '+':
      return { value: lhs + rhs, keep: true };
    case '-':
      return { value: lhs - rhs, keep: true };
    case '*':
      return { value: lhs * rhs, keep: true };
    case '/':
      return { value: lhs / rhs, keep: true };
    case '%':
      return { value: lhs % rhs, keep: true };
    case '^':
      return { value: goPow(lhs, rhs), keep: true };
    case 'atan2':
      return { value: Math.atan2(lhs, rhs), keep: true };
    case '==':
      return { value: lhs, keep: lhs === rhs };
    case '!=':
      return { value: lhs, keep: lhs !== rhs };
    case '>':
      return { value: lhs, keep: lhs > rhs };
    case '<':
      return { value: lhs, keep: lhs < rhs };
    case '>=':
      return { value: lhs, keep: lhs >= rhs };
    case '<=':
      return { value: lhs, keep: lhs <= rhs };
    default:
      throw new PromqlError('internal', `operator "${op}" not allowed here`);
  }
}

export async function evalBinary(ev: EvalHost, node: BinaryExpr): Promise<Value> {
  const lhs = await ev.eval(node.lhs);
  const rhs = await ev.eval(node.rhs);
  if (lhs.kind === 'scalar' && rhs.kind === 'scalar') {
    const values = new Float64Array(ev.steps);
    for (let i = 0; i < ev.steps; i++) {
      const { value, keep } = applyOp(node.op, lhs.values[i] as number, rhs.values[i] as number);
      values[i] = isComparisonOp(node.op) ? (keep ? 1 : 0) : value;
    }
    return { kind: 'scalar', values };
  }
  if (lhs.kind === 'vector' && rhs.kind === 'scalar') return vectorScalar(ev, node, lhs.series, rhs.values, false);
  if (lhs.kind === 'scalar' && rhs.kind === 'vector') return vectorScalar(ev, node, rhs.series, lhs.values, true);
  if (lhs.kind !== 'vector' || rhs.kind !== 'vector')
    throw new PromqlError('internal', 'binary operation on unsupported types');
  const matching = node.matching as VectorMatching;
  switch (node.op) {
    case 'and':
    case 'unless':
      return { kind: 'vector', series: await filterSet(ev, node.op, matching, lhs.series, rhs.series) };
    case 'or':
      return { kind: 'vector', series: await unionSet(ev, matching, lhs.series, rhs.series) };
    default:
      return { kind: 'vector', series: await vectorVector(ev, node, matching, lhs.series, rhs.series) };
  }
}

function vectorScalar(
  ev: EvalHost,
  node: BinaryExpr,
  vector: StepSeries[],
  scalar: Float64Array,
  scalarOnLeft: boolean,
): Value {
  const op = node.op;
  const comparison = isComparisonOp(op);
  const marksName = isArithmetic(op) || node.returnBool;
  const trim = isTrimOp(op);
  const out: StepSeries[] = [];
  for (const s of vector) {
    ev.checkCancelled();
    const result = newStepSeries(s.labels, s.dropName || marksName, ev.steps);
    let any = false;
    for (let i = 0; i < ev.steps; i++) {
      if (s.present[i] !== 1) {
        if (s.present[i] !== HISTOGRAM) continue;
        const h = histogramAt(s, i) as FloatHistogram;
        const c = scalar[i] as number;
        const r = scalarOnLeft ? histogramElemOp(op, c, 0, undefined, h) : histogramElemOp(op, 0, c, h, undefined);
        if (!r.ok) {
          reportHistogramProblem(ev, op, r.problem, node.pos);
          continue;
        }
        if (node.returnBool) {
          result.values[i] = r.keep ? 1 : 0;
          result.present[i] = 1;
        } else if (r.keep && r.h !== undefined) setHistogram(result, i, r.h);
        else if (!r.keep) continue;
        any = true;
        continue;
      }
      if (trim) {
        // Trims need a histogram on the left; floats give nothing (an info, as Prometheus).
        ev.ctx.annotations.incompatibleTypesInBinOp('float', op, 'float', node.pos);
        continue;
      }
      const v = s.values[i] as number;
      const c = scalar[i] as number;
      const applied = scalarOnLeft ? applyOp(op, c, v) : applyOp(op, v, c);
      let value = comparison ? v : applied.value;
      if (node.returnBool) value = applied.keep ? 1 : 0;
      else if (!applied.keep) continue;
      result.values[i] = value;
      result.present[i] = 1;
      any = true;
    }
    if (any) out.push(result);
  }
  return { kind: 'vector', series: out };
}

/** Join signatures: series ordinals → signature ordinals shared by both sides. */
class Signatures {
  readonly left: Int32Array;
  readonly right: Int32Array;
  count = 0;
  private readonly names: Set<string>;

  constructor(
    private readonly matching: VectorMatching,
    lhs: StepSeries[],
    rhs: StepSeries[],
  ) {
    this.names = new Set(matching.matchingLabels);
    if (!matching.on) this.names.add(METRIC_NAME);
    const ordinals = new Map<string, number>();
    const ordinal = (labels: Labels): number => {
      const key = labelsKey(this.matchLabels(labels));
      let found = ordinals.get(key);
      if (found === undefined) {
        found = this.count++;
        ordinals.set(key, found);
      }
      return found;
    };
    this.left = Int32Array.from(lhs, (s) => ordinal(s.labels));
    this.right = Int32Array.from(rhs, (s) => ordinal(s.labels));
  }

  /** Prometheus' `MatchLabels`: the labels that take part in matching. */
  matchLabels(labels: Labels): Label[] {
    return this.matching.on
      ? labels.filter((l) => this.names.has(l.name))
      : labels.filter((l) => !this.names.has(l.name));
  }
}

async function filterSet(
  ev: EvalHost,
  op: 'and' | 'unless',
  matching: VectorMatching,
  lhs: StepSeries[],
  rhs: StepSeries[],
): Promise<StepSeries[]> {
  const sigs = new Signatures(matching, lhs, rhs);
  const stamp = new Int32Array(sigs.count);
  const masks = lhs.map(() => new Uint8Array(ev.steps));
  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    const mark = i + 1;
    for (let j = 0; j < rhs.length; j++)
      if ((rhs[j] as StepSeries).present[i] !== 0) stamp[sigs.right[j] as number] = mark;
    for (let j = 0; j < lhs.length; j++) {
      const present = (lhs[j] as StepSeries).present[i] as number;
      if (present === 0) continue;
      const matched = stamp[sigs.left[j] as number] === mark;
      if (matched === (op === 'and')) (masks[j] as Uint8Array)[i] = present;
    }
  }
  const out: StepSeries[] = [];
  lhs.forEach((s, j) => {
    const present = masks[j] as Uint8Array;
    if (present.some((p) => p !== 0))
      out.push({ labels: s.labels, dropName: s.dropName, values: s.values, present, histograms: s.histograms });
  });
  return out;
}

async function unionSet(
  ev: EvalHost,
  matching: VectorMatching,
  lhs: StepSeries[],
  rhs: StepSeries[],
): Promise<StepSeries[]> {
  const sigs = new Signatures(matching, lhs, rhs);
  const stamp = new Int32Array(sigs.count);
  const collector = new SeriesCollector(ev.steps);
  const leftKeys = lhs.map((s) => labelsKey(s.labels));
  const rightKeys = rhs.map((s) => labelsKey(s.labels));
  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    const mark = i + 1;
    for (let j = 0; j < lhs.length; j++) {
      const s = lhs[j] as StepSeries;
      if (s.present[i] === 0) continue;
      stamp[sigs.left[j] as number] = mark;
      collectSample(collector, s, i, leftKeys[j] as string);
    }
    for (let j = 0; j < rhs.length; j++) {
      const s = rhs[j] as StepSeries;
      if (s.present[i] === 0 || stamp[sigs.right[j] as number] === mark) continue;
      collectSample(collector, s, i, rightKeys[j] as string);
    }
  }
  return collector.result();
}

function collectSample(collector: SeriesCollector, s: StepSeries, i: number, key: string): void {
  const h = histogramAt(s, i);
  if (h === undefined) collector.add(s.labels, s.dropName, i, s.values[i] as number, key);
  else collector.addHistogram(s.labels, s.dropName, i, h, key);
}

/** Why a histogram operation has no result, worded as Prometheus' annotations. */
function reportHistogramProblem(ev: EvalHost, op: BinaryOp, problem: HistogramOpProblem, pos: PositionRange): void {
  const annotations = ev.ctx.annotations;
  if (problem.kind === 'incompatible-types')
    annotations.incompatibleTypesInBinOp(problem.lhsType, op, problem.rhsType, pos);
  else if (problem.kind === 'counter-reset-collision') annotations.counterResetCollision(problem.operation, pos);
  else annotations.incompatibleBucketLayout(op, pos);
}

interface Operand {
  labels: Labels;
  value: number;
  histogram?: FloatHistogram | undefined;
}

async function vectorVector(
  ev: EvalHost,
  node: BinaryExpr,
  matching: VectorMatching,
  lhs: StepSeries[],
  rhs: StepSeries[],
): Promise<StepSeries[]> {
  const op = node.op;
  const swapped = matching.card === 'one-to-many';
  // The "many" side is walked, the "one" side is looked up by signature.
  const many = swapped ? rhs : lhs;
  const one = swapped ? lhs : rhs;
  const sigs = new Signatures(matching, many, one);
  const manySig = sigs.left;
  const oneSig = sigs.right;
  const oneStamp = new Int32Array(sigs.count);
  const oneIndex = new Int32Array(sigs.count);
  const matchedStamp = new Int32Array(sigs.count);
  const collector = new SeriesCollector(ev.steps);
  const metricCache = new Map<string, { labels: Labels; key: string }>();
  const dropsName = isArithmetic(op);
  const includeNames = matching.include;

  const resultMetric = (manyLabels: Labels, oneLabels: Labels, cacheKey: string): { labels: Labels; key: string } => {
    let cached = metricCache.get(cacheKey);
    if (cached !== undefined) return cached;
    let labels: Label[] = dropsName ? manyLabels.filter((l) => !METADATA_LABELS.has(l.name)) : [...manyLabels];
    if (matching.card === 'one-to-one') {
      const names = new Set(matching.matchingLabels);
      labels = labels.filter((l) => names.has(l.name) === matching.on);
    }
    for (const name of includeNames) {
      labels = labels.filter((l) => l.name !== name);
      const value = oneLabels.find((l) => l.name === name)?.value ?? '';
      if (value !== '') labels.push({ name, value });
    }
    if (includeNames.length > 0) labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    cached = { labels, key: labelsKey(labels) };
    metricCache.set(cacheKey, cached);
    return cached;
  };

  const filling = matching.fillLeft !== null || matching.fillRight !== null;
  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    const mark = i + 1;
    const manyPresent = many.some((s) => s.present[i] !== 0);
    const onePresent = one.some((s) => s.present[i] !== 0);
    // Prometheus short-circuits before its duplicate checks when nothing can match.
    if ((!manyPresent && !onePresent) || ((!manyPresent || !onePresent) && !filling)) continue;
    for (let j = 0; j < one.length; j++) {
      const s = one[j] as StepSeries;
      if (s.present[i] === 0) continue;
      const sig = oneSig[j] as number;
      if (oneStamp[sig] === mark) {
        const other = one[oneIndex[sig] as number] as StepSeries;
        throw duplicateSeriesError(sigs.matchLabels(s.labels), swapped ? 'left' : 'right', s.labels, other.labels);
      }
      oneStamp[sig] = mark;
      oneIndex[sig] = j;
    }
    const insertedBySig = matching.card === 'one-to-one' ? null : new Map<number, Set<string>>();

    const combine = (manyOperand: Operand, oneOperand: Operand, sig: number, cacheKey: string): void => {
      const [left, right] = swapped ? [oneOperand, manyOperand] : [manyOperand, oneOperand];
      let applied: { value: number; keep: boolean };
      let histogram: FloatHistogram | undefined;
      if (left.histogram === undefined && right.histogram === undefined) {
        if (isTrimOp(op)) {
          ev.ctx.annotations.incompatibleTypesInBinOp('float', op, 'float', node.pos);
          return;
        }
        applied = applyOp(op, left.value, right.value);
      } else {
        const r: HistogramOpResult = histogramElemOp(op, left.value, right.value, left.histogram, right.histogram);
        if (!r.ok) {
          reportHistogramProblem(ev, op, r.problem, node.pos);
          return;
        }
        if (r.reconciled !== undefined) ev.ctx.annotations.customBucketsReconciled(r.reconciled, node.pos);
        applied = { value: 0, keep: r.keep };
        histogram = node.returnBool ? undefined : r.h;
      }
      let value = applied.value;
      if (node.returnBool) value = applied.keep ? 1 : 0;
      const metric = resultMetric(manyOperand.labels, oneOperand.labels, cacheKey);
      if (insertedBySig === null) {
        if (matchedStamp[sig] === mark) {
          throw new PromqlError(
            'execution',
            'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
          );
        }
        matchedStamp[sig] = mark;
      } else {
        let inserted = insertedBySig.get(sig);
        if (inserted === undefined) {
          inserted = new Set();
          insertedBySig.set(sig, inserted);
        }
        if (inserted.has(metric.key)) {
          throw new PromqlError('execution', 'multiple matches for labels: grouping labels must ensure unique matches');
        }
        inserted.add(metric.key);
      }
      if (!applied.keep && !node.returnBool) return;
      if (histogram !== undefined) collector.addHistogram(metric.labels, node.returnBool, i, histogram, metric.key);
      else collector.add(metric.labels, node.returnBool, i, value, metric.key);
    };

    // Prometheus swaps the operands of a group_right match before filling and keeps the fill
    // values where they were: fill_right fills the "one" side and fill_left the "many" side
    // whichever operand each is (its fill-modifier.test expects exactly this).
    const fillForOne = matching.fillRight;
    const fillForMany = matching.fillLeft;
    for (let j = 0; j < many.length; j++) {
      const s = many[j] as StepSeries;
      if (s.present[i] === 0) continue;
      const sig = manySig[j] as number;
      const manyOperand = { labels: s.labels, value: s.values[i] as number, histogram: histogramAt(s, i) };
      if (oneStamp[sig] === mark) {
        const k = oneIndex[sig] as number;
        const o = one[k] as StepSeries;
        const oneOperand = { labels: o.labels, value: o.values[i] as number, histogram: histogramAt(o, i) };
        combine(manyOperand, oneOperand, sig, `${j}:${k}`);
      } else if (fillForOne !== null) {
        combine(manyOperand, { labels: sigs.matchLabels(s.labels), value: fillForOne }, sig, `${j}:fill`);
      }
    }
    if (fillForMany !== null) {
      for (let k = 0; k < one.length; k++) {
        const o = one[k] as StepSeries;
        if (o.present[i] === 0) continue;
        const sig = oneSig[k] as number;
        const matched = insertedBySig === null ? matchedStamp[sig] === mark : (insertedBySig.get(sig)?.size ?? 0) > 0;
        if (matched) continue;
        const filler = { labels: sigs.matchLabels(o.labels), value: fillForMany };
        const oneOperand = { labels: o.labels, value: o.values[i] as number, histogram: histogramAt(o, i) };
        combine(filler, oneOperand, sig, `fill:${k}`);
      }
    }
  }
  return collector.result();
}

function duplicateSeriesError(group: Labels, side: 'left' | 'right', a: Labels, b: Labels): PromqlError {
  let first = formatLabels(a);
  let second = formatLabels(b);
  if (first > second) [first, second] = [second, first];
  return new PromqlError(
    'execution',
    `found duplicate series for the match group ${formatLabels(group)} on the ${side} hand-side of the operation: [${first}, ${second}];many-to-many matching not allowed: matching labels must be unique on one side`,
  );
}
