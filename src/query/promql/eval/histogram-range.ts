/**
 * Range-vector functions over windows that hold native histograms (Prometheus'
 * `promql/functions.go`). A window's floats and histograms are kept apart, as in Prometheus'
 * Series; the float-only path (the function library) stays untouched and is used whenever a
 * window has no histogram.
 *
 * Mixing rules: rate/increase/delta/irate/idelta and sum/avg_over_time refuse a window with both
 * kinds (warning, no sample); counting and last/first functions take both; the float-only
 * functions drop the histograms and say so (info), when there were floats to compute with.
 */

import type { PositionRange } from '../ast.js';
import type { RangeWindow } from '../functions/registry.js';
import { addHistograms, HistogramSchemaMixError, subHistograms, toSchema } from '../histogram/arithmetic.js';
import {
  compactHistogram,
  divHistogram,
  type FloatHistogram,
  histogramsEqual,
  makeHistogram,
  mulHistogram,
  usesCustomBuckets,
} from '../histogram/float-histogram.js';
import { isCounterReset } from '../histogram/reset.js';
import { meanOfHistograms, sumHistograms } from '../histogram/sum.js';
import type { Annotations, HistogramOperation } from './annotations.js';
import type { HistogramWindow } from './windows.js';

export interface HistogramRangeCall {
  name: string;
  metricName: string;
  /** Position of the range argument, where Prometheus points its annotations. */
  pos: PositionRange;
  annotations: Annotations;
}

export type RangeOutput = number | FloatHistogram | undefined;

/** Functions that read histogram samples; every other range function ignores them. */
const HISTOGRAM_AWARE = new Set([
  'rate',
  'increase',
  'delta',
  'irate',
  'idelta',
  'resets',
  'changes',
  'sum_over_time',
  'avg_over_time',
  'count_over_time',
  'present_over_time',
  'last_over_time',
  'first_over_time',
  'ts_of_last_over_time',
  'ts_of_first_over_time',
]);

/**
 * One window of a series with histograms. `floatOnly` computes the function over the floats
 * (the library's implementation); it is called for windows without histograms and for
 * functions that ignore them.
 */
export function rangeWithHistograms(
  call: HistogramRangeCall,
  w: RangeWindow,
  hw: HistogramWindow,
  floatOnly: () => number | undefined,
): RangeOutput {
  const floats = w.hi - w.lo;
  const histograms = hw.hi - hw.lo;
  if (histograms === 0) return floatOnly();
  if (!HISTOGRAM_AWARE.has(call.name)) {
    if (floats === 0) return undefined;
    call.annotations.histogramIgnoredInMixedRange(call.metricName, call.pos);
    return floatOnly();
  }
  const hs = hw.h.slice(hw.lo, hw.hi);
  const ht = hw.t.subarray(hw.lo, hw.hi);
  switch (call.name) {
    case 'count_over_time':
      return floats + histograms;
    case 'present_over_time':
      return 1;
    case 'last_over_time':
      return floats > 0 && (w.t[w.hi - 1] as number) > (ht[histograms - 1] as number)
        ? (w.v[w.hi - 1] as number)
        : (hs[histograms - 1] as FloatHistogram);
    case 'first_over_time':
      return floats > 0 && (w.t[w.lo] as number) < (ht[0] as number)
        ? (w.v[w.lo] as number)
        : (hs[0] as FloatHistogram);
    case 'ts_of_last_over_time':
      return Math.max(floats > 0 ? (w.t[w.hi - 1] as number) : 0, ht[histograms - 1] as number) / 1000;
    case 'ts_of_first_over_time':
      return Math.min(floats > 0 ? (w.t[w.lo] as number) : Number.POSITIVE_INFINITY, ht[0] as number) / 1000;
    case 'resets':
    case 'changes':
      return countTransitions(call.name, w, ht, hs);
    case 'irate':
    case 'idelta':
      return instantChange(call, w, ht, hs, call.name === 'irate');
  }
  if (floats > 0) {
    call.annotations.mixedFloatsHistograms(call.metricName, call.pos);
    return undefined;
  }
  switch (call.name) {
    case 'sum_over_time':
    case 'avg_over_time':
      return sumOrMean(call, hs, call.name === 'avg_over_time');
    default:
      return extrapolatedHistogramRate(call, w, ht, hs);
  }
}

/** The sum or mean of a window's histograms, with Prometheus' annotations for conflicting inputs. */
function sumOrMean(call: HistogramRangeCall, hs: FloatHistogram[], mean: boolean): FloatHistogram | undefined {
  try {
    const r = mean ? meanOfHistograms(hs) : sumHistograms(hs);
    if (hs.some((h) => h.hint === 'reset') && hs.some((h) => h.hint === 'not_reset'))
      call.annotations.counterResetCollision('aggregation', call.pos);
    if (r.customBoundsReconciled) call.annotations.customBucketsReconciled('aggregation', call.pos);
    return r.histogram;
  } catch (e) {
    if (!(e instanceof HistogramSchemaMixError)) throw e;
    call.annotations.mixedExponentialCustomHistograms(call.metricName, call.pos);
    return undefined;
  }
}

/** a ± b; undefined (and a warning) when exponential and custom buckets meet. */
function combine(
  call: HistogramRangeCall,
  a: FloatHistogram,
  b: FloatHistogram,
  op: 'add' | 'sub',
): { histogram: FloatHistogram; reconciled: boolean } | undefined {
  try {
    const r = op === 'add' ? addHistograms(a, b) : subHistograms(a, b);
    return { histogram: r.histogram, reconciled: r.customBoundsReconciled };
  } catch (e) {
    if (!(e instanceof HistogramSchemaMixError)) throw e;
    call.annotations.mixedExponentialCustomHistograms(call.metricName, call.pos);
    return undefined;
  }
}

function noteReconciled(call: HistogramRangeCall, reconciled: boolean, operation: HistogramOperation): void {
  if (reconciled) call.annotations.customBucketsReconciled(operation, call.pos);
}

/** resets()/changes() over floats and histograms in time order; a change of kind counts as one. */
function countTransitions(name: 'resets' | 'changes', w: RangeWindow, ht: Float64Array, hs: FloatHistogram[]): number {
  let i = w.lo;
  let j = 0;
  let prev: number | FloatHistogram | undefined;
  let count = 0;
  while (i < w.hi || j < hs.length) {
    let cur: number | FloatHistogram;
    if (j >= hs.length || (i < w.hi && (w.t[i] as number) < (ht[j] as number))) cur = w.v[i++] as number;
    else cur = hs[j++] as FloatHistogram;
    if (prev !== undefined) {
      if (typeof prev === 'number' && typeof cur === 'number') {
        if (name === 'resets' ? cur < prev : cur !== prev && !(Number.isNaN(cur) && Number.isNaN(prev))) count++;
      } else if (typeof prev === 'number' || typeof cur === 'number') count++;
      else if (name === 'resets' ? isCounterReset(cur, prev) : !histogramsEqual(cur, prev)) count++;
    }
    prev = cur;
  }
  return count;
}

/** irate()/idelta(): the last two samples of the window, floats and histograms together. */
function instantChange(
  call: HistogramRangeCall,
  w: RangeWindow,
  ht: Float64Array,
  hs: FloatHistogram[],
  isRate: boolean,
): RangeOutput {
  type Point = { t: number; v: number; h?: FloatHistogram };
  if (w.hi - w.lo + hs.length < 2) return undefined;
  const ss: Point[] = [];
  for (let i = Math.max(w.lo, w.hi - 2); i < w.hi; i++) ss.push({ t: w.t[i] as number, v: w.v[i] as number });
  for (let k = Math.max(0, hs.length - 2); k < hs.length; k++) {
    const p: Point = { t: ht[k] as number, v: 0, h: hs[k] as FloatHistogram };
    const [a, b] = ss;
    if (a === undefined) ss.push(p);
    else if (b === undefined) {
      if (p.t < a.t) ss.unshift(p);
      else ss.push(p);
    } else if (p.t < a.t) {
      // Older than both: not one of the last two.
    } else if (p.t > b.t) {
      ss[0] = b;
      ss[1] = p;
    } else ss[0] = p;
  }
  const [first, last] = ss as [Point, Point];
  const interval = last.t - first.t;
  if (interval === 0) return undefined;
  let result: number | FloatHistogram;
  if (first.h === undefined && last.h === undefined) {
    result = !isRate || !(last.v < first.v) ? last.v - first.v : last.v;
  } else if (first.h !== undefined && last.h !== undefined) {
    if (isRate && (first.h.hint === 'gauge' || last.h.hint === 'gauge'))
      call.annotations.histogramNotCounter(call.metricName, call.pos);
    if (!isRate && (first.h.hint !== 'gauge' || last.h.hint !== 'gauge'))
      call.annotations.histogramNotGauge(call.metricName, call.pos);
    let h = last.h;
    if (!isRate || !isCounterReset(last.h, first.h)) {
      const r = combine(call, last.h, first.h, 'sub');
      if (r === undefined) return undefined;
      noteReconciled(call, r.reconciled, 'subtraction');
      h = r.histogram;
    }
    result = compactHistogram({ ...h, hint: 'gauge' });
  } else {
    call.annotations.mixedFloatsHistograms(call.metricName, call.pos);
    return undefined;
  }
  if (!isRate) return result;
  return typeof result === 'number' ? result / (interval / 1000) : divHistogram(result, interval / 1000);
}

/** rate/increase/delta of histogram samples, extrapolated towards the window's edges as for floats. */
function extrapolatedHistogramRate(
  call: HistogramRangeCall,
  w: RangeWindow,
  ht: Float64Array,
  hs: FloatHistogram[],
): RangeOutput {
  const n = hs.length;
  if (n < 2) return undefined;
  const isCounter = call.name !== 'delta';
  const result = histogramIncrease(call, hs, isCounter);
  if (result === undefined) return undefined;
  const firstT = ht[0] as number;
  const lastT = ht[n - 1] as number;
  let durationToStart = (firstT - w.rangeStartMs) / 1000;
  let durationToEnd = (w.rangeEndMs - lastT) / 1000;
  const sampledInterval = (lastT - firstT) / 1000;
  const averageInterval = sampledInterval / (n - 1);
  const threshold = averageInterval * 1.1;
  if (durationToStart >= threshold) durationToStart = averageInterval / 2;
  const first = hs[0] as FloatHistogram;
  if (isCounter && result.count > 0 && first.count >= 0) {
    // A counter is not extrapolated below zero.
    durationToStart = Math.min(durationToStart, sampledInterval * (first.count / result.count));
  }
  if (durationToEnd >= threshold) durationToEnd = averageInterval / 2;
  let factor = sampledInterval === 0 ? 1 : (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
  if (call.name === 'rate') factor /= (w.rangeEndMs - w.rangeStartMs) / 1000;
  return mulHistogram(result, factor);
}

/** last − first, with every counter reset's pre-reset histogram added back (Prometheus' histogramRate). */
function histogramIncrease(
  call: HistogramRangeCall,
  hs: FloatHistogram[],
  isCounter: boolean,
): FloatHistogram | undefined {
  const last = hs[hs.length - 1] as FloatHistogram;
  let prev = hs[0] as FloatHistogram;
  if (isCounter && (prev.hint === 'gauge' || last.hint === 'gauge'))
    call.annotations.histogramNotCounter(call.metricName, call.pos);
  if (isCounter) {
    const second = hs[1] as FloatHistogram;
    // A reset right after the first sample: the first sample's layout no longer matters.
    if (isCounterReset(second, prev))
      prev = makeHistogram({ schema: second.schema, customValues: second.customValues });
  }
  if (usesCustomBuckets(last) !== usesCustomBuckets(prev)) {
    call.annotations.mixedExponentialCustomHistograms(call.metricName, call.pos);
    return undefined;
  }
  let minSchema = Math.min(last.schema, prev.schema);
  for (let k = 1; k < hs.length - 1; k++) {
    if (!isCounter) continue;
    const h = hs[k] as FloatHistogram;
    if (h.hint === 'gauge') call.annotations.histogramNotCounter(call.metricName, call.pos);
    minSchema = Math.min(minSchema, h.schema);
    if (usesCustomBuckets(h) !== usesCustomBuckets(prev)) {
      call.annotations.mixedExponentialCustomHistograms(call.metricName, call.pos);
      return undefined;
    }
  }
  const diff = combine(call, toSchema(last, minSchema), prev, 'sub');
  if (diff === undefined) return undefined;
  noteReconciled(call, diff.reconciled, 'subtraction');
  let h = diff.histogram;
  if (isCounter) {
    for (let k = 1; k < hs.length; k++) {
      const cur = hs[k] as FloatHistogram;
      if (isCounterReset(cur, prev)) {
        const sum = combine(call, h, prev, 'add');
        if (sum === undefined) return undefined;
        noteReconciled(call, sum.reconciled, 'addition');
        h = sum.histogram;
      }
      prev = cur;
    }
  } else if ((hs[0] as FloatHistogram).hint !== 'gauge' || last.hint !== 'gauge') {
    call.annotations.histogramNotGauge(call.metricName, call.pos);
  }
  return compactHistogram({ ...h, hint: 'gauge' });
}
