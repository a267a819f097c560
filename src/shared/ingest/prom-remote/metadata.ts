/**
 * Metric metadata (type, help, unit) sent in remote write requests, kept in one ordinary table so
 * the metadata API can read it back with a scan or SQL:
 *
 *   greptime_private.prometheus_metadata(
 *     greptime_timestamp TIMESTAMP(3) TIME INDEX,   -- always 0: one row per (db, metric)
 *     db STRING TAG, metric STRING TAG,              -- database of the request, metric family name
 *     type STRING, help STRING, unit STRING)         -- type as the metadata API prints it
 *
 * Every row has timestamp 0 and the table merges `last_row`, so the latest metadata sent for a
 * family replaces the previous one. Families are keyed by name, not by table: a histogram's family
 * `x` has tables `x_bucket`, `x_sum` and `x_count`, and Prometheus' API reports it as `x`.
 */
import type { TableInsert } from '../../insert.js';
import type { DecodedMetadata } from './write-decode.js';

export const METADATA_DB = 'greptime_private';
export const METADATA_TABLE = 'prometheus_metadata';

/** `MetricMetadata.MetricType` numbers → the names Prometheus' metadata API prints. */
export const METRIC_TYPE_NAMES = [
  'unknown',
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'summary',
  'info',
  'stateset',
] as const;

/** The insert that records `entries` for database `db`; null when there is nothing to record. */
export function metadataInsert(entries: readonly DecodedMetadata[], db: string): TableInsert | null {
  // Later entries for the same family win, as later rows would.
  const byFamily = new Map<string, DecodedMetadata>();
  for (const e of entries) if (e.family !== '') byFamily.set(e.family, e);
  const n = byFamily.size;
  if (n === 0) return null;
  const families = [...byFamily.values()];
  const text = (pick: (e: DecodedMetadata) => string) => ({ kind: 'str' as const, values: families.map(pick) });
  return {
    db: METADATA_DB,
    table: METADATA_TABLE,
    rowCount: n,
    columns: [
      {
        name: 'greptime_timestamp',
        semantic: 'TIMESTAMP',
        type: 'TimestampMillisecond',
        vector: { kind: 'i64', values: new BigInt64Array(n) },
      },
      { name: 'db', semantic: 'TAG', type: 'String', vector: { kind: 'str', values: families.map(() => db) } },
      { name: 'metric', semantic: 'TAG', type: 'String', vector: text((e) => e.family) },
      {
        name: 'type',
        semantic: 'FIELD',
        type: 'String',
        vector: text((e) => METRIC_TYPE_NAMES[e.type] ?? 'unknown'),
      },
      { name: 'help', semantic: 'FIELD', type: 'String', vector: text((e) => e.help) },
      { name: 'unit', semantic: 'FIELD', type: 'String', vector: text((e) => e.unit) },
    ],
  };
}
