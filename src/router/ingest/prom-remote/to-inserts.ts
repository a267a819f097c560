/**
 * Decoded remote write → `TableInsert`s (reference ingest §2.3, admin §7.4): one table per metric
 * name in the request's database; columns `greptime_timestamp` (TimestampMillisecond, time index),
 * `greptime_value` (Float64 field) and one String tag per label. Every check happens here, before
 * anything is written, so a bad series rejects the whole request.
 */
import { InvalidArgument } from '../../../shared/errors.js';
import type { InsertColumn, TableInsert } from '../../../shared/insert.js';
import type { TableSchema } from '../../../shared/types.js';
import type { DecodedSeries, DecodedWrite } from './write-decode.js';

export const TIME_COLUMN = 'greptime_timestamp';
export const VALUE_COLUMN = 'greptime_value';
export const METRIC_NAME_LABEL = '__name__';

/**
 * Labels that choose the database of a series instead of becoming tags. `__schema__` is the
 * deprecated spelling and wins when several are present, as in GreptimeDB.
 */
export const DATABASE_LABELS = ['x_greptime_database', '__database__', '__schema__'] as const;

/**
 * Labels naming GreptimeDB's metric-engine physical table. ShoalDB stores every metric in its own
 * table, so they only get removed from the tags (see docs/metrics-storage.md).
 */
export const PHYSICAL_TABLE_LABELS = ['x_greptime_physical_table', '__physical_table__'] as const;

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How existing tables are looked up, so their own time-index and value column names are reused. */
export type TableLookup = (db: string, table: string) => TableSchema | undefined;

interface TableBuilder {
  db: string;
  metric: string;
  /** Canonical label text → local series index. */
  seriesIndex: Map<string, number>;
  /** Tags of each local series, name → value. */
  seriesTags: Array<Map<string, string>>;
  /** Request series (with their local series index) in request order. */
  parts: Array<{ series: DecodedSeries; local: number }>;
  rowCount: number;
}

function describe(series: DecodedSeries): string {
  const pairs = series.labelNames.map((n, i) => `${n}=${JSON.stringify(series.labelValues[i] ?? '')}`);
  const text = `{${pairs.join(', ')}}`;
  return text.length > 200 ? `${text.slice(0, 200)}...}` : text;
}

function stripCatalogPrefix(db: string): string {
  return db.startsWith('greptime-') ? db.slice('greptime-'.length) : db;
}

/**
 * Builds the inserts of a request whose default database is `defaultDb`. `lookup` reads the catalog
 * (only to reuse the column names of tables that already exist).
 */
export function toTableInserts(decoded: DecodedWrite, defaultDb: string, lookup: TableLookup): TableInsert[] {
  const tables = new Map<string, TableBuilder>();
  for (const series of decoded.series) {
    if (series.sampleCount === 0) continue;
    let metric = '';
    let db = defaultDb;
    let schemaLabel: string | null = null;
    const tags = new Map<string, string>();
    const seen = new Set<string>();
    for (let i = 0; i < series.labelNames.length; i++) {
      const name = series.labelNames[i] as string;
      const value = series.labelValues[i] as string;
      if (!LABEL_NAME.test(name)) {
        throw new InvalidArgument(`Invalid label name: ${JSON.stringify(name)} in series ${describe(series)}`);
      }
      if (seen.has(name)) throw new InvalidArgument(`Duplicate label name ${name} in series ${describe(series)}`);
      seen.add(name);
      // An empty value is the same as no label at all (Prometheus' rule).
      if (value === '') continue;
      if (name === METRIC_NAME_LABEL) metric = value;
      else if (name === '__schema__') schemaLabel = value;
      else if ((DATABASE_LABELS as readonly string[]).includes(name)) db = value;
      else if (!(PHYSICAL_TABLE_LABELS as readonly string[]).includes(name)) tags.set(name, value);
    }
    if (metric === '') {
      throw new InvalidArgument(`Missing metric name (label __name__) in series ${describe(series)}`);
    }
    if (schemaLabel !== null) db = schemaLabel;
    db = stripCatalogPrefix(db);

    const key = `${db}\u0000${metric}`;
    let table = tables.get(key);
    if (!table) {
      table = { db, metric, seriesIndex: new Map(), seriesTags: [], parts: [], rowCount: 0 };
      tables.set(key, table);
    }
    const names = [...tags.keys()].sort();
    const seriesKey = names.map((n) => `${n}\u0000${tags.get(n)}`).join('\u0001');
    let local = table.seriesIndex.get(seriesKey);
    if (local === undefined) {
      local = table.seriesTags.length;
      table.seriesIndex.set(seriesKey, local);
      table.seriesTags.push(tags);
    }
    table.parts.push({ series, local });
    table.rowCount += series.sampleCount;
  }
  return [...tables.values()].map((t) => buildInsert(t, decoded, lookup(t.db, t.metric)));
}

/** The value column of an existing table: `greptime_value`, else its only Float64 field. */
export function valueColumnOf(existing: TableSchema | undefined): string {
  if (!existing || existing.columns.some((c) => c.name === VALUE_COLUMN)) return VALUE_COLUMN;
  const fields = existing.columns.filter((c) => c.semantic === 'FIELD');
  if (fields.length === 1 && fields[0]?.type === 'Float64') return fields[0].name;
  return VALUE_COLUMN;
}

function buildInsert(t: TableBuilder, decoded: DecodedWrite, existing: TableSchema | undefined): TableInsert {
  const n = t.rowCount;
  const timeName = existing?.timeIndex ?? TIME_COLUMN;
  const valueName = valueColumnOf(existing);
  const labelNames = new Set<string>();
  for (const tags of t.seriesTags) for (const name of tags.keys()) labelNames.add(name);
  for (const name of labelNames) {
    if (name === timeName || name === valueName) {
      throw new InvalidArgument(
        `Label name ${name} of metric ${t.metric} collides with the ${name === timeName ? 'time index' : 'value'} column`,
      );
    }
  }
  const sortedLabels = [...labelNames].sort();

  // Timestamps go into the BigInt64Array through its 32-bit words: no BigInt per sample.
  const timestamps = new BigInt64Array(n);
  const words = new Int32Array(timestamps.buffer);
  const values = new Float64Array(n);
  const rowSeries = new Uint32Array(n);
  const tagVectors = sortedLabels.map(() => new Array<string | null>(n).fill(null));
  let row = 0;
  for (const { series, local } of t.parts) {
    const from = series.sampleStart;
    const count = series.sampleCount;
    for (let i = 0; i < count; i++) {
      const ms = decoded.timestamps[from + i] as number;
      const hi = Math.floor(ms / 4294967296);
      words[2 * (row + i)] = (ms - hi * 4294967296) | 0;
      words[2 * (row + i) + 1] = hi | 0;
    }
    values.set(decoded.values.subarray(from, from + count), row);
    rowSeries.fill(local, row, row + count);
    const tags = t.seriesTags[local] as Map<string, string>;
    sortedLabels.forEach((name, k) => {
      const value = tags.get(name);
      if (value !== undefined) (tagVectors[k] as Array<string | null>).fill(value, row, row + count);
    });
    row += count;
  }
  const columns: InsertColumn[] = [
    {
      name: timeName,
      semantic: 'TIMESTAMP',
      type: 'TimestampMillisecond',
      vector: { kind: 'i64', values: timestamps },
    },
    { name: valueName, semantic: 'FIELD', type: 'Float64', vector: { kind: 'f64', values } },
    ...sortedLabels.map(
      (name, k): InsertColumn => ({
        name,
        semantic: 'TAG',
        type: 'String',
        vector: { kind: 'str', values: tagVectors[k] as Array<string | null> },
      }),
    ),
  ];
  return { db: t.db, table: t.metric, rowCount: n, columns, rowSeries };
}
