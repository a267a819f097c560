/**
 * The functions the registry marks `special`: they need labels, the whole vector, the raw
 * selector or the query's own range, so the engine implements them (Prometheus' evalLabelReplace,
 * funcAbsent, funcSort*, funcHistogramQuantile grouping, ...). The native-histogram halves of the
 * histogram functions are in histogram-functions.ts.
 */

import { type Call, type Expr, unwrapParens, type VectorSelector } from '../ast.js';
import { bucketFraction, bucketQuantile } from '../functions/registry.js';
import { formatOpenMetricsFloat } from '../go-format.js';
import {
  BUCKET_LABEL,
  compareLabels,
  getLabel,
  isValidLabelName,
  labelsFromPairs,
  labelsKey,
  METRIC_NAME,
  withLabel,
} from '../labels.js';
import { type AnchoredRegex, compileAnchoredRegex, expandGoTemplate, GoRegexError } from '../regex.js';
import { isStaleNaN, type Labels, type Matcher, PromqlError } from '../types.js';
import type { EvalHost } from './eval-host.js';
import { goSortReverse, type Less } from './go-order.js';
import {
  classicNativeConflicts,
  nativeFractions,
  nativeQuantiles,
  simpleHistogramFunction,
} from './histogram-functions.js';
import { evalInfo } from './info.js';
import { floatsOnly, mergeSameLabels, newStepSeries, type StepSeries, type Value } from './values.js';
import { forEachWindow, rangeArgument } from './windows.js';

function scalarOf(ev: EvalHost, compute: (i: number) => number): Value {
  const values = new Float64Array(ev.steps);
  for (let i = 0; i < ev.steps; i++) values[i] = compute(i);
  return { kind: 'scalar', values };
}

function stringArgument(arg: Expr): string {
  const inner = unwrapParens(arg);
  if (inner.type !== 'StringLiteral') throw new PromqlError('internal', 'expected a string literal argument');
  return inner.value;
}

export async function evalSpecial(ev: EvalHost, node: Call): Promise<Value> {
  const args = node.args;
  const ctx = ev.ctx;
  switch (node.func.name) {
    case 'time':
      return scalarOf(ev, (i) => (ev.times[i] as number) / 1000);
    case 'pi':
      return scalarOf(ev, () => Math.PI);
    case 'start':
      return scalarOf(ev, () => ctx.queryStartMs / 1000);
    case 'end':
      return scalarOf(ev, () => ctx.queryEndMs / 1000);
    case 'range':
      return scalarOf(ev, () => (ctx.queryEndMs - ctx.queryStartMs) / 1000);
    case 'step':
      return scalarOf(ev, () => ctx.queryStepMs / 1000);
    case 'min_of':
    case 'max_of': {
      const a = await ev.scalar(unwrapParens(args[0] as Expr));
      const b = await ev.scalar(unwrapParens(args[1] as Expr));
      const pick = node.func.name === 'min_of' ? Math.min : Math.max;
      return scalarOf(ev, (i) => pick(a[i] as number, b[i] as number));
    }
    case 'vector': {
      const values = await ev.scalar(unwrapParens(args[0] as Expr));
      const out = newStepSeries([], false, ev.steps);
      out.values.set(values);
      out.present.fill(1);
      return { kind: 'vector', series: ev.steps > 0 ? [out] : [] };
    }
    case 'scalar': {
      const input = await ev.vector(unwrapParens(args[0] as Expr));
      return scalarOf(ev, (i) => {
        let found = Number.NaN;
        let count = 0;
        for (const s of input) {
          if (s.present[i] !== 1) continue;
          found = s.values[i] as number;
          if (++count > 1) return Number.NaN;
        }
        return count === 1 ? found : Number.NaN;
      });
    }
    case 'absent':
      return absent(ev, args[0] as Expr);
    case 'absent_over_time':
      return absentOverTime(ev, args[0] as Expr);
    case 'timestamp':
      return timestamp(ev, args[0] as Expr);
    case 'label_replace':
      return labelReplace(ev, args);
    case 'label_join':
      return labelJoin(ev, args);
    case 'sort':
    case 'sort_desc':
    case 'sort_by_label':
    case 'sort_by_label_desc':
      return sortVector(ev, node);
    case 'histogram_quantile':
      return histogramQuantile(ev, node);
    case 'histogram_fraction':
      return histogramFraction(ev, node);
    case 'histogram_avg':
    case 'histogram_count':
    case 'histogram_sum':
    case 'histogram_stddev':
    case 'histogram_stdvar': {
      const input = await ev.vector(unwrapParens(args[0] as Expr));
      return { kind: 'vector', series: simpleHistogramFunction(ev, node.func.name, input) };
    }
    case 'histogram_quantiles':
      return histogramQuantiles(ev, node);
    case 'start_timestamp':
      // Not implemented: no source has start timestamps.
      await ev.vector(unwrapParens(args[0] as Expr));
      return { kind: 'vector', series: [] };
    case 'info':
      return evalInfo(ev, args);
    default:
      throw new PromqlError('bad_data', `function "${node.func.name}" is not supported`);
  }
}

/**
 * Labels for absent()/absent_over_time(): the equality matchers of a plain selector, except
 * names matched more than once (`absent(x{job="a",job="b"})` has no `job`), and never the name.
 */
function absentLabels(arg: Expr): Labels {
  const inner = unwrapParens(arg);
  let matchers: Matcher[];
  if (inner.type === 'VectorSelector') matchers = inner.matchers;
  else if (inner.type === 'MatrixSelector') matchers = inner.selector.matchers;
  else return [];
  const values = new Map<string, string>();
  const seen = new Set<string>();
  for (const m of matchers) {
    if (m.name === METRIC_NAME) continue;
    if (m.op === '=' && !seen.has(m.name)) values.set(m.name, m.value);
    else values.delete(m.name);
    seen.add(m.name);
  }
  return labelsFromPairs(values);
}

function onesWhere(ev: EvalHost, labels: Labels, missing: Uint8Array): Value {
  const out = newStepSeries(labels, false, ev.steps);
  for (let i = 0; i < ev.steps; i++) {
    if (missing[i] !== 1) continue;
    out.values[i] = 1;
    out.present[i] = 1;
  }
  return { kind: 'vector', series: out.present.includes(1) ? [out] : [] };
}

async function absent(ev: EvalHost, arg: Expr): Promise<Value> {
  const input = await ev.vector(unwrapParens(arg));
  const missing = new Uint8Array(ev.steps).fill(1);
  for (const s of input) for (let i = 0; i < ev.steps; i++) if (s.present[i] !== 0) missing[i] = 0;
  return onesWhere(ev, absentLabels(arg), missing);
}

async function absentOverTime(ev: EvalHost, arg: Expr): Promise<Value> {
  const input = await rangeArgument(ev, arg);
  const missing = new Uint8Array(ev.steps).fill(1);
  await forEachWindow(ev, input, (_si, i) => {
    missing[i] = 0;
  });
  return onesWhere(ev, absentLabels(arg), missing);
}

/** timestamp(): a selector's sample times; any other expression's samples are at the step. */
async function timestamp(ev: EvalHost, arg: Expr): Promise<Value> {
  const inner = unwrapParens(arg);
  let input: StepSeries[];
  if (inner.type !== 'VectorSelector') input = await ev.vector(inner);
  else if (inner.atMs !== null || inner.startOrEnd !== null) input = await pinnedTimestamps(ev, inner);
  else input = await ev.selectVector(inner, true);
  const series = input.map((s) => {
    const out = newStepSeries(s.labels, true, ev.steps);
    for (let i = 0; i < ev.steps; i++) {
      if (s.present[i] === 0) continue;
      out.present[i] = 1;
      out.values[i] = (s.timestamps ? (s.timestamps[i] as number) : (ev.times[i] as number)) / 1000;
    }
    return out;
  });
  return { kind: 'vector', series };
}

/**
 * timestamp(x @ T offset o) as Prometheus computes it: storage is read for the selector's
 * normal window, `(T - o - lookback, T - o]`, but the sample is then looked up at T itself
 * (its evaluation replaces the offset), so the lookback is also measured from T.
 */
async function pinnedTimestamps(ev: EvalHost, node: VectorSelector): Promise<StepSeries[]> {
  const { offsetMs, atMs } = ev.resolveModifiers(node);
  const at = atMs as number;
  const lookback = ev.ctx.lookbackMs;
  const upper = Math.min(at, at - offsetMs);
  const lower = Math.max(at - lookback, at - offsetMs - lookback);
  const data = await ev.ctx.source.select(
    { matchers: node.matchers, startMs: at - offsetMs - lookback, endMs: at - offsetMs },
    ev.ctx.signal,
  );
  const out: StepSeries[] = [];
  for (const s of data) {
    let k = s.t.length - 1;
    while (k >= 0 && (s.t[k] as number) > upper) k--;
    if (k < 0 || (s.t[k] as number) <= lower || isStaleNaN(s.v[k] as number)) continue;
    const series = newStepSeries(s.labels, false, ev.steps);
    series.timestamps = new Float64Array(ev.steps).fill(s.t[k] as number);
    series.present.fill(1);
    out.push(series);
  }
  return out;
}

/** A relabelled series keeps its pending name removal unless it wrote `__name__` itself. */
function relabelled(s: StepSeries, labels: Labels, destination: string): StepSeries {
  return { ...s, labels, dropName: destination === METRIC_NAME ? false : s.dropName };
}

async function labelReplace(ev: EvalHost, args: Expr[]): Promise<Value> {
  const destination = stringArgument(args[1] as Expr);
  const replacement = stringArgument(args[2] as Expr);
  const source = stringArgument(args[3] as Expr);
  const pattern = stringArgument(args[4] as Expr);
  let regex: AnchoredRegex;
  try {
    regex = compileAnchoredRegex(pattern);
  } catch (error) {
    if (error instanceof GoRegexError)
      throw new PromqlError('execution', `invalid regular expression in label_replace(): ${pattern}`);
    throw error;
  }
  if (!isValidLabelName(destination)) {
    throw new PromqlError('execution', `invalid destination label name in label_replace(): ${destination}`);
  }
  const input = await ev.vector(unwrapParens(args[0] as Expr));
  const out = input.map((s) => {
    const match = regex.exec(getLabel(s.labels, source));
    if (match === null) return s;
    return relabelled(s, withLabel(s.labels, destination, expandGoTemplate(replacement, match)), destination);
  });
  return { kind: 'vector', series: mergeSameLabels(out) };
}

async function labelJoin(ev: EvalHost, args: Expr[]): Promise<Value> {
  const destination = stringArgument(args[1] as Expr);
  const separator = stringArgument(args[2] as Expr);
  const sources = args.slice(3).map(stringArgument);
  for (const source of sources) {
    if (!isValidLabelName(source))
      throw new PromqlError('execution', `invalid source label name in label_join(): ${source}`);
  }
  if (!isValidLabelName(destination)) {
    throw new PromqlError('execution', `invalid destination label name in label_join(): ${destination}`);
  }
  const input = await ev.vector(unwrapParens(args[0] as Expr));
  const out = input.map((s) => {
    const joined = sources.map((source) => getLabel(s.labels, source)).join(separator);
    return relabelled(s, withLabel(s.labels, destination, joined), destination);
  });
  return { kind: 'vector', series: mergeSameLabels(out) };
}

/**
 * sort() and friends only matter for an instant query (one step); a range query's result is
 * ordered by labels anyway, which Prometheus reports with a warning.
 */
async function sortVector(ev: EvalHost, node: Call): Promise<Value> {
  let input = await ev.vector(unwrapParens(node.args[0] as Expr));
  // Sorting by value has no place for histograms; sorting by label keeps them.
  if (node.func.name === 'sort' || node.func.name === 'sort_desc') input = floatsOnly(input);
  if (ev.ctx.queryStartMs !== ev.ctx.queryEndMs) ev.ctx.annotations.sortInRangeQuery(node.pos);
  if (ev.steps !== 1) return { kind: 'vector', series: input };
  const series = [...input];
  const sampleValue = (s: StepSeries): number => s.values[0] as number;
  switch (node.func.name) {
    case 'sort': {
      // Prometheus: reverse of a descending order with NaN first, so NaN ends up last.
      const descendingNaNFirst: Less<StepSeries> = (a, b) =>
        Number.isNaN(sampleValue(a)) || sampleValue(a) > sampleValue(b);
      goSortReverse(series, descendingNaNFirst);
      break;
    }
    case 'sort_desc': {
      const ascendingNaNFirst: Less<StepSeries> = (a, b) =>
        Number.isNaN(sampleValue(a)) || sampleValue(a) < sampleValue(b);
      goSortReverse(series, ascendingNaNFirst);
      break;
    }
    default: {
      const names = node.args.slice(1).map(stringArgument);
      const direction = node.func.name === 'sort_by_label' ? 1 : -1;
      series.sort((a, b) => {
        for (const name of names) {
          const x = getLabel(a.labels, name);
          const y = getLabel(b.labels, name);
          if (x === y) continue;
          return naturalLess(x, y) ? -direction : direction;
        }
        return direction * compareLabels(a.labels, b.labels);
      });
    }
  }
  return { kind: 'vector', series };
}

/** Natural order: digit runs compare as numbers, the rest byte-wise. */
export function naturalLess(a: string, b: string): boolean {
  const chunk = /(\d+|\D+)/g;
  const xs = a.match(chunk) ?? [];
  const ys = b.match(chunk) ?? [];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const x = xs[i] as string;
    const y = ys[i] as string;
    if (x === y) continue;
    const xDigits = /^\d/.test(x);
    const yDigits = /^\d/.test(y);
    if (xDigits && yDigits) {
      const xn = BigInt(x);
      const yn = BigInt(y);
      if (xn !== yn) return xn < yn;
      return x.length < y.length;
    }
    return x < y;
  }
  return xs.length < ys.length;
}

/** Go's `strconv.ParseFloat` for `le` values: decimal (no octal), exponent, sign, Inf, NaN. */
export function parseGoFloat(text: string): number | null {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  if (/^(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+)?$/.test(body)) {
    return sign * Number(body.replace(/_/g, ''));
  }
  const lower = body.toLowerCase();
  if (lower === 'inf' || lower === 'infinity') return sign * Number.POSITIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  return null;
}

interface BucketGroup {
  labels: Labels;
  members: { series: StepSeries; upperBound: number }[];
}

/**
 * Groups classic-histogram bucket series by their labels without `le` (the name included, so
 * different histograms stay apart until the name is removed at the end).
 */
function bucketGroups(ev: EvalHost, input: StepSeries[], arg: Expr): BucketGroup[] {
  const groups = new Map<string, BucketGroup>();
  for (const s of input) {
    const le = getLabel(s.labels, BUCKET_LABEL);
    const upperBound = parseGoFloat(le);
    if (upperBound === null) {
      if (s.present.includes(1)) ev.ctx.annotations.badBucketLabel(getLabel(s.labels, METRIC_NAME), le, arg.pos);
      continue;
    }
    const labels = s.labels.filter((l) => l.name !== BUCKET_LABEL);
    const key = labelsKey(labels);
    let group = groups.get(key);
    if (!group) {
      group = { labels, members: [] };
      groups.set(key, group);
    }
    group.members.push({ series: s, upperBound });
  }
  return [...groups.values()];
}

/** The classic groups by label key, for finding native histograms with the same labels. */
function groupsByKey(groups: BucketGroup[]): Map<string, StepSeries[]> {
  return new Map(groups.map((g) => [labelsKey(g.labels), g.members.map((m) => m.series)]));
}

function perBucketGroup(
  ev: EvalHost,
  groups: BucketGroup[],
  compute: (step: number, buckets: { upperBound: number; count: number }[], labels: Labels) => number | undefined,
  blocked: ReadonlySet<string>,
): StepSeries[] {
  const out: StepSeries[] = [];
  for (const group of groups) {
    const series = newStepSeries(group.labels, true, ev.steps);
    const buckets: { upperBound: number; count: number }[] = [];
    const key = blocked.size > 0 ? labelsKey(group.labels) : '';
    for (let i = 0; i < ev.steps; i++) {
      if (blocked.size > 0 && blocked.has(`${key}\u0000${i}`)) continue;
      buckets.length = 0;
      for (const m of group.members) {
        if (m.series.present[i] === 1) buckets.push({ upperBound: m.upperBound, count: m.series.values[i] as number });
      }
      if (buckets.length === 0) continue;
      const value = compute(i, buckets, group.labels);
      if (value === undefined) continue;
      series.values[i] = value;
      series.present[i] = 1;
    }
    if (series.present.includes(1)) out.push(series);
  }
  return out;
}

async function histogramQuantile(ev: EvalHost, node: Call): Promise<Value> {
  const qArg = node.args[0] as Expr;
  const vArg = node.args[1] as Expr;
  const q = await quantileArgument(ev, qArg);
  const input = await ev.vector(unwrapParens(vArg));
  return { kind: 'vector', series: quantilesOf(ev, input, vArg)(q) };
}

/**
 * histogram_quantiles(v, "label", φ0, φ1, ...): histogram_quantile at each φ, the results told
 * apart by `label` set to φ in OpenMetrics form ("0.5", "1.0"). A series that already had the
 * label collides with itself across φs, which the engine reports as duplicate label sets.
 */
async function histogramQuantiles(ev: EvalHost, node: Call): Promise<Value> {
  const vArg = node.args[0] as Expr;
  const label = stringArgument(node.args[1] as Expr);
  const qs: Float64Array[] = [];
  for (const qArg of node.args.slice(2)) qs.push(await quantileArgument(ev, qArg));
  const input = await ev.vector(unwrapParens(vArg));
  const quantiles = quantilesOf(ev, input, vArg);
  const out: StepSeries[] = [];
  for (const q of qs) {
    for (const s of quantiles(q)) out.push(...labelledByQuantile(ev, s, label, q));
  }
  return { kind: 'vector', series: out };
}

/** A φ argument per step, each outside [0, 1] reported as Prometheus does (even over nothing). */
async function quantileArgument(ev: EvalHost, qArg: Expr): Promise<Float64Array> {
  const q = await ev.scalar(unwrapParens(qArg));
  for (let i = 0; i < ev.steps; i++) {
    const value = q[i] as number;
    if (!(value >= 0 && value <= 1)) ev.ctx.annotations.invalidQuantile(value, qArg.pos);
  }
  return q;
}

/**
 * The quantile of every native histogram and classic bucket group of `input`, for φ per step;
 * the grouping and the classic/native conflicts are worked out once for every φ asked.
 */
function quantilesOf(ev: EvalHost, input: StepSeries[], vArg: Expr): (q: Float64Array) => StepSeries[] {
  const groups = bucketGroups(ev, input, vArg);
  const blocked = classicNativeConflicts(ev, input, groupsByKey(groups), vArg.pos);
  return (q) => {
    const natives = nativeQuantiles(ev, q, input, blocked, vArg.pos);
    const classic = perBucketGroup(
      ev,
      groups,
      (i, buckets, labels) => {
        const fix = monotonicityFix(q[i] as number, buckets);
        if (fix !== null) {
          ev.ctx.annotations.forcedMonotonicity(
            getLabel(labels, METRIC_NAME),
            vArg.pos,
            ev.times[i] as number,
            fix.minBucket,
            fix.maxBucket,
            fix.maxDiff,
          );
        }
        return bucketQuantile(q[i] as number, buckets);
      },
      blocked,
    );
    return [...natives, ...classic];
  };
}

/** `s` with `label` set to its step's φ: one series per distinct φ (φ is usually constant). */
function labelledByQuantile(ev: EvalHost, s: StepSeries, label: string, q: Float64Array): StepSeries[] {
  const byValue = new Map<string, StepSeries>();
  for (let i = 0; i < ev.steps; i++) {
    if (s.present[i] !== 1) continue;
    const text = formatOpenMetricsFloat(q[i] as number);
    let part = byValue.get(text);
    if (part === undefined) {
      part = newStepSeries(withLabel(s.labels, label, text), s.dropName, ev.steps);
      byValue.set(text, part);
    }
    part.values[i] = s.values[i] as number;
    part.present[i] = 1;
  }
  return [...byValue.values()];
}

/** promqltest's almost-equality with Prometheus' small-delta tolerance for bucket counts. */
function almostEqual(a: number, b: number, epsilon: number): boolean {
  if (a === b) return true;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  const minNormal = 2.2250738585072014e-308;
  if (a === 0 || b === 0 || absSum < minNormal) return diff < epsilon * minNormal;
  return diff / Math.min(absSum, Number.MAX_VALUE) < epsilon;
}

/**
 * Whether histogram_quantile must lift decreasing cumulative counts (Prometheus'
 * `ensureMonotonicAndIgnoreSmallDeltas`, reported as an info), and where. Only checked when the
 * quantile is computed at all: φ in [0, 1] and a +Inf bucket present.
 */
function monotonicityFix(
  q: number,
  buckets: { upperBound: number; count: number }[],
): { minBucket: number; maxBucket: number; maxDiff: number } | null {
  if (!(q >= 0 && q <= 1)) return null;
  const sorted = [...buckets].sort((a, b) => a.upperBound - b.upperBound);
  if ((sorted[sorted.length - 1] as { upperBound: number }).upperBound !== Number.POSITIVE_INFINITY) return null;
  const coalesced: { upperBound: number; count: number }[] = [];
  for (const b of sorted) {
    const last = coalesced[coalesced.length - 1];
    if (last && last.upperBound === b.upperBound) last.count += b.count;
    else coalesced.push({ ...b });
  }
  let forced = false;
  let minBucket = Number.POSITIVE_INFINITY;
  let maxBucket = Number.NEGATIVE_INFINITY;
  let maxDiff = 0;
  let previous = (coalesced[0] as { count: number }).count;
  for (let i = 1; i < coalesced.length; i++) {
    const b = coalesced[i] as { upperBound: number; count: number };
    if (b.count === previous || almostEqual(previous, b.count, 1e-12)) continue;
    if (b.count < previous) {
      forced = true;
      minBucket = Math.min(minBucket, b.upperBound);
      maxBucket = Math.max(maxBucket, b.upperBound);
      maxDiff = Math.max(maxDiff, previous - b.count);
      continue;
    }
    previous = b.count;
  }
  return forced ? { minBucket, maxBucket, maxDiff } : null;
}

async function histogramFraction(ev: EvalHost, node: Call): Promise<Value> {
  const lower = await ev.scalar(unwrapParens(node.args[0] as Expr));
  const upper = await ev.scalar(unwrapParens(node.args[1] as Expr));
  const vArg = node.args[2] as Expr;
  const input = await ev.vector(unwrapParens(vArg));
  const groups = bucketGroups(ev, input, vArg);
  const blocked = classicNativeConflicts(ev, input, groupsByKey(groups), vArg.pos);
  const natives = nativeFractions(ev, lower, upper, input, blocked, vArg.pos);
  const classic = perBucketGroup(
    ev,
    groups,
    (i, buckets) => bucketFraction(lower[i] as number, upper[i] as number, buckets),
    blocked,
  );
  return { kind: 'vector', series: [...natives, ...classic] };
}
