/**
 * Checked OpenTSDB points → one `TableInsert` per metric (reference ingest §6): the table is the
 * metric name as sent (`sys.cpu.nice`), with
 *
 *   greptime_timestamp  TimestampMillisecond  time index
 *   greptime_value      Float64               field
 *   <tag>               String                tag, sorted by name; NULL where a point lacks it
 *
 * the layout of GreptimeDB's OpenTSDB tables (and of remote-write tables, so both can feed one
 * metric). Tables are ordinary, last-row tables: a point sent again for the same series and time
 * replaces the earlier one, as in OpenTSDB.
 */
import type { InsertColumn, TableInsert } from '../../../shared/insert.js';
import { type PutPoint, TIME_COLUMN, VALUE_COLUMN } from './put-points.js';

/** The points of one metric, for attributing a refused table write to its points. */
export interface MetricBatch {
  insert: TableInsert;
  points: PutPoint[];
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Groups points by metric into inserts for database `db`, in first-seen metric order. */
export function metricBatches(points: PutPoint[], db: string): MetricBatch[] {
  const byMetric = new Map<string, PutPoint[]>();
  for (const p of points) {
    let list = byMetric.get(p.metric);
    if (list === undefined) {
      list = [];
      byMetric.set(p.metric, list);
    }
    list.push(p);
  }
  return [...byMetric].map(([metric, list]) => ({ insert: metricInsert(db, metric, list), points: list }));
}

function metricInsert(db: string, metric: string, points: PutPoint[]): TableInsert {
  const n = points.length;
  const timestamps = new BigInt64Array(n);
  const values = new Float64Array(n);
  const tagColumns = new Map<string, Array<string | null>>();
  for (let r = 0; r < n; r++) {
    const p = points[r] as PutPoint;
    timestamps[r] = BigInt(p.timestampMs);
    values[r] = p.value;
    for (const [name, value] of p.tags) {
      let column = tagColumns.get(name);
      if (column === undefined) {
        column = new Array<string | null>(n).fill(null);
        tagColumns.set(name, column);
      }
      column[r] = value;
    }
  }
  const columns: InsertColumn[] = [
    {
      name: TIME_COLUMN,
      semantic: 'TIMESTAMP',
      type: 'TimestampMillisecond',
      vector: { kind: 'i64', values: timestamps },
    },
    { name: VALUE_COLUMN, semantic: 'FIELD', type: 'Float64', vector: { kind: 'f64', values } },
  ];
  for (const name of [...tagColumns.keys()].sort(compareBytes)) {
    columns.push({
      name,
      semantic: 'TAG',
      type: 'String',
      vector: { kind: 'str', values: tagColumns.get(name) as Array<string | null> },
    });
  }
  return { db, table: metric, rowCount: n, columns };
}
