import type { RangeWindow } from '../../../../src/query/promql/functions/registry.js';

/**
 * Test helper: one series laid out like a PromQL test `load` block (sample k at k × interval, a
 * null leaves a gap) and windows over it like `eval instant at T fn(series[R])`.
 */
export class TestSeries {
  readonly t: Float64Array;
  readonly v: Float64Array;

  constructor(intervalMs: number, values: readonly (number | null)[]) {
    const times: number[] = [];
    const kept: number[] = [];
    values.forEach((value, index) => {
      if (value === null) return;
      times.push(index * intervalMs);
      kept.push(value);
    });
    this.t = Float64Array.from(times);
    this.v = Float64Array.from(kept);
  }

  /** The window (evalMs - rangeMs, evalMs], optionally shifted back by `offsetMs`. */
  window(evalMs: number, rangeMs: number, offsetMs = 0): RangeWindow {
    const rangeEndMs = evalMs - offsetMs;
    const rangeStartMs = rangeEndMs - rangeMs;
    let lo = 0;
    while (lo < this.t.length && (this.t[lo] as number) <= rangeStartMs) lo++;
    let hi = lo;
    while (hi < this.t.length && (this.t[hi] as number) <= rangeEndMs) hi++;
    return { t: this.t, v: this.v, lo, hi, rangeStartMs, rangeEndMs, isCounter: false, evalTimeMs: evalMs };
  }
}

/** `start+stepxN` from a load block: N+1 values. */
export function ramp(start: number, step: number, times: number): number[] {
  const values: number[] = [];
  for (let i = 0; i <= times; i++) values.push(start + step * i);
  return values;
}

export const SECOND_MS = 1000;
export const MINUTE_MS = 60_000;

/** True when a and b agree to Prometheus' test tolerance (relative 1e-6 or both NaN/equal). */
export function close(a: number | undefined, b: number): boolean {
  if (a === undefined) return false;
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  return Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));
}
