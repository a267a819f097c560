/**
 * The histogram functions over native histograms (Prometheus' `funcHistogramCount` and
 * friends, and the native half of `histogram_quantile`/`histogram_fraction`). Float samples are
 * not histograms: these functions skip them. A native histogram whose labels equal a classic
 * histogram's (its buckets' labels without `le`) at the same step is ambiguous: both are
 * dropped for that step, with a warning.
 */

import type { PositionRange } from '../ast.js';
import type { FloatHistogram } from '../histogram/float-histogram.js';
import { histogramFraction, histogramQuantile, histogramVariance } from '../histogram/stats.js';
import { getLabel, labelsKey, METRIC_NAME } from '../labels.js';
import type { Labels } from '../types.js';
import type { EvalHost } from './eval-host.js';
import { hasHistograms, histogramAt, newStepSeries, type StepSeries } from './values.js';

const SIMPLE: Record<string, (h: FloatHistogram) => number> = {
  histogram_count: (h) => h.count,
  histogram_sum: (h) => h.sum,
  histogram_avg: (h) => h.sum / h.count,
  histogram_stdvar: histogramVariance,
  histogram_stddev: (h) => Math.sqrt(histogramVariance(h)),
};

/** histogram_count/sum/avg/stddev/stdvar: one float per histogram sample, the name dropped. */
export function simpleHistogramFunction(ev: EvalHost, name: string, input: StepSeries[]): StepSeries[] {
  const f = SIMPLE[name] as (h: FloatHistogram) => number;
  return perNativeSample(ev, input, undefined, (h) => f(h));
}

/** Steps at which a native histogram and classic buckets share labels, as `key \0 step`. */
export function classicNativeConflicts(
  ev: EvalHost,
  input: StepSeries[],
  classicKeys: ReadonlyMap<string, readonly StepSeries[]>,
  pos: PositionRange,
): Set<string> {
  const blocked = new Set<string>();
  for (const s of input) {
    if (!hasHistograms(s)) continue;
    const key = labelsKey(s.labels);
    const buckets = classicKeys.get(key);
    if (buckets === undefined) continue;
    for (let i = 0; i < ev.steps; i++) {
      if (histogramAt(s, i) === undefined || !buckets.some((b) => b.present[i] === 1)) continue;
      ev.ctx.annotations.mixedClassicNativeHistograms(getLabel(s.labels, METRIC_NAME), pos);
      blocked.add(`${key}\u0000${i}`);
    }
  }
  return blocked;
}

/** histogram_quantile over the native histograms of `input`. */
export function nativeQuantiles(
  ev: EvalHost,
  q: Float64Array,
  input: StepSeries[],
  blocked: ReadonlySet<string>,
  pos: PositionRange,
): StepSeries[] {
  return perNativeSample(ev, input, blocked, (h, i, labels) => {
    const e = histogramQuantile(q[i] as number, h);
    const name = getLabel(labels, METRIC_NAME);
    if (e.nanResult) ev.ctx.annotations.histogramQuantileNaN('result', name, pos);
    if (e.nanSkew) ev.ctx.annotations.histogramQuantileNaN('skew', name, pos);
    return e.value;
  });
}

/** histogram_fraction over the native histograms of `input`. */
export function nativeFractions(
  ev: EvalHost,
  lower: Float64Array,
  upper: Float64Array,
  input: StepSeries[],
  blocked: ReadonlySet<string>,
  pos: PositionRange,
): StepSeries[] {
  return perNativeSample(ev, input, blocked, (h, i, labels) => {
    const e = histogramFraction(lower[i] as number, upper[i] as number, h);
    if (e.nanExcluded) ev.ctx.annotations.histogramFractionNaNs(getLabel(labels, METRIC_NAME), pos);
    return e.value;
  });
}

function perNativeSample(
  ev: EvalHost,
  input: StepSeries[],
  blocked: ReadonlySet<string> | undefined,
  compute: (h: FloatHistogram, step: number, labels: Labels) => number,
): StepSeries[] {
  const out: StepSeries[] = [];
  for (const s of input) {
    if (!hasHistograms(s)) continue;
    const key = blocked !== undefined && blocked.size > 0 ? labelsKey(s.labels) : '';
    const series = newStepSeries(s.labels, true, ev.steps);
    let any = false;
    for (let i = 0; i < ev.steps; i++) {
      const h = histogramAt(s, i);
      if (h === undefined || blocked?.has(`${key}\u0000${i}`)) continue;
      series.values[i] = compute(h, i, s.labels);
      series.present[i] = 1;
      any = true;
    }
    if (any) out.push(series);
  }
  return out;
}
