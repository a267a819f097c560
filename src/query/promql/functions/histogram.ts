/**
 * Quantiles and fractions of classic histograms: a set of cumulative `le` buckets of one series
 * group at one step, as histogram_quantile and histogram_fraction read them. The engine groups
 * the `_bucket` series and parses `le`; these functions only do the arithmetic.
 *
 * Neither function changes its input: buckets are copied into reused scratch arrays, sorted
 * there, merged where bounds repeat and made monotonic.
 */

export interface ClassicBucket {
  upperBound: number;
  count: number;
}

/**
 * Relative difference below which two neighbouring cumulative counts are taken as equal: such
 * differences come from floating-point error in sums and rates, not from real observations.
 */
const SMALL_DELTA_TOLERANCE = 1e-12;

/** Smallest positive normal float64, the floor for relative comparisons near zero. */
const MIN_NORMAL = 2.2250738585072014e-308;

let upperBounds = new Float64Array(64);
let counts = new Float64Array(64);

/** Copies, sorts by upper bound and merges equal bounds into the scratch arrays; returns the length. */
function prepareBuckets(buckets: readonly ClassicBucket[]): number {
  const n = buckets.length;
  if (upperBounds.length < n) {
    upperBounds = new Float64Array(Math.max(n, upperBounds.length * 2));
    counts = new Float64Array(upperBounds.length);
  }
  // Insertion sort: bucket lists are short and usually arrive nearly sorted.
  for (let i = 0; i < n; i++) {
    const bucket = buckets[i] as ClassicBucket;
    let j = i;
    while (j > 0 && (upperBounds[j - 1] as number) > bucket.upperBound) {
      upperBounds[j] = upperBounds[j - 1] as number;
      counts[j] = counts[j - 1] as number;
      j--;
    }
    upperBounds[j] = bucket.upperBound;
    counts[j] = bucket.count;
  }
  let length = 0;
  for (let i = 0; i < n; i++) {
    if (length > 0 && upperBounds[length - 1] === upperBounds[i]) {
      counts[length - 1] = (counts[length - 1] as number) + (counts[i] as number);
    } else {
      upperBounds[length] = upperBounds[i] as number;
      counts[length] = counts[i] as number;
      length++;
    }
  }
  return length;
}

/** Prometheus' `almost.Equal` for two non-stale values. */
function almostEqual(a: number, b: number, epsilon: number): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (a === b) return true;
  const absoluteSum = Math.abs(a) + Math.abs(b);
  const difference = Math.abs(a - b);
  if (a === 0 || b === 0 || absoluteSum < MIN_NORMAL) return difference < epsilon * MIN_NORMAL;
  return difference / Math.min(absoluteSum, Number.MAX_VALUE) < epsilon;
}

/**
 * Cumulative counts must not decrease with the upper bound, but can after scrape races, remote
 * write or float error. Tiny differences are flattened in either direction; real decreases are
 * raised to the running maximum, so the binary search for the rank stays meaningful.
 */
function makeMonotonic(length: number): void {
  let previous = counts[0] as number;
  for (let i = 1; i < length; i++) {
    const current = counts[i] as number;
    if (current === previous) continue;
    if (almostEqual(previous, current, SMALL_DELTA_TOLERANCE) || current < previous) {
      counts[i] = previous;
      continue;
    }
    previous = current;
  }
}

/**
 * The q-quantile of a classic histogram, interpolating linearly inside the bucket holding the
 * rank. NaN for q NaN, without a +Inf bucket, with fewer than two buckets or with no
 * observations; -Inf for q < 0 and +Inf for q > 1. The lowest bucket starts at 0 when its upper
 * bound is positive; a rank in the +Inf bucket answers the highest finite bound.
 */
export function bucketQuantile(q: number, buckets: readonly ClassicBucket[]): number {
  if (Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  if (buckets.length === 0) return Number.NaN;
  const length = prepareBuckets(buckets);
  if (upperBounds[length - 1] !== Number.POSITIVE_INFINITY) return Number.NaN;
  makeMonotonic(length);
  if (length < 2) return Number.NaN;
  const observations = counts[length - 1] as number;
  if (observations === 0) return Number.NaN;

  let rank = q * observations;
  // First bucket whose cumulative count reaches the rank, searching all but the +Inf bucket.
  let low = 0;
  let high = length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((counts[middle] as number) >= rank) high = middle;
    else low = middle + 1;
  }
  const b = low;
  if (b === length - 1) return upperBounds[length - 2] as number;
  if (b === 0 && (upperBounds[0] as number) <= 0) return upperBounds[0] as number;

  let bucketStart = 0;
  const bucketEnd = upperBounds[b] as number;
  let count = counts[b] as number;
  if (b > 0) {
    bucketStart = upperBounds[b - 1] as number;
    count -= counts[b - 1] as number;
    rank -= counts[b - 1] as number;
  }
  return bucketStart + (bucketEnd - bucketStart) * (rank / count);
}

/**
 * The estimated fraction of observations between `lower` and `upper` in a classic histogram,
 * interpolating linearly inside buckets (histogram_fraction). NaN without a +Inf bucket, with no
 * observations or with a NaN bound; 0 when lower >= upper. The lowest bucket starts at 0 when its
 * upper bound is positive, else at -Inf; nothing is interpolated inside an infinite bucket.
 */
export function bucketFraction(lower: number, upper: number, buckets: readonly ClassicBucket[]): number {
  if (buckets.length === 0) return Number.NaN;
  const length = prepareBuckets(buckets);
  if (upperBounds[length - 1] !== Number.POSITIVE_INFINITY) return Number.NaN;
  const total = counts[length - 1] as number;
  if (total === 0 || Number.isNaN(lower) || Number.isNaN(upper)) return Number.NaN;
  if (lower >= upper) return 0;

  let rank = 0;
  let lowerRank = 0;
  let upperRank = 0;
  let lowerSet = false;
  let upperSet = false;
  let lowerBound = (upperBounds[0] as number) <= 0 ? Number.NEGATIVE_INFINITY : 0;
  for (let i = 0; i < length; i++) {
    if (i > 0) lowerBound = upperBounds[i - 1] as number;
    const upperBound = upperBounds[i] as number;
    const bucketCount = counts[i] as number;
    if (!lowerSet && lowerBound >= lower) {
      lowerRank = rank;
      lowerSet = true;
    }
    if (!upperSet && lowerBound >= upper) {
      upperRank = rank;
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    if (!lowerSet && lowerBound < lower && upperBound > lower) {
      lowerRank = interpolateRank(rank, bucketCount, lowerBound, upperBound, lower);
      lowerSet = true;
    }
    if (!upperSet && lowerBound < upper && upperBound > upper) {
      upperRank = interpolateRank(rank, bucketCount, lowerBound, upperBound, upper);
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    rank = bucketCount;
  }
  if (!lowerSet || lowerRank > total) lowerRank = total;
  if (!upperSet || upperRank > total) upperRank = total;
  return (upperRank - lowerRank) / total;
}

/**
 * Cumulative count at `value` inside a bucket. A bucket reaching down to -Inf counts fully, just
 * as the +Inf bucket adds nothing (its interpolation term is finite/Inf = 0).
 */
function interpolateRank(
  rankBefore: number,
  bucketCount: number,
  lowerBound: number,
  upperBound: number,
  value: number,
): number {
  if (lowerBound === Number.NEGATIVE_INFINITY) return bucketCount;
  return rankBefore + ((bucketCount - rankBefore) * (value - lowerBound)) / (upperBound - lowerBound);
}
