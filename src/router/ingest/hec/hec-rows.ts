/**
 * HEC rows → `TableInsert`s, shared by the event and raw endpoints so both fill the same table
 * layout (reference ingest §5):
 *
 *   greptime_timestamp    TimestampNanosecond  time index
 *   host, source, sourcetype                   String tags, only when some row has them
 *   <each `fields` key>   String               tag, first-seen order
 *   event                 String               field: the event text (an object event as JSON text)
 *
 * Tags are the primary key in that order (host, source, sourcetype, then fields), as GreptimeDB
 * orders them.
 */
import type { InsertColumn, TableInsert } from '../../../shared/insert.js';

export const TIME_COLUMN = 'greptime_timestamp';
export const EVENT_COLUMN = 'event';
/** Default table of both endpoints when neither the event nor the URL names one. */
export const DEFAULT_TABLE = 'splunk_logs';
/** Event metadata that becomes tag columns, in primary-key order. */
export const METADATA_TAGS = ['host', 'source', 'sourcetype'] as const;
/** Names a `fields` key may not take: they are columns with another meaning. */
export const RESERVED_COLUMNS = new Set<string>([TIME_COLUMN, EVENT_COLUMN, ...METADATA_TAGS]);

/** One event ready to store. */
export interface HecRow {
  table: string;
  timestampNs: bigint;
  /** Tag name → value: metadata tags and `fields` keys; absent means NULL. */
  tags: Map<string, string>;
  event: string;
}

/** Groups rows by table and builds one insert per table, keeping row order within each. */
export function hecInserts(rows: HecRow[], db: string): TableInsert[] {
  const byTable = new Map<string, HecRow[]>();
  for (const row of rows) {
    let list = byTable.get(row.table);
    if (list === undefined) {
      list = [];
      byTable.set(row.table, list);
    }
    list.push(row);
  }
  return [...byTable].map(([table, tableRows]) => tableInsert(db, table, tableRows));
}

function tableInsert(db: string, table: string, rows: HecRow[]): TableInsert {
  const n = rows.length;
  const metadata = new Set<string>();
  const fieldTags: string[] = [];
  const seenFieldTags = new Set<string>();
  for (const row of rows) {
    for (const name of row.tags.keys()) {
      if ((METADATA_TAGS as readonly string[]).includes(name)) metadata.add(name);
      else if (!seenFieldTags.has(name)) {
        seenFieldTags.add(name);
        fieldTags.push(name);
      }
    }
  }
  const tagNames = [...METADATA_TAGS.filter((t) => metadata.has(t)), ...fieldTags];
  const timestamps = new BigInt64Array(n);
  const events = new Array<string | null>(n);
  const tagValues = tagNames.map(() => new Array<string | null>(n).fill(null));
  for (let r = 0; r < n; r++) {
    const row = rows[r] as HecRow;
    timestamps[r] = row.timestampNs;
    events[r] = row.event;
    for (let t = 0; t < tagNames.length; t++) {
      const value = row.tags.get(tagNames[t] as string);
      if (value !== undefined) (tagValues[t] as Array<string | null>)[r] = value;
    }
  }
  const columns: InsertColumn[] = [
    {
      name: TIME_COLUMN,
      semantic: 'TIMESTAMP',
      type: 'TimestampNanosecond',
      vector: { kind: 'i64', values: timestamps },
    },
  ];
  for (let t = 0; t < tagNames.length; t++) {
    columns.push({
      name: tagNames[t] as string,
      semantic: 'TAG',
      type: 'String',
      vector: { kind: 'str', values: tagValues[t] as Array<string | null> },
    });
  }
  columns.push({ name: EVENT_COLUMN, semantic: 'FIELD', type: 'String', vector: { kind: 'str', values: events } });
  return { db, table, rowCount: n, columns };
}
