/**
 * What the evaluator passes between nodes. Every node is evaluated for all steps of its
 * evaluator at once (an instant query is one step), so an instant vector is a set of series with
 * one slot per step, not a vector per step: label work happens once per series instead of once
 * per sample.
 *
 * `dropName` carries Prometheus 3's delayed `__name__` removal: functions and operators that
 * drop the name only mark the series, and the name goes when the query's result is produced.
 */

import type { FloatHistogram } from '../histogram/float-histogram.js';
import { labelsKey } from '../labels.js';
import { type Labels, PromqlError } from '../types.js';

/** One series of an instant vector across the evaluator's steps. */
export interface StepSeries {
  labels: Labels;
  dropName: boolean;
  /** Value per step; meaningful only where `present[i]` is 1. */
  values: Float64Array;
  /** 1: a float sample at the step; HISTOGRAM: a native histogram, in `histograms`; 0: none. */
  present: Uint8Array;
  /**
   * Native histograms per step, where `present[i]` is HISTOGRAM. Absent for float-only series,
   * so they cost nothing; code that only knows floats tests `present[i] === 1` and so skips
   * histograms, as most of Prometheus' float operations do.
   */
  histograms?: (FloatHistogram | undefined)[] | undefined;
  /** Sample timestamps per step (vector selectors only, for `timestamp()`). */
  timestamps?: Float64Array | undefined;
}

/** Raw samples of one series: a range vector, from a range selector or a subquery. */
export interface RawSeries {
  labels: Labels;
  dropName: boolean;
  t: Float64Array;
  v: Float64Array;
  /** Native histogram samples (times and values), apart from the floats as in Prometheus' Series. */
  ht?: Float64Array | undefined;
  hv?: FloatHistogram[] | undefined;
}

/** `present[i]` of a step holding a native histogram. */
export const HISTOGRAM = 2;

/** Sets step `step` of `series` to a histogram sample. */
export function setHistogram(series: StepSeries, step: number, h: FloatHistogram): void {
  series.histograms ??= new Array(series.present.length);
  series.histograms[step] = h;
  series.present[step] = HISTOGRAM;
}

/** The histogram at a step, or undefined when the step holds a float or nothing. */
export function histogramAt(series: StepSeries, step: number): FloatHistogram | undefined {
  return series.present[step] === HISTOGRAM ? series.histograms?.[step] : undefined;
}

export function hasHistograms(series: StepSeries): boolean {
  return series.histograms !== undefined && series.present.includes(HISTOGRAM);
}

export type Value =
  | { kind: 'scalar'; values: Float64Array }
  | { kind: 'string'; value: string }
  | { kind: 'vector'; series: StepSeries[] }
  | { kind: 'matrix'; series: RawSeries[] };

/** The series without their histogram samples (what Prometheus' `filterFloats` keeps). */
export function floatsOnly(series: StepSeries[]): StepSeries[] {
  if (!series.some(hasHistograms)) return series;
  const out: StepSeries[] = [];
  for (const s of series) {
    if (!hasHistograms(s)) {
      out.push(s);
      continue;
    }
    if (!s.present.includes(1)) continue;
    const present = s.present.map((p) => (p === 1 ? 1 : 0));
    out.push({ ...s, present, histograms: undefined });
  }
  return out;
}

/** Prometheus' message when two results share a label set at the same time. */
export const DUPLICATE_LABELSET = 'vector cannot contain metrics with the same labelset';

export function newStepSeries(labels: Labels, dropName: boolean, steps: number): StepSeries {
  return { labels, dropName, values: new Float64Array(steps), present: new Uint8Array(steps) };
}

/**
 * Collects output samples whose label sets are only known per step (binary operations,
 * count_values, set operations). Insertion order is kept, which is the order of an instant
 * query's result. Two samples with one label set at one step are an error, as in Prometheus.
 */
export class SeriesCollector {
  private readonly byKey = new Map<string, StepSeries>();

  constructor(private readonly steps: number) {}

  add(labels: Labels, dropName: boolean, step: number, value: number, key = labelsKey(labels)): void {
    const series = this.slot(labels, dropName, step, key);
    series.values[step] = value;
    series.present[step] = 1;
  }

  addHistogram(labels: Labels, dropName: boolean, step: number, h: FloatHistogram, key = labelsKey(labels)): void {
    setHistogram(this.slot(labels, dropName, step, key), step, h);
  }

  private slot(labels: Labels, dropName: boolean, step: number, key: string): StepSeries {
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = newStepSeries(labels, dropName, this.steps);
      this.byKey.set(key, series);
    } else if (series.present[step] !== 0) {
      throw new PromqlError('execution', DUPLICATE_LABELSET);
    }
    return series;
  }

  result(): StepSeries[] {
    return [...this.byKey.values()];
  }
}

/**
 * Merges series that share a label set (after relabelling or name removal); they may not both
 * have a sample at one step.
 */
export function mergeSameLabels(series: StepSeries[]): StepSeries[] {
  if (series.length < 2) return series;
  const byKey = new Map<string, StepSeries>();
  let merged = false;
  for (const s of series) {
    const key = labelsKey(s.labels);
    const existing = byKey.get(key);
    if (existing === undefined) {
      byKey.set(key, s);
      continue;
    }
    merged = true;
    const target: StepSeries = {
      ...existing,
      values: Float64Array.from(existing.values),
      present: Uint8Array.from(existing.present),
      histograms: existing.histograms?.slice(),
    };
    for (let i = 0; i < s.present.length; i++) {
      if (s.present[i] === 0) continue;
      if (target.present[i] !== 0) throw new PromqlError('execution', DUPLICATE_LABELSET);
      const h = histogramAt(s, i);
      if (h !== undefined) {
        setHistogram(target, i, h);
        continue;
      }
      target.present[i] = 1;
      target.values[i] = s.values[i] as number;
    }
    byKey.set(key, target);
  }
  return merged ? [...byKey.values()] : series;
}
