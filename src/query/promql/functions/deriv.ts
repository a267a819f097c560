/**
 * deriv and predict_linear: simple least-squares linear regression over the window's samples.
 *
 * x is time in seconds relative to an anchor (the first sample for deriv, the evaluation time for
 * predict_linear) so that large Unix timestamps do not swamp the sums, and every sum is
 * compensated, as in Prometheus.
 */

import { kahan, kahanAdd } from './kahan.js';
import type { RangeWindow } from './range-window.js';

/** Results of the last `fitLine`, kept in a module object so the hot path does not allocate. */
const fit = { slope: 0, intercept: 0 };

/** Fits y = slope·x + intercept with x = (t - anchorMs) / 1000 over [lo, hi) into `fit`. */
function fitLine(w: RangeWindow, anchorMs: number): void {
  const { t, v, lo, hi } = w;
  const firstValue = v[lo] as number;
  let constant = true;
  let n = 0;
  let sumX = 0;
  let compensationX = 0;
  let sumY = 0;
  let compensationY = 0;
  let sumXY = 0;
  let compensationXY = 0;
  let sumX2 = 0;
  let compensationX2 = 0;
  for (let i = lo; i < hi; i++) {
    const y = v[i] as number;
    if (constant && y !== firstValue) constant = false;
    n++;
    const x = ((t[i] as number) - anchorMs) / 1000;
    sumX = kahanAdd(x, sumX, compensationX);
    compensationX = kahan.compensation;
    sumY = kahanAdd(y, sumY, compensationY);
    compensationY = kahan.compensation;
    sumXY = kahanAdd(x * y, sumXY, compensationXY);
    compensationXY = kahan.compensation;
    sumX2 = kahanAdd(x * x, sumX2, compensationX2);
    compensationX2 = kahan.compensation;
  }
  if (constant) {
    // A flat line has slope exactly 0, which the general formula can miss through rounding; a
    // flat infinite line has no meaningful slope at all.
    const infinite = firstValue === Number.POSITIVE_INFINITY || firstValue === Number.NEGATIVE_INFINITY;
    fit.slope = infinite ? Number.NaN : 0;
    fit.intercept = infinite ? Number.NaN : firstValue;
    return;
  }
  sumX += compensationX;
  sumY += compensationY;
  sumXY += compensationXY;
  sumX2 += compensationX2;
  const covarianceXY = sumXY - (sumX * sumY) / n;
  const varianceX = sumX2 - (sumX * sumX) / n;
  fit.slope = covarianceXY / varianceX;
  fit.intercept = sumY / n - (fit.slope * sumX) / n;
}

/** Per-second slope of the window's least-squares line. */
export function deriv(w: RangeWindow): number | undefined {
  if (w.hi - w.lo < 2) return undefined;
  fitLine(w, w.t[w.lo] as number);
  return fit.slope;
}

/** The window's least-squares line extended scalarArgs[0] seconds past the evaluation time. */
export function predictLinear(w: RangeWindow, scalarArgs: number[]): number | undefined {
  if (w.hi - w.lo < 2) return undefined;
  fitLine(w, w.evalTimeMs ?? w.rangeEndMs);
  return fit.slope * (scalarArgs[0] as number) + fit.intercept;
}
