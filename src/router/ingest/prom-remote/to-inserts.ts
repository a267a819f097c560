/**
 * Decoded remote write → `TableInsert`s (reference ingest §2.3, admin §7.4): one table per metric
 * name in the series' database; columns `greptime_timestamp` (TimestampMillisecond, time index),
 * `greptime_value` (Float64 field) and one String tag per label. Label checks already happened
 * when each series was first seen (series-labels.ts); what is left is per table: the tag columns
 * the request's series use, and collisions with the time and value columns.
 *
 * Inserts come in series form (`TableInsert.series`): each distinct series once with its tag
 * tuple and shard, rows pointing at it. No per-row tag vector is built, and a series whose label
 * names are the table's in this request reuses its cached tag values as its tuple.
 */
import { InvalidArgument } from '../../../shared/errors.js';
import type { InsertColumn, TableInsert } from '../../../shared/insert.js';
import type { TableSchema } from '../../../shared/types.js';
import { intern, type SeriesEntry } from './series-cache.js';
import type { DecodedWrite } from './write-decode.js';

export { DATABASE_LABELS, METRIC_NAME_LABEL, PHYSICAL_TABLE_LABELS } from './series-labels.js';

export const TIME_COLUMN = 'greptime_timestamp';
export const VALUE_COLUMN = 'greptime_value';

/** How existing tables are looked up, so their own time-index and value column names are reused. */
export type TableLookup = (db: string, table: string) => TableSchema | undefined;

interface TableBuilder {
  key: string;
  db: string;
  metric: string;
  /** Series of the table in this request → local series index. */
  local: Map<SeriesEntry, number>;
  series: SeriesEntry[];
  /** Request series indexes (into `DecodedWrite.series`) in request order. */
  parts: number[];
  rowCount: number;
}

/** Builds the inserts of a decoded request. `lookup` reads the catalog (existing column names). */
export function toTableInserts(decoded: DecodedWrite, lookup: TableLookup): TableInsert[] {
  const tables = new Map<string, TableBuilder>();
  let last: TableBuilder | undefined;
  for (let i = 0; i < decoded.series.length; i++) {
    const entry = decoded.series[i] as SeriesEntry;
    let table = last;
    if (table === undefined || table.key !== entry.tableKey) {
      table = tables.get(entry.tableKey);
      if (!table) {
        table = {
          key: entry.tableKey,
          db: entry.db,
          metric: entry.table,
          local: new Map(),
          series: [],
          parts: [],
          rowCount: 0,
        };
        tables.set(entry.tableKey, table);
      }
      last = table;
    }
    if (!table.local.has(entry)) {
      table.local.set(entry, table.series.length);
      table.series.push(entry);
    }
    table.parts.push(i);
    table.rowCount += decoded.sampleCounts[i] as number;
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

/** Sorted union of the label names of the table's series, computed once per distinct shape. */
function tagNamesOf(series: readonly SeriesEntry[]): string[] {
  const shapes = new Map<string, readonly string[]>();
  for (const s of series) if (!shapes.has(s.shapeKey)) shapes.set(s.shapeKey, s.tagNames);
  if (shapes.size === 1) return [...(shapes.values().next().value as readonly string[])];
  const names = new Set<string>();
  for (const shape of shapes.values()) for (const n of shape) names.add(n);
  return [...names].sort();
}

/** Each series' tag values in `names` order (null = absent); shared arrays where shapes match. */
function tuplesOf(series: readonly SeriesEntry[], names: readonly string[]): Array<Array<string | null>> {
  const full = intern(names.join('\u0000'));
  const positions = new Map<string, number[]>();
  return series.map((s) => {
    if (s.shapeKey === full) return s.tagValues as string[];
    let at = positions.get(s.shapeKey);
    if (!at) {
      at = s.tagNames.map((n) => names.indexOf(n));
      positions.set(s.shapeKey, at);
    }
    const tuple = new Array<string | null>(names.length).fill(null);
    for (let j = 0; j < at.length; j++) tuple[at[j] as number] = s.tagValues[j] as string;
    return tuple;
  });
}

function buildInsert(t: TableBuilder, decoded: DecodedWrite, existing: TableSchema | undefined): TableInsert {
  const n = t.rowCount;
  const timeName = existing?.timeIndex ?? TIME_COLUMN;
  const valueName = valueColumnOf(existing);
  const tagNames = tagNamesOf(t.series);
  for (const name of tagNames) {
    if (name === timeName || name === valueName) {
      throw new InvalidArgument(
        `Label name ${name} of metric ${t.metric} collides with the ${name === timeName ? 'time index' : 'value'} column`,
      );
    }
  }

  // Timestamps go into the BigInt64Array through its 32-bit words: no BigInt per sample.
  const timestamps = new BigInt64Array(n);
  const words = new Int32Array(timestamps.buffer);
  const values = new Float64Array(n);
  const rowSeries = new Uint32Array(n);
  let row = 0;
  for (const i of t.parts) {
    const from = decoded.sampleStart[i] as number;
    const count = decoded.sampleCounts[i] as number;
    for (let k = 0; k < count; k++) {
      const ms = decoded.timestamps[from + k] as number;
      const hi = Math.floor(ms / 4294967296);
      words[2 * (row + k)] = (ms - hi * 4294967296) | 0;
      words[2 * (row + k) + 1] = hi | 0;
    }
    if (count === 1) values[row] = decoded.values[from] as number;
    else values.set(decoded.values.subarray(from, from + count), row);
    rowSeries.fill(t.local.get(decoded.series[i] as SeriesEntry) as number, row, row + count);
    row += count;
  }
  const shards = new Uint16Array(t.series.length);
  for (let k = 0; k < t.series.length; k++) shards[k] = (t.series[k] as SeriesEntry).shard;
  const columns: InsertColumn[] = [
    {
      name: timeName,
      semantic: 'TIMESTAMP',
      type: 'TimestampMillisecond',
      vector: { kind: 'i64', values: timestamps },
    },
    { name: valueName, semantic: 'FIELD', type: 'Float64', vector: { kind: 'f64', values } },
    ...tagNames.map(
      (name): InsertColumn => ({ name, semantic: 'TAG', type: 'String', vector: { kind: 'str', values: [] } }),
    ),
  ];
  return {
    db: t.db,
    table: t.metric,
    rowCount: n,
    columns,
    rowSeries,
    series: { tuples: tuplesOf(t.series, tagNames), shards, keyHolders: t.series as SeriesEntry[] },
  };
}
