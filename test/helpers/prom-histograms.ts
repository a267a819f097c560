/**
 * Native histogram fixtures for the remote write tests: `prometheus.Histogram` messages (as
 * protobufjs objects of the server's schema), the same histograms as the engine's
 * `FloatHistogram` (built independently from the buckets, not through the server's decoder), and
 * a remote read that returns `TimeSeries.histograms` decoded.
 */
import snappy from 'snappyjs';
import { type FloatHistogram, makeHistogram } from '../../src/query/promql/histogram/float-histogram.js';
import { prometheusTypes } from '../../src/shared/proto/prometheus.js';
import { postRemoteRead, readRequestBytes, snappyBlock, type TestQuery } from './prom-remote.js';

/** A histogram described by absolute bucket counts per index (sparse). */
export interface HistogramSpec {
  float: boolean;
  count: number;
  sum: number;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  negative: Array<[number, number]>;
  positive: Array<[number, number]>;
  timestamp: number;
  resetHint?: number;
}

function spansOf(buckets: Array<[number, number]>): Array<{ offset: number; length: number }> {
  const spans: Array<{ offset: number; length: number }> = [];
  let end = 0;
  for (let k = 0; k < buckets.length; k++) {
    const index = (buckets[k] as [number, number])[0];
    const last = spans[spans.length - 1];
    if (last && index === end) last.length++;
    else spans.push({ offset: k === 0 ? index : index - end, length: 1 });
    end = index + 1;
  }
  return spans;
}

function deltasOf(buckets: Array<[number, number]>): number[] {
  let previous = 0;
  return buckets.map(([, c]) => {
    const d = c - previous;
    previous = c;
    return d;
  });
}

/** The `prometheus.Histogram` message object of a spec (deltas for integer, counts for float). */
export function histogramMessage(spec: HistogramSpec): Record<string, unknown> {
  const m: Record<string, unknown> = {
    sum: spec.sum,
    schema: spec.schema,
    zero_threshold: spec.zeroThreshold,
    negative_spans: spansOf(spec.negative),
    positive_spans: spansOf(spec.positive),
    timestamp: spec.timestamp,
    reset_hint: spec.resetHint ?? 0,
  };
  if (spec.float) {
    m.count_float = spec.count;
    m.zero_count_float = spec.zeroCount;
    m.negative_counts = spec.negative.map(([, c]) => c);
    m.positive_counts = spec.positive.map(([, c]) => c);
  } else {
    m.count_int = spec.count;
    m.zero_count_int = spec.zeroCount;
    m.negative_deltas = deltasOf(spec.negative);
    m.positive_deltas = deltasOf(spec.positive);
  }
  return m;
}

/** The engine's form of a spec. */
export function floatHistogramOf(spec: HistogramSpec): FloatHistogram {
  return makeHistogram({
    schema: spec.schema,
    count: spec.count,
    sum: spec.sum,
    zeroThreshold: spec.zeroThreshold,
    zeroCount: spec.zeroCount,
    positive: { index: spec.positive.map(([i]) => i), count: spec.positive.map(([, c]) => c) },
    negative: { index: spec.negative.map(([i]) => i), count: spec.negative.map(([, c]) => c) },
  });
}

/** A WriteRequest (snappy) from raw message objects (so malformed histograms can be sent too). */
export function writeBody(timeseries: unknown[]): Buffer {
  const message = prometheusTypes.WriteRequest.fromObject({ timeseries });
  return snappyBlock(prometheusTypes.WriteRequest.encode(message).finish());
}

export interface ReadHistogramSeries {
  labels: Record<string, string>;
  samples: Array<[number, number]>;
  histograms: Array<Record<string, unknown>>;
}

/** Remote read (SAMPLES) of float samples and histograms per query, int64s as numbers. */
export async function remoteReadHistograms(
  url: string,
  queries: TestQuery[],
  acceptedResponseTypes: number[] = [],
): Promise<ReadHistogramSeries[][]> {
  const res = await postRemoteRead(url, snappyBlock(readRequestBytes(queries, acceptedResponseTypes)));
  if (res.headers.get('content-type') !== 'application/x-protobuf') throw new Error('not a SAMPLES answer');
  if (res.status !== 200) throw new Error(`remote read failed: ${res.status} ${new TextDecoder().decode(res.body)}`);
  const decoded = prometheusTypes.ReadResponse.toObject(
    prometheusTypes.ReadResponse.decode(snappy.uncompress(Buffer.from(res.body))),
    { longs: Number, arrays: true, oneofs: false },
  ) as {
    results: Array<{
      timeseries?: Array<{
        labels: Array<{ name: string; value: string }>;
        samples: Array<{ value: number; timestamp: number }>;
        histograms: Array<Record<string, unknown>>;
      }>;
    }>;
  };
  return decoded.results.map((r) =>
    (r.timeseries ?? []).map((ts) => ({
      labels: Object.fromEntries(ts.labels.map((l) => [l.name, l.value])),
      samples: ts.samples.map((s) => [s.timestamp, s.value] as [number, number]),
      histograms: ts.histograms,
    })),
  );
}
