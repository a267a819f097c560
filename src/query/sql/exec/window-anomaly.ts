/**
 * GreptimeDB's anomaly-scoring window functions: how far the current row's value lies from its
 * frame, in units of the frame's spread. NULL, NaN and infinite values take no part; too few
 * values left (2 for the z-score, which uses the sample standard deviation; 3 for MAD and IQR)
 * give NULL, as does a current value that is not a finite number. A zero spread gives 0 for a
 * value at the centre and +inf for any other, GreptimeDB's documented degenerate cases.
 *
 *   zscore: |x − mean| / stddev_samp
 *   mad:    |x − median| / (1.4826 × median(|xᵢ − median|))
 *   iqr:    distance beyond the fences Q1 − k·IQR, Q3 + k·IQR (linear-interpolated quartiles) / IQR
 */

/** Scale factor making MAD estimate the standard deviation of normally distributed data. */
const MAD_TO_STDDEV = 1.4826;

/** The window function names this file scores. */
export const ANOMALY_FUNCTIONS: ReadonlySet<string> = new Set([
  'anomaly_score_zscore',
  'anomaly_score_mad',
  'anomaly_score_iqr',
]);

const ratio = (distance: number, scale: number): number =>
  scale === 0 ? (distance === 0 ? 0 : Number.POSITIVE_INFINITY) : distance / scale;

function median(sorted: number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function quantile(sorted: number[], p: number): number {
  const at = p * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const frac = at - lo;
  return lo === hi ? (sorted[lo] as number) : (sorted[lo] as number) * (1 - frac) + (sorted[hi] as number) * frac;
}

/** The finite numbers among a frame's values. */
export function finiteValues(values: unknown[]): number[] {
  const out: number[] = [];
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const x = Number(v);
    if (Number.isFinite(x)) out.push(x);
  }
  return out;
}

/** The score of `current` against `frame` (finite values), or null. `k` is the IQR fence factor. */
export function anomalyScore(name: string, frame: number[], current: unknown, k?: unknown): number | null {
  if (current === null || current === undefined) return null;
  const x = Number(current);
  if (!Number.isFinite(x)) return null;
  const n = frame.length;
  switch (name) {
    case 'anomaly_score_zscore': {
      if (n < 2) return null;
      const mean = frame.reduce((a, b) => a + b, 0) / n;
      const variance = frame.reduce((a, b) => a + (b - mean) * (b - mean), 0) / (n - 1);
      return ratio(Math.abs(x - mean), Math.sqrt(variance));
    }
    case 'anomaly_score_mad': {
      if (n < 3) return null;
      const sorted = [...frame].sort((a, b) => a - b);
      const centre = median(sorted);
      const mad = median(sorted.map((v) => Math.abs(v - centre)).sort((a, b) => a - b));
      return ratio(Math.abs(x - centre), mad * MAD_TO_STDDEV);
    }
    case 'anomaly_score_iqr': {
      const fence = k === null || k === undefined ? Number.NaN : Number(k);
      if (!Number.isFinite(fence) || fence < 0 || n < 3) return null;
      const sorted = [...frame].sort((a, b) => a - b);
      const q1 = quantile(sorted, 0.25);
      const q3 = quantile(sorted, 0.75);
      const iqr = q3 - q1;
      const lower = q1 - fence * iqr;
      const upper = q3 + fence * iqr;
      if (x < lower) return ratio(lower - x, iqr);
      if (x > upper) return ratio(x - upper, iqr);
      return 0;
    }
    default:
      return null;
  }
}
