/**
 * The t-digest behind `approx_percentile_cont`, `approx_median` and the weighted percentile, as
 * DataFusion builds it (Folly's merging digest, via the MnO2 Rust port): centroids sorted by mean,
 * their sizes bounded by the quadratic scale `k → q` for `maxSize` centroids. Values arrive in
 * sorted batches (`digestSorted`), digests merge by interleaving their centroids (`mergeDigests`),
 * and the estimate interpolates within the centroid holding the rank using its neighbours.
 *
 * The arithmetic follows DataFusion's step by step (the order of the sums, which limit applies to
 * which centroid) so that the same batches give the same floats: below the compression threshold
 * (about maxSize / 2 values) every value is its own centroid and the answer is DataFusion's exact
 * one. A digest is plain data (numbers and number arrays), so it crosses from shard to router by
 * structured clone.
 */

/** DataFusion's default number of centroids. */
export const TDIGEST_MAX_SIZE = 100;

export interface TDigest {
  maxSize: number;
  /** Centroid means, ascending, and their weights. */
  means: number[];
  weights: number[];
  /** Total weight: the values counted (for weighted input, their weights' sum). */
  count: number;
  min: number;
  max: number;
}

export function newDigest(maxSize: number): TDigest {
  return { maxSize, means: [], weights: [], count: 0, min: Number.NaN, max: Number.NaN };
}

/** The quantile where centroid k's limit lies on the scale for d centroids. */
function kToQ(k: number, d: number): number {
  const kd = k / d;
  if (kd >= 0.5) {
    const base = 1 - kd;
    return 1 - 2 * base * base;
  }
  return 2 * kd * kd;
}

/**
 * Builds the centroids of an ascending run of (mean, weight) pairs holding `count` in all: each
 * pair joins the current centroid while the weight so far stays within the current limit.
 * `firstStep` is the limit index after the first centroid: DataFusion's batch merge advances it
 * once before the loop, its digest merge does not.
 */
function compress(
  into: TDigest,
  means: ArrayLike<number>,
  weights: ArrayLike<number> | null,
  n: number,
  firstStep: number,
): void {
  const out = into;
  const d = into.maxSize;
  let kLimit = 1;
  let limit = kToQ(kLimit, d) * out.count;
  kLimit += firstStep;
  let currMean = means[0] as number;
  let currWeight = weights === null ? 1 : (weights[0] as number);
  let soFar = currWeight;
  let sums = 0;
  let ws = 0;
  const outMeans: number[] = [];
  const outWeights: number[] = [];
  for (let i = 1; i < n; i++) {
    const mean = means[i] as number;
    const weight = weights === null ? 1 : (weights[i] as number);
    soFar += weight;
    if (soFar <= limit) {
      sums += mean * weight;
      ws += weight;
      continue;
    }
    const total = currWeight + ws;
    currMean = (sums + currWeight * currMean) / total;
    outMeans.push(currMean);
    outWeights.push(total);
    sums = 0;
    ws = 0;
    limit = kToQ(kLimit, d) * out.count;
    kLimit++;
    currMean = mean;
    currWeight = weight;
  }
  const total = currWeight + ws;
  outMeans.push((sums + currWeight * currMean) / total);
  outWeights.push(total);
  sortCentroids(outMeans, outWeights);
  out.means = outMeans;
  out.weights = outWeights;
}

/** Sorts centroids by mean (stably) when merging left them out of order: rare, but possible. */
function sortCentroids(means: number[], weights: number[]): void {
  let sorted = true;
  for (let i = 1; i < means.length && sorted; i++)
    if (before(means[i] as number, means[i - 1] as number)) sorted = false;
  if (sorted) return;
  const order = means.map((_, i) => i).sort((a, b) => compareMeans(means[a] as number, means[b] as number) || a - b);
  const m = order.map((i) => means[i] as number);
  const w = order.map((i) => weights[i] as number);
  for (let i = 0; i < m.length; i++) {
    means[i] = m[i] as number;
    weights[i] = w[i] as number;
  }
}

/** Rust's `f64::total_cmp` for the values a digest holds: NaN after everything. */
function compareMeans(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a < b ? -1 : a > b ? 1 : Object.is(a, -0) && b === 0 ? -1 : Object.is(b, -0) && a === 0 ? 1 : 0;
}

function before(a: number, b: number): boolean {
  return compareMeans(a, b) < 0;
}

/**
 * Folds `sorted[0, n)` (ascending, NaN last, as Float64Array's sort leaves them) into `digest`:
 * DataFusion's `merge_sorted_f64`, one batch at a time.
 */
export function digestSorted(digest: TDigest, sorted: Float64Array, n: number): void {
  if (n === 0) return;
  const first = sorted[0] as number;
  const last = sorted[n - 1] as number;
  const hadValues = digest.count > 0;
  const count = digest.count + n;
  const min = hadValues ? nanMin(digest.min, first) : first;
  const max = hadValues ? nanMax(digest.max, last) : last;
  const m = digest.means.length;
  let means: ArrayLike<number> = sorted;
  let weights: ArrayLike<number> | null = null;
  if (m > 0) {
    // Interleave the centroids with the values, a centroid first only when strictly smaller.
    const mm = new Float64Array(m + n);
    const ww = new Float64Array(m + n);
    let i = 0;
    let j = 0;
    for (let o = 0; o < m + n; o++) {
      if (i < m && (j >= n || (digest.means[i] as number) < (sorted[j] as number))) {
        mm[o] = digest.means[i] as number;
        ww[o] = digest.weights[i] as number;
        i++;
      } else {
        mm[o] = sorted[j] as number;
        ww[o] = 1;
        j++;
      }
    }
    means = mm;
    weights = ww;
  }
  digest.count = count;
  digest.min = min;
  digest.max = max;
  compress(digest, means, weights, m + n, 1);
}

/** Rust's `f64::min`/`max`: a NaN operand gives the other. */
function nanMin(a: number, b: number): number {
  return Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.min(a, b);
}
function nanMax(a: number, b: number): number {
  return Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b);
}

/**
 * The digests merged into one (DataFusion's `merge_digests`): their centroids interleaved by mean,
 * ties to the earlier digest, then compressed over the summed count.
 */
export function mergeDigests(digests: readonly TDigest[], maxSize: number): TDigest {
  const parts = digests.filter((d) => d.count > 0 && d.means.length > 0);
  const result = newDigest(maxSize);
  if (parts.length === 0) return result;
  let count = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const d of parts) {
    count += d.count;
    min = nanMin(min, d.min);
    max = nanMax(max, d.max);
  }
  let means = parts[0]?.means as number[];
  let weights = parts[0]?.weights as number[];
  for (let p = 1; p < parts.length; p++) {
    const merged = interleave(means, weights, (parts[p] as TDigest).means, (parts[p] as TDigest).weights);
    means = merged.means;
    weights = merged.weights;
  }
  result.count = count;
  result.min = min;
  result.max = max;
  compress(result, means, weights, means.length, 0);
  return result;
}

function interleave(am: number[], aw: number[], bm: number[], bw: number[]): { means: number[]; weights: number[] } {
  const means: number[] = [];
  const weights: number[] = [];
  let i = 0;
  let j = 0;
  while (i < am.length || j < bm.length) {
    if (j >= bm.length || (i < am.length && !before(bm[j] as number, am[i] as number))) {
      means.push(am[i] as number);
      weights.push(aw[i] as number);
      i++;
    } else {
      means.push(bm[j] as number);
      weights.push(bw[j] as number);
      j++;
    }
  }
  return { means, weights };
}

/** DataFusion's `estimate_quantile`: null for an empty digest. */
export function estimateQuantile(digest: TDigest, q: number): number | null {
  const { means, weights } = digest;
  const n = means.length;
  if (n === 0) return null;
  const rank = q * digest.count;
  let pos: number;
  let t: number;
  if (q > 0.5) {
    if (q >= 1) return digest.max;
    pos = 0;
    t = digest.count;
    for (let k = n - 1; k >= 0; k--) {
      t -= weights[k] as number;
      if (rank >= t) {
        pos = k;
        break;
      }
    }
  } else {
    if (q <= 0) return digest.min;
    pos = n - 1;
    t = 0;
    for (let k = 0; k < n; k++) {
      if (rank < t + (weights[k] as number)) {
        pos = k;
        break;
      }
      t += weights[k] as number;
    }
  }
  let delta = 0;
  let lo = digest.min;
  let hi = digest.max;
  if (n > 1) {
    if (pos === 0) {
      delta = (means[1] as number) - (means[0] as number);
      hi = means[1] as number;
    } else if (pos === n - 1) {
      delta = (means[pos] as number) - (means[pos - 1] as number);
      lo = means[pos - 1] as number;
    } else {
      delta = ((means[pos + 1] as number) - (means[pos - 1] as number)) / 2;
      lo = means[pos - 1] as number;
      hi = means[pos + 1] as number;
    }
  }
  const value = (means[pos] as number) + ((rank - t) / (weights[pos] as number) - 0.5) * delta;
  if (lo === Number.POSITIVE_INFINITY) lo = Number.NEGATIVE_INFINITY;
  if (hi === Number.NEGATIVE_INFINITY) hi = Number.POSITIVE_INFINITY;
  if (Number.isNaN(lo) || Number.isNaN(hi)) return value;
  return Math.min(hi, Math.max(lo, value));
}
