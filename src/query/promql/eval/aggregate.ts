/**
 * Aggregation operators (Prometheus' `rangeEvalAgg`, `aggregation`, `aggregationK`,
 * `aggregationCountValues`). Input series are mapped to groups once; each step then folds the
 * present samples of every group. Sum and avg use Kahan–Neumaier compensation, avg falls back to
 * an incremental mean when the running sum would overflow, stddev/stdvar use Welford, exactly as
 * Prometheus does, so results agree to the last bit where the corpus checks them.
 */

import { type AggregateExpr, unwrapParens } from '../ast.js';
import { kahan, kahanAdd } from '../functions/kahan.js';
import { quantileOfSorted } from '../functions/over-time.js';
import { formatFloatF } from '../go-format.js';
import { type FloatHistogram, histogramString } from '../histogram/float-histogram.js';
import { getLabel, goQuote, isValidLabelName, labelsKey, METRIC_NAME, withLabel } from '../labels.js';
import { labelsHashes } from '../labels-hash.js';
import { type Labels, PromqlError } from '../types.js';
import type { EvalHost } from './eval-host.js';
import { goSortReverse, heapFix, heapPush, type Less } from './go-order.js';
import { HistogramGroups } from './histogram-aggregate.js';
import {
  HISTOGRAM,
  hasHistograms,
  histogramAt,
  newStepSeries,
  SeriesCollector,
  type StepSeries,
  setHistogram,
  type Value,
} from './values.js';

const INT64_MAX = 2 ** 63;

/** Output labels of a group: the `by` labels, or all but the `without` labels and the name. */
export function groupLabels(labels: Labels, grouping: ReadonlySet<string>, without: boolean): Labels {
  if (without) return labels.filter((l) => !grouping.has(l.name) && l.name !== METRIC_NAME);
  if (grouping.size === 0) return [];
  return labels.filter((l) => grouping.has(l.name));
}

export async function evalAggregate(ev: EvalHost, node: AggregateExpr): Promise<Value> {
  if (node.op === 'count_values') return countValues(ev, node);
  const param = node.param ? await ev.scalar(unwrapParens(node.param)) : null;
  const input = await ev.vector(node.expr);
  const grouping = new Set(node.grouping);

  const groupOf = new Int32Array(input.length);
  const groupIndex = new Map<string, number>();
  const outputs: StepSeries[] = [];
  input.forEach((s, si) => {
    const labels = groupLabels(s.labels, grouping, node.without);
    const key = labelsKey(labels);
    let g = groupIndex.get(key);
    if (g === undefined) {
      g = groupIndex.size;
      groupIndex.set(key, g);
      outputs.push(newStepSeries(labels, false, ev.steps));
    }
    groupOf[si] = g;
  });

  switch (node.op) {
    case 'topk':
    case 'bottomk':
    case 'limitk':
    case 'limit_ratio':
      return {
        kind: 'vector',
        series: await selectK(ev, node, param as Float64Array, input, groupOf, groupIndex.size, input.length),
      };
    case 'quantile':
      warnQuantileParam(ev, node, param as Float64Array);
      break;
  }

  const groups = groupIndex.size;
  const value = new Float64Array(groups);
  const mean = new Float64Array(groups);
  const compensation = new Float64Array(groups);
  const count = new Float64Array(groups);
  const seen = new Uint8Array(groups);
  const incremental = new Uint8Array(groups);
  const dropName = new Uint8Array(groups);
  const quantileValues: number[][] = node.op === 'quantile' ? outputs.map(() => []) : [];
  const op = node.op;
  // Only allocated when some input has histograms, so float-only aggregations pay nothing.
  const histograms = input.some(hasHistograms)
    ? new HistogramGroups(groups, ev.ctx.annotations, node.expr.pos)
    : undefined;

  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    seen.fill(0);
    dropName.fill(0);
    histograms?.reset();
    for (let si = 0; si < input.length; si++) {
      const s = input[si] as StepSeries;
      const g = groupOf[si] as number;
      let f: number;
      if (s.present[i] === 1) f = s.values[i] as number;
      else if (s.present[i] !== HISTOGRAM) continue;
      else if (op === 'count' || op === 'group') f = 0;
      else {
        if (op === 'sum' || op === 'avg') {
          if (s.dropName) dropName[g] = 1;
          histograms?.add(g, histogramAt(s, i) as FloatHistogram, getLabel(s.labels, METRIC_NAME));
        } else ev.ctx.annotations.histogramIgnoredInAggregation(op, node.expr.pos);
        continue;
      }
      if (seen[g] === 0) {
        seen[g] = 1;
        value[g] = f;
        mean[g] = f;
        count[g] = 1;
        compensation[g] = 0;
        incremental[g] = 0;
        if (s.dropName) dropName[g] = 1;
        if (op === 'stddev' || op === 'stdvar') value[g] = Number.isFinite(f) ? 0 : Number.NaN;
        else if (op === 'group') value[g] = 1;
        else if (op === 'quantile') {
          const values = quantileValues[g] as number[];
          values.length = 0;
          values.push(f);
        }
        continue;
      }
      if (s.dropName) dropName[g] = 1;
      switch (op) {
        case 'sum':
          value[g] = kahanAdd(f, value[g] as number, compensation[g] as number);
          compensation[g] = kahan.compensation;
          break;
        case 'avg': {
          const n = (count[g] as number) + 1;
          count[g] = n;
          if (incremental[g] === 0) {
            const sum = kahanAdd(f, value[g] as number, compensation[g] as number);
            if (Number.isFinite(sum) || Number.isNaN(sum)) {
              value[g] = sum;
              compensation[g] = kahan.compensation;
              break;
            }
            // The direct sum would overflow: continue with an incremental mean.
            incremental[g] = 1;
            mean[g] = (value[g] as number) / (n - 1);
            compensation[g] = (compensation[g] as number) / (n - 1);
          }
          const q = (n - 1) / n;
          mean[g] = kahanAdd(f / n, q * (mean[g] as number), q * (compensation[g] as number));
          compensation[g] = kahan.compensation;
          break;
        }
        case 'max':
          if ((value[g] as number) < f || Number.isNaN(value[g])) value[g] = f;
          break;
        case 'min':
          if ((value[g] as number) > f || Number.isNaN(value[g])) value[g] = f;
          break;
        case 'count':
          count[g] = (count[g] as number) + 1;
          break;
        case 'stddev':
        case 'stdvar': {
          const n = (count[g] as number) + 1;
          count[g] = n;
          const delta = f - (mean[g] as number);
          mean[g] = (mean[g] as number) + delta / n;
          value[g] = (value[g] as number) + delta * (f - (mean[g] as number));
          break;
        }
        case 'quantile':
          (quantileValues[g] as number[]).push(f);
          break;
        case 'group':
          break;
      }
    }
    for (let g = 0; g < groups; g++) {
      if (histograms?.has(g) && (op === 'sum' || op === 'avg')) {
        const h = histograms.result(g, op, seen[g] === 1);
        if (h === undefined) continue;
        const out = outputs[g] as StepSeries;
        setHistogram(out, i, h);
        out.dropName = dropName[g] === 1;
        continue;
      }
      if (seen[g] === 0) continue;
      let result = value[g] as number;
      switch (op) {
        case 'avg':
          result =
            incremental[g] === 1
              ? (mean[g] as number) + (compensation[g] as number)
              : result / (count[g] as number) + (compensation[g] as number) / (count[g] as number);
          break;
        case 'count':
          result = count[g] as number;
          break;
        case 'stdvar':
          result /= count[g] as number;
          break;
        case 'stddev':
          result = Math.sqrt(result / (count[g] as number));
          break;
        case 'quantile':
          result = quantileOf((param as Float64Array)[i] as number, quantileValues[g] as number[]);
          break;
        case 'sum':
          result += compensation[g] as number;
          break;
      }
      const out = outputs[g] as StepSeries;
      out.values[i] = result;
      out.present[i] = 1;
      out.dropName = dropName[g] === 1;
    }
  }
  return { kind: 'vector', series: outputs.filter((s) => s.present.includes(1) || hasHistograms(s)) };
}

/** Prometheus' `quantile` over a group's values: NaN sorts below every number. */
function quantileOf(q: number, values: number[]): number {
  const sorted = new Float64Array(values.length);
  let nans = 0;
  for (const v of values) if (Number.isNaN(v)) sorted[nans++] = v;
  const numbers = Float64Array.from(values.filter((v) => !Number.isNaN(v))).sort();
  sorted.set(numbers, nans);
  return quantileOfSorted(q, sorted, sorted.length);
}

function warnQuantileParam(ev: EvalHost, node: AggregateExpr, param: Float64Array): void {
  const { min, max, hasNaN } = paramRange(param);
  const pos = (node.param as NonNullable<AggregateExpr['param']>).pos;
  if (hasNaN) ev.ctx.annotations.invalidQuantile(Number.NaN, pos);
  if (max > 1) ev.ctx.annotations.invalidQuantile(max, pos);
  if (min < 0) ev.ctx.annotations.invalidQuantile(min, pos);
}

/** Min and max of a parameter over the steps, NaN-propagating like Go's math.Min/Max. */
function paramRange(param: Float64Array): { min: number; max: number; hasNaN: boolean } {
  let min = Number.MAX_VALUE;
  let max = -Number.MAX_VALUE;
  let hasNaN = false;
  for (const v of param) {
    if (Number.isNaN(v)) hasNaN = true;
    max = Math.max(max, v);
    min = Math.min(min, v);
  }
  return { min, max, hasNaN };
}

interface Candidate {
  labels: Labels;
  key: string;
  dropName: boolean;
  value: number;
  /** limitk and limit_ratio pass histograms through. */
  histogram?: FloatHistogram | undefined;
}

const byValue: Less<Candidate> = (a, b) => Number.isNaN(a.value) || a.value < b.value;
const byReverseValue: Less<Candidate> = (a, b) => Number.isNaN(a.value) || a.value > b.value;

/**
 * topk, bottomk, limitk, limit_ratio: whole input series selected per group and step. Group
 * indices are in order of first appearance in the input. `inputCount` bounds k: the input's
 * length, or when `input` holds only the shards' preselected candidates, the number of series the
 * shards had (src/query/promql/distribute/partial-k.ts).
 */
export async function selectK(
  ev: EvalHost,
  node: AggregateExpr,
  param: Float64Array,
  input: StepSeries[],
  groupOf: Int32Array,
  groups: number,
  inputCount: number,
): Promise<StepSeries[]> {
  const op = node.op;
  const { min, max, hasNaN } = paramRange(param);
  const paramPos = (node.param as NonNullable<AggregateExpr['param']>).pos;
  if (op === 'limit_ratio') {
    if (max === 0 && min === 0) return [];
    if (hasNaN) throw new PromqlError('execution', 'Ratio value is NaN');
    if (max > 1) ev.ctx.annotations.invalidRatio(max, 1, paramPos);
    if (min < -1) ev.ctx.annotations.invalidRatio(min, -1, paramPos);
  } else {
    if (max < 1) return [];
    if (hasNaN) throw new PromqlError('execution', 'Parameter value is NaN');
    if (min <= -INT64_MAX) throw new PromqlError('execution', `Scalar value ${formatFloatF(min)} underflows int64`);
    if (max >= INT64_MAX) throw new PromqlError('execution', `Scalar value ${formatFloatF(max)} overflows int64`);
  }
  const keys = input.map((s) => labelsKey(s.labels));
  const offsets = op === 'limit_ratio' ? (await labelsHashes(input.map((s) => s.labels))).map(ratioOffset) : [];
  const collector = new SeriesCollector(ev.steps);
  const heaps: Candidate[][] = Array.from({ length: groups }, () => []);
  const seen = new Uint8Array(groups);

  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    const p = param[i] as number;
    let k = 0;
    let ratio = 0;
    if (op === 'limit_ratio') {
      if (p === 0) continue;
      ratio = Math.max(-1, Math.min(1, p));
    } else {
      k = Math.min(Math.trunc(p), inputCount);
      if (k < 1) continue;
    }
    seen.fill(0);
    for (let si = 0; si < input.length; si++) {
      const s = input[si] as StepSeries;
      if (s.present[i] !== 1) {
        if (s.present[i] !== HISTOGRAM) continue;
        if (op === 'topk' || op === 'bottomk') {
          ev.ctx.annotations.histogramIgnoredInAggregation(op, node.pos);
          continue;
        }
      }
      const g = groupOf[si] as number;
      const heap = heaps[g] as Candidate[];
      if (seen[g] === 0) {
        seen[g] = 1;
        heap.length = 0;
      }
      const candidate: Candidate = {
        labels: s.labels,
        key: keys[si] as string,
        dropName: s.dropName,
        value: s.values[i] as number,
        histogram: histogramAt(s, i),
      };
      switch (op) {
        case 'topk':
          if (heap.length < k) heapPush(heap, candidate, byValue);
          else if (
            (heap[0] as Candidate).value < candidate.value ||
            (Number.isNaN((heap[0] as Candidate).value) && !Number.isNaN(candidate.value))
          ) {
            heap[0] = candidate;
            if (k > 1) heapFix(heap, 0, byValue);
          }
          break;
        case 'bottomk':
          if (heap.length < k) heapPush(heap, candidate, byReverseValue);
          else if (
            (heap[0] as Candidate).value > candidate.value ||
            (Number.isNaN((heap[0] as Candidate).value) && !Number.isNaN(candidate.value))
          ) {
            heap[0] = candidate;
            if (k > 1) heapFix(heap, 0, byReverseValue);
          }
          break;
        case 'limitk':
          if (heap.length < k) heapPush(heap, candidate, byValue);
          break;
        default: {
          const offset = offsets[si] as number;
          if ((ratio >= 0 && offset < ratio) || (ratio < 0 && offset >= 1 + ratio)) heapPush(heap, candidate, byValue);
        }
      }
    }
    for (let g = 0; g < groups; g++) {
      if (seen[g] === 0) continue;
      const heap = heaps[g] as Candidate[];
      if (op === 'topk') goSortReverse(heap, byValue);
      else if (op === 'bottomk') goSortReverse(heap, byReverseValue);
      for (const c of heap) {
        if (c.histogram === undefined) collector.add(c.labels, c.dropName, i, c.value, c.key);
        else collector.addHistogram(c.labels, c.dropName, i, c.histogram, c.key);
      }
    }
  }
  return collector.result();
}

/**
 * limit_ratio's per-series position in [0, 1]: the label-set hash over 2^64 - 1, as Prometheus'
 * `HashRatioSampler.SampleOffset` computes it (in float64, so both round alike).
 */
function ratioOffset(hash: bigint): number {
  return Number(hash) / MAX_UINT64_AS_FLOAT;
}

// Go's float64(math.MaxUint64): 2^64 - 1 rounds to 2^64.
const MAX_UINT64_AS_FLOAT = 2 ** 64;

async function countValues(ev: EvalHost, node: AggregateExpr): Promise<Value> {
  const param = unwrapParens(node.param as NonNullable<AggregateExpr['param']>);
  const labelValue = await ev.eval(param);
  if (labelValue.kind !== 'string') throw new PromqlError('internal', 'count_values needs a string parameter');
  const valueLabel = labelValue.value;
  if (!isValidLabelName(valueLabel)) throw new PromqlError('execution', `invalid label name ${goQuote(valueLabel)}`);
  const input = await ev.vector(node.expr);
  const grouping = new Set(node.grouping);
  if (!node.without) grouping.add(valueLabel);
  const collector = new SeriesCollector(ev.steps);
  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    const counts = new Map<string, { labels: Labels; count: number }>();
    for (const s of input) {
      if (s.present[i] === 0) continue;
      const h = histogramAt(s, i);
      const text = h === undefined ? formatFloatF(s.values[i] as number) : histogramString(h);
      const labelled = withLabel(s.labels, valueLabel, text);
      const labels = groupLabels(labelled, grouping, node.without);
      const key = labelsKey(labels);
      const entry = counts.get(key);
      if (entry) entry.count++;
      else counts.set(key, { labels, count: 1 });
    }
    for (const [key, entry] of counts) collector.add(entry.labels, false, i, entry.count, key);
  }
  return { kind: 'vector', series: collector.result() };
}
