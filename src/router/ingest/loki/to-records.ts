/**
 * Loki entries as pipeline records (reference ingest §4, with `x-greptime-pipeline-name`):
 * `{greptime_timestamp, loki_line, loki_label_<name>..., loki_metadata_<name>...}`, the time as
 * a nanosecond timestamp value (so a transform can index it as is).
 */
import { type PipelineRecord, PipelineTimestamp } from '../../../pipeline/value.js';
import type { LokiStream } from '../../../shared/ingest/loki/push-streams.js';

export function lokiRecords(streams: LokiStream[]): PipelineRecord[] {
  const records: PipelineRecord[] = [];
  for (const stream of streams) {
    for (const entry of stream.entries) {
      const record: PipelineRecord = {
        greptime_timestamp: new PipelineTimestamp(entry.timestampNs, 'ns'),
        loki_line: entry.line,
      };
      for (const [name, value] of stream.labels) record[`loki_label_${name}`] = value;
      for (const [name, value] of entry.metadata) record[`loki_metadata_${name}`] = value;
      records.push(record);
    }
  }
  return records;
}
