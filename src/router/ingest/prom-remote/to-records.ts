/**
 * A remote-write request as pipeline records, per metric table (reference ingest §2.4, with
 * `x-greptime-pipeline-name`): each sample is `{<label>: "<value>"..., greptime_timestamp: <ms>,
 * greptime_value: <float>}`; NaN samples (stale markers included) are dropped. This is the slow,
 * general path; plain remote write is decoded in the shards.
 */
import type { PipelineRecord } from '../../../pipeline/value.js';
import { InvalidArgument } from '../../../shared/errors.js';
import { int64ToNumber, prometheusTypes } from '../../../shared/proto/prometheus.js';

interface WireSeries {
  labels?: Array<{ name?: string; value?: string }>;
  samples?: Array<{ value?: number; timestamp?: unknown }>;
}

export function remoteWriteRecords(raw: Uint8Array): Map<string, PipelineRecord[]> {
  let request: { timeseries?: WireSeries[] };
  try {
    request = prometheusTypes.WriteRequest.decode(raw) as unknown as { timeseries?: WireSeries[] };
  } catch (err) {
    throw new InvalidArgument(`Failed to decode prometheus remote request: ${(err as Error).message}`);
  }
  const byMetric = new Map<string, PipelineRecord[]>();
  for (const series of request.timeseries ?? []) {
    let metric = '';
    const labels: Record<string, string> = {};
    for (const l of series.labels ?? []) {
      if (l.name === '__name__') metric = l.value ?? '';
      else if (l.name) labels[l.name] = l.value ?? '';
    }
    if (metric === '') throw new InvalidArgument('A remote-write series has no __name__ label');
    let records = byMetric.get(metric);
    if (records === undefined) byMetric.set(metric, (records = []));
    for (const sample of series.samples ?? []) {
      const value = sample.value ?? 0;
      if (Number.isNaN(value)) continue;
      records.push({ ...labels, greptime_timestamp: int64ToNumber(sample.timestamp), greptime_value: value });
    }
  }
  return byMetric;
}
