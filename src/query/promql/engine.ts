/**
 * The PromQL engine's entry points: parse, instant and range evaluation, and the
 * `format_query` / `parse_query` renderings. The HTTP routes and `TQL` call only these.
 *
 * Results follow Prometheus 3: delayed `__name__` removal happens here, at the end (series
 * marked by name-dropping functions and operators lose `__name__`, `__type__`, `__unit__`);
 * an instant vector must then have unique label sets, and a range result merges series that
 * became equal if they never overlap in time. Range results are sorted by label set; an instant
 * vector keeps evaluation order (which `sort()` and `topk()` decide).
 */

import type { Expr } from './ast.js';
import { documentedType, typeOf } from './ast.js';
import { isShardEvaluation } from './distribute/eval-plan.js';
import { ShardPushdown } from './distribute/shard-pushdown.js';
import { Annotations } from './eval/annotations.js';
import { Evaluator, type QueryContext, throwIfCancelled } from './eval/evaluator.js';
import { Interrupter } from './eval/interrupter.js';
import { SampleBudget } from './eval/sample-budget.js';
import { DUPLICATE_LABELSET, histogramAt, mergeSameLabels, type StepSeries, type Value } from './eval/values.js';
import { compareLabels, labelsKey, METRIC_NAME } from './labels.js';
import { checkPointsPerSeries, PROMQL_LIMITS_DEFAULT } from './limits.js';
import { parseExpr } from './parse.js';
import { exprToJson } from './parse-json.js';
import { prettify } from './printer.js';
import { PromqlError, type QueryAnnotations, type QueryOptions, type QueryResult, type RangeSeries } from './types.js';

export type { Expr } from './ast.js';

/** Prometheus' default lookback delta. */
export const DEFAULT_LOOKBACK_MS = 5 * 60 * 1000;
/** Step of a subquery written without one (`x[10m:]`), as the conformance settings assume. */
export const DEFAULT_SUBQUERY_STEP_MS = 60 * 1000;

/** A query's answer with the annotations it raised. */
export type QueryOutcome = QueryResult & QueryAnnotations;

/** Parses and type-checks; throws PromqlError('bad_data', '1:5: parse error: ...'). */
export function parsePromql(text: string): Expr {
  return parseExpr(text);
}

/** `/api/v1/format_query`: Prometheus' prettified text. */
export function formatPromql(expr: Expr): string {
  return prettify(expr);
}

/** `/api/v1/parse_query`: the JSON syntax tree. */
export function promqlToJson(expr: Expr): unknown {
  return exprToJson(expr);
}

function prepare(query: string | Expr): { expr: Expr; text: string } {
  if (typeof query === 'string') return { expr: parseExpr(query), text: query };
  // Without the original text annotations carry no position.
  return { expr: query, text: '' };
}

function context(opts: QueryOptions, text: string, startMs: number, endMs: number, stepMs: number): QueryContext {
  return {
    source: opts.source,
    // Prometheus treats a zero or negative lookback as "use the default".
    lookbackMs:
      opts.lookbackDeltaMs !== undefined && opts.lookbackDeltaMs > 0 ? opts.lookbackDeltaMs : DEFAULT_LOOKBACK_MS,
    signal: opts.signal,
    annotations: new Annotations(text),
    queryStartMs: startMs,
    queryEndMs: endMs,
    queryStepMs: stepMs,
    defaultSubqueryStepMs: DEFAULT_SUBQUERY_STEP_MS,
    interrupt: new Interrupter(opts.signal),
    samples: new SampleBudget((opts.limits ?? PROMQL_LIMITS_DEFAULT).maxSamples),
    pushdown:
      opts.pushdown !== false && isShardEvaluation(opts.source) ? new ShardPushdown(opts.source, text) : undefined,
  };
}

function annotationsOf(ctx: QueryContext): QueryAnnotations {
  return { warnings: [...ctx.annotations.warnings], infos: [...ctx.annotations.infos] };
}

const METADATA_LABELS = new Set([METRIC_NAME, '__type__', '__unit__']);

/** Applies delayed name removal. */
function removeNames(series: StepSeries[]): StepSeries[] {
  return series.map((s) =>
    s.dropName ? { ...s, labels: s.labels.filter((l) => !METADATA_LABELS.has(l.name)), dropName: false } : s,
  );
}

/** Evaluates at one instant (`timeMs` is truncated to whole milliseconds, as in Prometheus). */
export async function instantQuery(query: string | Expr, timeMs: number, opts: QueryOptions): Promise<QueryOutcome> {
  return evaluateInstant(query, Math.trunc(timeMs), opts);
}

async function evaluateInstant(query: string | Expr, timeMs: number, opts: QueryOptions): Promise<QueryOutcome> {
  const { expr, text } = prepare(query);
  const ctx = context(opts, text, timeMs, timeMs, 0);
  const value = await new Evaluator(ctx, timeMs, timeMs, 1).eval(expr);
  throwIfCancelled(ctx.signal);
  const annotations = annotationsOf(ctx);
  switch (value.kind) {
    case 'scalar':
      return { resultType: 'scalar', t: timeMs, v: value.values[0] as number, ...annotations };
    case 'string':
      return { resultType: 'string', t: timeMs, v: value.value, ...annotations };
    case 'vector': {
      const series = removeNames(value.series);
      const keys = new Set<string>();
      for (const s of series) {
        const key = labelsKey(s.labels);
        if (keys.has(key)) throw new PromqlError('execution', DUPLICATE_LABELSET);
        keys.add(key);
      }
      const samples = series.map((s) => {
        const h = histogramAt(s, 0);
        return h === undefined
          ? { labels: s.labels, t: timeMs, v: s.values[0] as number }
          : { labels: s.labels, t: timeMs, v: Number.NaN, h };
      });
      return { resultType: 'vector', samples, ...annotations };
    }
    case 'matrix': {
      const matrix = value.series.map((s) => ({
        labels: s.dropName ? s.labels.filter((l) => !METADATA_LABELS.has(l.name)) : s.labels,
        t: plainArray(s.t),
        v: plainArray(s.v),
        ...(s.hv && s.hv.length > 0 ? { histograms: { t: plainArray(s.ht ?? EMPTY), h: s.hv } } : {}),
      }));
      return { resultType: 'matrix', series: sortAndCheckMatrix(matrix), ...annotations };
    }
  }
}

const EMPTY = new Float64Array(0);

/** A typed array's values as an array: a loop, ten times faster than Array.from over a typed array. */
function plainArray(values: Float64Array): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] as number;
  return out;
}

function sortAndCheckMatrix(series: RangeSeries[]): RangeSeries[] {
  series.sort((a, b) => compareLabels(a.labels, b.labels));
  for (let i = 1; i < series.length; i++) {
    if (compareLabels((series[i - 1] as RangeSeries).labels, (series[i] as RangeSeries).labels) === 0) {
      throw new PromqlError('execution', DUPLICATE_LABELSET);
    }
  }
  return series;
}

/** Evaluates at start, start + step, ... up to end (whole milliseconds); always a matrix. */
export async function rangeQuery(
  query: string | Expr,
  startMs: number,
  endMs: number,
  stepMs: number,
  opts: QueryOptions,
): Promise<QueryOutcome> {
  return evaluateRange(query, Math.trunc(startMs), Math.trunc(endMs), Math.trunc(stepMs), opts);
}

async function evaluateRange(
  query: string | Expr,
  startMs: number,
  endMs: number,
  stepMs: number,
  opts: QueryOptions,
): Promise<QueryOutcome> {
  const { expr, text } = prepare(query);
  const type = typeOf(expr);
  if (type !== 'vector' && type !== 'scalar') {
    throw new PromqlError(
      'bad_data',
      `invalid expression type "${documentedType(type)}" for range query, must be Scalar or instant Vector`,
    );
  }
  if (!(stepMs > 0)) {
    throw new PromqlError(
      'bad_data',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  }
  if (endMs < startMs) throw new PromqlError('bad_data', 'end timestamp must not be before start time');
  checkPointsPerSeries(startMs, endMs, stepMs, (opts.limits ?? PROMQL_LIMITS_DEFAULT).maxPointsPerSeries);
  const ctx = context(opts, text, startMs, endMs, stepMs);
  const evaluator = new Evaluator(ctx, startMs, endMs, stepMs);
  const value: Value = await evaluator.eval(expr);
  throwIfCancelled(ctx.signal);
  const annotations = annotationsOf(ctx);
  let stepSeries: StepSeries[];
  if (value.kind === 'scalar') {
    stepSeries = [
      { labels: [], dropName: false, values: value.values, present: new Uint8Array(evaluator.steps).fill(1) },
    ];
  } else if (value.kind === 'vector') {
    stepSeries = mergeSameLabels(removeNames(value.series));
  } else {
    throw new PromqlError('internal', `unexpected ${value.kind} result for a range query`);
  }
  const series: RangeSeries[] = [];
  for (const s of stepSeries) {
    const t: number[] = [];
    const v: number[] = [];
    let histograms: RangeSeries['histograms'];
    for (let i = 0; i < evaluator.steps; i++) {
      const h = histogramAt(s, i);
      if (h !== undefined) {
        histograms ??= { t: [], h: [] };
        histograms.t.push(evaluator.times[i] as number);
        histograms.h.push(h);
        continue;
      }
      if (s.present[i] !== 1) continue;
      t.push(evaluator.times[i] as number);
      v.push(s.values[i] as number);
    }
    if (histograms) series.push({ labels: s.labels, t, v, histograms });
    else if (t.length > 0) series.push({ labels: s.labels, t, v });
  }
  series.sort((a, b) => compareLabels(a.labels, b.labels));
  return { resultType: 'matrix', series, ...annotations };
}
