/**
 * What the evaluator passes between nodes. Every node is evaluated for all steps of its
 * evaluator at once (an instant query is one step), so an instant vector is a set of series with
 * one slot per step, not a vector per step: label work happens once per series instead of once
 * per sample.
 *
 * `dropName` carries Prometheus 3's delayed `__name__` removal: functions and operators that
 * drop the name only mark the series, and the name goes when the query's result is produced.
 */

import { labelsKey } from '../labels.js';
import { type Labels, PromqlError } from '../types.js';

/** One series of an instant vector across the evaluator's steps. */
export interface StepSeries {
  labels: Labels;
  dropName: boolean;
  /** Value per step; meaningful only where `present[i]` is 1. */
  values: Float64Array;
  present: Uint8Array;
  /** Sample timestamps per step (vector selectors only, for `timestamp()`). */
  timestamps?: Float64Array | undefined;
}

/** Raw samples of one series: a range vector, from a range selector or a subquery. */
export interface RawSeries {
  labels: Labels;
  dropName: boolean;
  t: Float64Array;
  v: Float64Array;
}

export type Value =
  | { kind: 'scalar'; values: Float64Array }
  | { kind: 'string'; value: string }
  | { kind: 'vector'; series: StepSeries[] }
  | { kind: 'matrix'; series: RawSeries[] };

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
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = newStepSeries(labels, dropName, this.steps);
      this.byKey.set(key, series);
    } else if (series.present[step] === 1) {
      throw new PromqlError('execution', DUPLICATE_LABELSET);
    }
    series.values[step] = value;
    series.present[step] = 1;
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
    const target = {
      ...existing,
      values: Float64Array.from(existing.values),
      present: Uint8Array.from(existing.present),
    };
    for (let i = 0; i < s.present.length; i++) {
      if (s.present[i] !== 1) continue;
      if (target.present[i] === 1) throw new PromqlError('execution', DUPLICATE_LABELSET);
      target.present[i] = 1;
      target.values[i] = s.values[i] as number;
    }
    byKey.set(key, target);
  }
  return merged ? [...byKey.values()] : series;
}
