/**
 * double_exponential_smoothing (Prometheus 3's name, experimental there) and holt_winters (its
 * 2.x name): Holt's linear trend method over the window, returning the last smoothed value.
 */

import { PromqlError } from '../types.js';
import type { RangeWindow } from './range-window.js';

/** Go's `%f`: six decimals, and Inf/NaN spelled as Go spells them. */
function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  // toFixed switches to exponent notation from 1e21 on; such floats are whole numbers anyway.
  if (Math.abs(value) >= 1e21) return `${BigInt(value)}.000000`;
  return value.toFixed(6);
}

/**
 * scalarArgs are the smoothing factor and the trend factor, each required to lie strictly between
 * 0 and 1 (a NaN passes, as in Prometheus, and poisons the result instead).
 */
export function doubleExponentialSmoothing(w: RangeWindow, scalarArgs: number[]): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  const smoothingFactor = scalarArgs[0] as number;
  const trendFactor = scalarArgs[1] as number;
  if (smoothingFactor <= 0 || smoothingFactor >= 1) {
    throw new PromqlError(
      'execution',
      `invalid smoothing factor. Expected: 0 < sf < 1, got: ${formatGoFloat(smoothingFactor)}`,
    );
  }
  if (trendFactor <= 0 || trendFactor >= 1) {
    throw new PromqlError(
      'execution',
      `invalid trend factor. Expected: 0 < tf < 1, got: ${formatGoFloat(trendFactor)}`,
    );
  }
  // A trend needs two points.
  if (hi - lo < 2) return undefined;

  let previousSmoothed = 0;
  let smoothed = v[lo] as number;
  let trend = (v[lo + 1] as number) - (v[lo] as number);
  for (let i = lo + 1; i < hi; i++) {
    // The first step keeps the initial trend; later ones blend the latest level change into it.
    if (i > lo + 1) {
      trend = trendFactor * (smoothed - previousSmoothed) + (1 - trendFactor) * trend;
    }
    const next = smoothingFactor * (v[i] as number) + (1 - smoothingFactor) * (smoothed + trend);
    previousSmoothed = smoothed;
    smoothed = next;
  }
  return smoothed;
}
