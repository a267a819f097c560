/**
 * Kahan-Babuška (Neumaier) compensated summation, the form Prometheus uses for sums and means so
 * that long windows of large and small values add up to the same result as Prometheus gives.
 *
 * To stay allocation-free in hot loops the step returns only the new sum and leaves the new
 * compensation in `kahan.compensation`; callers copy it out before the next call.
 */

/** The compensation term produced by the last `kahanAdd`. */
export const kahan = { compensation: 0 };

/**
 * Adds `increment` to `sum` whose running compensation is `compensation`; returns the new sum and
 * stores the new compensation in `kahan.compensation`. An infinite sum resets the compensation,
 * since it would otherwise turn into NaN.
 */
export function kahanAdd(increment: number, sum: number, compensation: number): number {
  const total = sum + increment;
  if (total === Number.POSITIVE_INFINITY || total === Number.NEGATIVE_INFINITY) {
    kahan.compensation = 0;
  } else if (Math.abs(sum) >= Math.abs(increment)) {
    kahan.compensation = compensation + (sum - total + increment);
  } else {
    kahan.compensation = compensation + (increment - total + sum);
  }
  return total;
}
