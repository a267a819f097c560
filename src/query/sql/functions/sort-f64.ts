/**
 * Sorting a batch of floats for the t-digest: the same order as Float64Array's sort, in about a
 * quarter of its time on the values metrics hold. Comparison sorting random values spends most of
 * its time on mispredicted branches (some 65 ns a value, the larger part of an
 * `approx_percentile_cont` over ten million rows); a bucket pass over the batch's [min, max]
 * places nearly every value with predictable work, and each bucket is finished by insertion (or,
 * where skew has crowded one, by the native sort). Batches with NaN, an infinity or a negative
 * zero take the native sort, whose order for them (-0 before 0, NaN last) the buckets would not
 * keep. A heavy tail crowds a few buckets, which the native sort then finishes: on log-normal
 * values with σ = 3 that is some 15% slower than the native sort alone; σ = 1 is 45% quicker.
 */

/** Buckets at most this full are finished by insertion; fuller ones by the native sort. */
const INSERTION_MAX = 24;

let keys = new Uint32Array(0);
let starts = new Uint32Array(0);
let scratch = new Float64Array(0);

/** Sorts `values` in place, ascending, exactly as `values.sort()` does. */
export function sortFloat64(values: Float64Array): void {
  const n = values.length;
  if (n < 64) {
    values.sort();
    return;
  }
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    // Only a new extreme or a NaN (which fails every comparison) is outside [min, max].
    if (!(v >= min && v <= max)) {
      if (Number.isNaN(v)) {
        values.sort();
        return;
      }
      if (v < min) min = v;
      if (v > max) max = v;
    }
    if (v === 0 && 1 / v < 0) {
      values.sort();
      return;
    }
  }
  const span = max - min;
  if (span === 0) return;
  if (!Number.isFinite(span)) {
    values.sort();
    return;
  }
  if (keys.length < n) {
    keys = new Uint32Array(n);
    starts = new Uint32Array(n + 1);
    scratch = new Float64Array(n);
  }
  // Bucket b holds [min + b·span/n, min + (b+1)·span/n): monotone in the value, so buckets in
  // order are values in order.
  const scale = n / span;
  const last = n - 1;
  starts.fill(0, 0, n + 1);
  for (let i = 0; i < n; i++) {
    const b = Math.min(last, Math.floor(((values[i] as number) - min) * scale));
    keys[i] = b;
    (starts[b + 1] as number)++;
  }
  for (let b = 1; b <= n; b++) starts[b] = (starts[b] as number) + (starts[b - 1] as number);
  // Scatter: starts[b] moves past each value placed in bucket b.
  for (let i = 0; i < n; i++) {
    const b = keys[i] as number;
    const at = starts[b] as number;
    scratch[at] = values[i] as number;
    starts[b] = at + 1;
  }
  // starts[b] is now where bucket b ends (and b + 1 begins).
  let from = 0;
  for (let b = 0; b < n; b++) {
    const to = starts[b] as number;
    if (to - from > INSERTION_MAX) scratch.subarray(from, to).sort();
    else {
      for (let i = from + 1; i < to; i++) {
        const v = scratch[i] as number;
        let j = i - 1;
        while (j >= from && (scratch[j] as number) > v) {
          scratch[j + 1] = scratch[j] as number;
          j--;
        }
        scratch[j + 1] = v;
      }
    }
    from = to;
  }
  values.set(scratch.subarray(0, n));
}
