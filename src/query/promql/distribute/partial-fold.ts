/**
 * Partial aggregation of sum, avg, count, min, max, group, stddev and stdvar. Each shard folds its
 * own series into one state per (group, step) exactly as `eval/aggregate.ts` folds all series
 * (Kahan–Neumaier sums, avg's switch to an incremental mean when the sum would overflow, Welford
 * for the variance); the router then merges the shards' states:
 *
 *   sum    Kahan sum of the shards' sums, plus their compensations
 *   avg    (Σ sums + Σ compensations) / n, or, when a shard went incremental or the merged sum
 *          overflows, the count-weighted Kahan mean of the shards' means
 *   count  Σ counts;  min/max: the same NaN-skipping comparison as the fold;  group: 1
 *   stddev/stdvar  Chan et al.'s parallel merge of (count, mean, M2)
 *
 * Native histograms in sum and avg are summed apart from the floats (partial-histogram-fold.ts);
 * count and group count them, the others ignore them with the unpushed evaluation's info.
 *
 * A group found in one shard only gives exactly the unpushed result; across shards sums and
 * means add up in another order than Prometheus' series order, which may change the last bits.
 * Groups come out in order of their first input series, as the unpushed evaluation orders them.
 */
import type { AggregateExpr } from '../ast.js';
import { groupLabels } from '../eval/aggregate.js';
import type { EvalHost } from '../eval/eval-host.js';
import { HISTOGRAM, hasHistograms, histogramAt, newStepSeries, type StepSeries, setHistogram } from '../eval/values.js';
import { kahan, kahanAdd } from '../functions/kahan.js';
import type { FloatHistogram } from '../histogram/float-histogram.js';
import { compareLabels, labelsKey } from '../labels.js';
import type { Labels } from '../types.js';
import type { FoldState, PartialGroups } from './eval-plan.js';
import { HistogramFolder, mergeHistogramSlot } from './partial-histogram-fold.js';

/** Input series mapped to groups in order of first appearance. */
export interface Grouped {
  groups: PartialGroups;
  groupOf: Int32Array;
}

export function groupSeries(node: AggregateExpr, input: readonly StepSeries[], grouping: ReadonlySet<string>): Grouped {
  const index = new Map<string, number>();
  const groups: PartialGroups = { labels: [], first: [] };
  const groupOf = new Int32Array(input.length);
  input.forEach((s, si) => {
    const labels = groupLabels(s.labels, grouping, node.without);
    const key = labelsKey(labels);
    let g = index.get(key);
    if (g === undefined) {
      g = index.size;
      index.set(key, g);
      groups.labels.push(labels);
      groups.first.push(s.labels);
    }
    groupOf[si] = g;
  });
  return { groups, groupOf };
}

/** Shard side: folds this shard's input series into per-(group, step) states. */
export async function foldPartial(ev: EvalHost, node: AggregateExpr, input: readonly StepSeries[]): Promise<FoldState> {
  const { groups, groupOf } = groupSeries(node, input, new Set(node.grouping));
  const steps = ev.steps;
  const size = groups.labels.length * steps;
  const state: FoldState = {
    groups,
    count: new Float64Array(size),
    value: new Float64Array(size),
    compensation: new Float64Array(size),
    mean: new Float64Array(size),
    incremental: new Uint8Array(size),
    dropName: new Uint8Array(size),
  };
  const { count, value, compensation, mean, incremental, dropName } = state;
  const op = node.op;
  // Only when some input has histograms, so float-only folds pay nothing (as eval/aggregate.ts).
  const histograms =
    (op === 'sum' || op === 'avg') && input.some(hasHistograms) ? new HistogramFolder(op, size) : undefined;
  for (let i = 0; i < steps; i++) {
    await ev.checkpoint();
    for (let si = 0; si < input.length; si++) {
      const s = input[si] as StepSeries;
      const slot = (groupOf[si] as number) * steps + i;
      let f: number;
      if (s.present[i] === 1) f = s.values[i] as number;
      else if (s.present[i] !== HISTOGRAM) continue;
      // As the unpushed fold: count and group count a histogram, sum and avg add it apart from
      // the floats, the others ignore it with an info.
      else if (op === 'count' || op === 'group') f = 0;
      else {
        if (histograms !== undefined) histograms.add(slot, histogramAt(s, i) as FloatHistogram, s.dropName);
        else ev.ctx.annotations.histogramIgnoredInAggregation(op, node.expr.pos);
        continue;
      }
      if (count[slot] === 0) {
        count[slot] = 1;
        value[slot] =
          op === 'stddev' || op === 'stdvar' ? (Number.isFinite(f) ? 0 : Number.NaN) : op === 'group' ? 1 : f;
        mean[slot] = f;
        dropName[slot] = s.dropName ? 1 : 0;
        continue;
      }
      if (s.dropName) dropName[slot] = 1;
      const n = (count[slot] as number) + 1;
      count[slot] = n;
      switch (op) {
        case 'sum':
          value[slot] = kahanAdd(f, value[slot] as number, compensation[slot] as number);
          compensation[slot] = kahan.compensation;
          break;
        case 'avg': {
          if (incremental[slot] === 0) {
            const sum = kahanAdd(f, value[slot] as number, compensation[slot] as number);
            if (Number.isFinite(sum) || Number.isNaN(sum)) {
              value[slot] = sum;
              compensation[slot] = kahan.compensation;
              break;
            }
            // The direct sum would overflow: continue with an incremental mean, as Prometheus.
            incremental[slot] = 1;
            mean[slot] = (value[slot] as number) / (n - 1);
            compensation[slot] = (compensation[slot] as number) / (n - 1);
          }
          const q = (n - 1) / n;
          mean[slot] = kahanAdd(f / n, q * (mean[slot] as number), q * (compensation[slot] as number));
          compensation[slot] = kahan.compensation;
          break;
        }
        case 'max':
          if ((value[slot] as number) < f || Number.isNaN(value[slot])) value[slot] = f;
          break;
        case 'min':
          if ((value[slot] as number) > f || Number.isNaN(value[slot])) value[slot] = f;
          break;
        case 'stddev':
        case 'stdvar': {
          const delta = f - (mean[slot] as number);
          mean[slot] = (mean[slot] as number) + delta / n;
          value[slot] = (value[slot] as number) + delta * (f - (mean[slot] as number));
          break;
        }
        default:
          break;
      }
    }
  }
  if (histograms !== undefined) state.histogram = histograms.finish();
  return state;
}

/** Global groups of several shards' partial groups, in order of their first input series. */
export interface MergedGroups {
  labels: Labels[];
  /** Per shard: local group index → global group index. */
  toGlobal: Int32Array[];
  /** Per global group: the (shard, local group) pairs it merges. */
  members: Array<Array<[number, number]>>;
}

export function mergeGroups(perShard: readonly PartialGroups[]): MergedGroups {
  const byKey = new Map<string, { labels: Labels; first: Labels; members: Array<[number, number]> }>();
  perShard.forEach((groups, shard) => {
    groups.labels.forEach((labels, g) => {
      const key = labelsKey(labels);
      const first = groups.first[g] as Labels;
      const entry = byKey.get(key);
      if (entry === undefined) byKey.set(key, { labels, first, members: [[shard, g]] });
      else {
        entry.members.push([shard, g]);
        if (compareLabels(first, entry.first) < 0) entry.first = first;
      }
    });
  });
  const ordered = [...byKey.values()].sort((a, b) => compareLabels(a.first, b.first));
  const toGlobal = perShard.map((groups) => new Int32Array(groups.labels.length));
  ordered.forEach((entry, global) => {
    for (const [shard, g] of entry.members) (toGlobal[shard] as Int32Array)[g] = global;
  });
  return { labels: ordered.map((e) => e.labels), toGlobal, members: ordered.map((e) => e.members) };
}

/**
 * Router side: merges the shards' fold states into the aggregation's result. Throws
 * HistogramFoldUnmergeable when a histogram sum has no exact partial form (the caller then
 * evaluates the aggregation itself).
 */
export async function mergeFold(
  ev: EvalHost,
  node: AggregateExpr,
  states: readonly FoldState[],
): Promise<StepSeries[]> {
  const steps = ev.steps;
  const merged = mergeGroups(states.map((s) => s.groups));
  const groups = merged.labels.length;
  const outputs = merged.labels.map((labels) => newStepSeries(labels, false, steps));
  const n = new Float64Array(groups);
  const value = new Float64Array(groups);
  const compensation = new Float64Array(groups);
  const mean = new Float64Array(groups);
  const drop = new Uint8Array(groups);
  const direct = new Uint8Array(groups);
  const op = node.op;
  const histograms = (op === 'sum' || op === 'avg') && states.some((s) => s.histogram !== undefined);
  for (let i = 0; i < steps; i++) {
    await ev.checkpoint();
    n.fill(0);
    drop.fill(0);
    direct.fill(1);
    states.forEach((state, shard) => {
      const toGlobal = merged.toGlobal[shard] as Int32Array;
      for (let g = 0; g < toGlobal.length; g++) {
        const slot = g * steps + i;
        const count = state.count[slot] as number;
        if (count === 0) continue;
        const G = toGlobal[g] as number;
        if (state.dropName[slot] === 1) drop[G] = 1;
        const v = state.value[slot] as number;
        const c = state.compensation[slot] as number;
        if (op === 'avg' && state.incremental[slot] === 1) direct[G] = 0;
        if (n[G] === 0) {
          n[G] = count;
          value[G] = v;
          compensation[G] = c;
          mean[G] = state.mean[slot] as number;
          continue;
        }
        const total = (n[G] as number) + count;
        switch (op) {
          case 'sum':
          case 'avg':
            value[G] = kahanAdd(v, value[G] as number, compensation[G] as number);
            compensation[G] = kahan.compensation + c;
            break;
          case 'max':
            if ((value[G] as number) < v || Number.isNaN(value[G])) value[G] = v;
            break;
          case 'min':
            if ((value[G] as number) > v || Number.isNaN(value[G])) value[G] = v;
            break;
          case 'stddev':
          case 'stdvar': {
            const meanA = mean[G] as number;
            const meanB = state.mean[slot] as number;
            if (!Number.isFinite(meanA) || !Number.isFinite(meanB)) {
              value[G] = Number.NaN;
              mean[G] = meanA + meanB;
            } else {
              const delta = meanB - meanA;
              mean[G] = meanA + (delta * count) / total;
              value[G] = (value[G] as number) + v + (delta * delta * (n[G] as number) * count) / total;
            }
            break;
          }
          default:
            break;
        }
        n[G] = total;
      }
    });
    for (let G = 0; G < groups; G++) {
      const count = n[G] as number;
      if (histograms) {
        const h = mergeHistogramSlot(ev, node, states, merged.members[G] ?? [], i, steps, count);
        if (h !== null) {
          if (h.histogram === undefined) continue;
          const out = outputs[G] as StepSeries;
          setHistogram(out, i, h.histogram);
          out.dropName = drop[G] === 1 || h.dropName;
          continue;
        }
      }
      if (count === 0) continue;
      let result: number;
      switch (op) {
        case 'sum':
          result = (value[G] as number) + (compensation[G] as number);
          break;
        case 'avg': {
          const sum = value[G] as number;
          result =
            direct[G] === 1 && (Number.isFinite(sum) || Number.isNaN(sum))
              ? sum / count + (compensation[G] as number) / count
              : weightedMean(states, merged.members[G] ?? [], i, steps, count);
          break;
        }
        case 'count':
          result = count;
          break;
        case 'group':
          result = 1;
          break;
        case 'stdvar':
          result = (value[G] as number) / count;
          break;
        case 'stddev':
          result = Math.sqrt((value[G] as number) / count);
          break;
        default:
          result = value[G] as number;
      }
      const out = outputs[G] as StepSeries;
      out.values[i] = result;
      out.present[i] = 1;
      out.dropName = drop[G] === 1;
    }
  }
  return outputs.filter((s) => s.present.includes(1) || hasHistograms(s));
}

/** avg as the count-weighted mean of every shard's mean (Kahan-summed). */
function weightedMean(
  states: readonly FoldState[],
  members: ReadonlyArray<[number, number]>,
  step: number,
  steps: number,
  total: number,
): number {
  let sum = 0;
  let compensation = 0;
  for (const [shard, g] of members) {
    const state = states[shard] as FoldState;
    const slot = g * steps + step;
    const count = state.count[slot] as number;
    if (count === 0) continue;
    const c = state.compensation[slot] as number;
    const shardMean =
      state.incremental[slot] === 1
        ? (state.mean[slot] as number) + c
        : (state.value[slot] as number) / count + c / count;
    sum = kahanAdd(shardMean * (count / total), sum, compensation);
    compensation = kahan.compensation;
  }
  return sum + compensation;
}
