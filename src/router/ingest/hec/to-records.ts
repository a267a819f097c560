/**
 * HEC events as pipeline records, for requests that name a pipeline (reference ingest §5): per
 * table, one record per event with its metadata and `fields` keys at the top level, `event` as
 * sent (object events as their JSON text) and the event time as the nanosecond timestamp
 * `greptime_timestamp`.
 */
import { type PipelineRecord, PipelineTimestamp } from '../../../pipeline/value.js';
import type { HecRow } from './hec-rows.js';

export function hecRecordsByTable(rows: HecRow[]): Map<string, PipelineRecord[]> {
  const byTable = new Map<string, PipelineRecord[]>();
  for (const row of rows) {
    const record: PipelineRecord = { greptime_timestamp: new PipelineTimestamp(row.timestampNs, 'ns') };
    for (const [key, value] of row.tags) record[key] = value;
    record.event = row.event;
    const list = byTable.get(row.table);
    if (list === undefined) byTable.set(row.table, [record]);
    else list.push(record);
  }
  return byTable;
}
