/**
 * OTLP exponential histogram points → Prometheus native histograms (`x-greptime-otlp-metric-
 * exponential-histograms: native`), the conversion Prometheus 3's OTLP receiver makes:
 *
 * - OTLP bucket `i` of scale `s` covers (b^i, b^(i+1)], Prometheus bucket `j` of schema `s`
 *   covers (b^(j-1), b^j]: the same bucket has j = i + 1, so spans start one index higher.
 * - Scales above 8 (Prometheus' finest schema) are reduced to 8 by merging 2^(s-8) neighbouring
 *   buckets (index i → i >> (s-8)); scales below -4 have no native schema and are rejected.
 * - Counts are integers: the result is an integer histogram (deltas), so remote read returns it
 *   as one. A missing sum is 0, as in Prometheus.
 */

import type { BucketSpan, WireHistogram } from '../../../query/promql/histogram/wire-histogram.js';
import { EXPONENTIAL_SCHEMA_MAX, EXPONENTIAL_SCHEMA_MIN } from '../../../query/promql/histogram/wire-validate.js';
import type { ExponentialHistogramBuckets, ExponentialHistogramDataPoint } from '../../proto/otlp.js';

/** Spans and deltas of one side, bucket indexes moved to Prometheus' and merged down to `schema`. */
function sideOf(
  buckets: ExponentialHistogramBuckets | null,
  scaleDown: number,
): { spans: BucketSpan[]; deltas: number[] } {
  const spans: BucketSpan[] = [];
  const counts: number[] = [];
  let lastIndex = Number.NaN;
  const divisor = 2 ** scaleDown;
  const bucketCounts = buckets?.bucketCounts ?? [];
  for (let k = 0; k < bucketCounts.length; k++) {
    const count = Number(bucketCounts[k]);
    if (count === 0) continue;
    const index = Math.floor(((buckets as ExponentialHistogramBuckets).offset + k) / divisor) + 1;
    if (index === lastIndex) {
      counts[counts.length - 1] = (counts[counts.length - 1] as number) + count;
      continue;
    }
    const span = spans[spans.length - 1];
    if (span !== undefined && index === lastIndex + 1) span.length++;
    else spans.push({ offset: span === undefined ? index : index - lastIndex - 1, length: 1 });
    counts.push(count);
    lastIndex = index;
  }
  let previous = 0;
  const deltas = counts.map((c) => {
    const d = c - previous;
    previous = c;
    return d;
  });
  return { spans, deltas };
}

/** The native histogram of a point, or why it has none. */
export function nativeHistogramOf(
  point: ExponentialHistogramDataPoint,
  timestampMs: number,
): WireHistogram | { problem: string } {
  if (point.scale < EXPONENTIAL_SCHEMA_MIN) {
    return {
      problem: `exponential histogram scale ${point.scale} is below ${EXPONENTIAL_SCHEMA_MIN}, the coarsest native schema`,
    };
  }
  const scaleDown = Math.max(0, point.scale - EXPONENTIAL_SCHEMA_MAX);
  const positive = sideOf(point.positive, scaleDown);
  const negative = sideOf(point.negative, scaleDown);
  return {
    float: false,
    count: Number(point.count),
    sum: point.sum ?? 0,
    schema: point.scale - scaleDown,
    zeroThreshold: point.zeroThreshold,
    zeroCount: Number(point.zeroCount),
    negativeSpans: negative.spans,
    negative: negative.deltas,
    positiveSpans: positive.spans,
    positive: positive.deltas,
    resetHint: 0,
    timestampMs,
    customValues: [],
  };
}
