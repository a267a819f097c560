/**
 * Decoded Loki streams → one `TableInsert` for the log table (reference ingest §4, direct mapping):
 *
 *   greptime_timestamp   TimestampNanosecond  time index
 *   line                 String               field
 *   structured_metadata  Json                 field, object of string values (`{}` when none)
 *   <label>              String               tag, one per stream label, in first-seen order
 *
 * Labels of each stream are taken in name order, so an auto-created table's columns do not depend
 * on how a client happened to order a stream's labels. An empty label value is no label (NULL), as
 * in Loki and Prometheus. A label named like one of the three fixed columns is refused rather than
 * overwriting that column.
 */
import { InvalidArgument } from '../../errors.js';
import type { InsertColumn, TableInsert } from '../../insert.js';
import type { LokiStream } from './push-streams.js';

export const TIME_COLUMN = 'greptime_timestamp';
export const LINE_COLUMN = 'line';
export const METADATA_COLUMN = 'structured_metadata';
/** Where Loki pushes go without an `x-greptime-log-table-name` header. */
export const DEFAULT_TABLE = 'loki_logs';

const FIXED_COLUMNS = new Set([TIME_COLUMN, LINE_COLUMN, METADATA_COLUMN]);

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * A string as a JSON literal the way the Json type prints strings (`\u2028`/`\u2029` escaped too).
 * JSON.stringify also escapes the other control characters, which keeps the text parseable.
 */
function jsonLiteral(value: string): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/**
 * Structured metadata as a canonical `Json` value (what the Json type stores): keys sorted by their
 * UTF-8 bytes, unique (the last value of a repeated name wins), no whitespace.
 */
export function metadataJson(pairs: Array<[string, string]>): string {
  if (pairs.length === 0) return '{}';
  const unique = new Map(pairs);
  const keys = [...unique.keys()].sort(compareBytes);
  return `{${keys.map((k) => `${jsonLiteral(k)}:${jsonLiteral(unique.get(k) as string)}`).join(',')}}`;
}

/** Builds the insert of all streams into `db`.`table`; throws `InvalidArgument` for a bad label name. */
export function lokiInsert(streams: LokiStream[], db: string, table: string): TableInsert {
  let rowCount = 0;
  for (const s of streams) rowCount += s.entries.length;
  const timestamps = new BigInt64Array(rowCount);
  const lines = new Array<string | null>(rowCount);
  const metadata = new Array<string | null>(rowCount);
  const labelColumns = new Map<string, Array<string | null>>();

  let row = 0;
  for (let s = 0; s < streams.length; s++) {
    const stream = streams[s] as LokiStream;
    const labels = [...stream.labels].sort((a, b) => compareBytes(a[0], b[0]));
    for (const [name, value] of labels) {
      if (name === '') throw new InvalidArgument(`Invalid Loki stream ${s}: empty label name`);
      if (FIXED_COLUMNS.has(name)) {
        throw new InvalidArgument(
          `Invalid Loki stream ${s}: label ${JSON.stringify(name)} collides with a column of the log table`,
        );
      }
      if (value === '') continue;
      let column = labelColumns.get(name);
      if (column === undefined) {
        column = new Array<string | null>(rowCount).fill(null);
        labelColumns.set(name, column);
      }
      column.fill(value, row, row + stream.entries.length);
    }
    for (const entry of stream.entries) {
      timestamps[row] = entry.timestampNs;
      lines[row] = entry.line;
      metadata[row] = metadataJson(entry.metadata);
      row++;
    }
  }

  const columns: InsertColumn[] = [
    {
      name: TIME_COLUMN,
      semantic: 'TIMESTAMP',
      type: 'TimestampNanosecond',
      vector: { kind: 'i64', values: timestamps },
    },
    { name: LINE_COLUMN, semantic: 'FIELD', type: 'String', vector: { kind: 'str', values: lines } },
    { name: METADATA_COLUMN, semantic: 'FIELD', type: 'Json', vector: { kind: 'str', values: metadata } },
  ];
  for (const [name, values] of labelColumns) {
    columns.push({ name, semantic: 'TAG', type: 'String', vector: { kind: 'str', values } });
  }
  return { db, table, rowCount, columns };
}
