/**
 * Samples of resolved series (remote write, OpenTSDB put) straight into per-shard `TableRows`,
 * for requests whose every series is already bound to the schema: its table exists, carries
 * each of its labels as a String tag and has a millisecond time index and a Float64 value.
 * Then there is nothing to plan, and the per-table inserts (series-inserts.ts) and their split
 * by shard (split.ts) are skipped: each sample is copied once, into the columns of the part of
 * its table bound for its series' shard. A request with any other series returns null and takes
 * that general path, which also words every refusal.
 *
 * A series' binding (its table, storage key and encoded key) is computed once per catalog
 * generation and kept on the series, as its cache holds it; the storage key is the one
 * split.ts would build (series-key.ts), with the same encoded key, so key ids and references
 * stay stable whichever path a request takes.
 */
import type { TableRows } from '../codec/write-batch.js';
import { nextSpread, spreadsRows } from '../partition.js';
import { seriesKeyOf } from '../series-key.js';
import { blobOf, type EncodedKey, encodeKey } from '../series-key-blob.js';
import type { TableSchema } from '../types.js';
import { mergeModeOf } from './plan.js';
import type { SchemaSnapshot } from './schema-snapshot.js';
import { newStamp, type ResolvedSeries, type SeriesRuns, TIME_COLUMN, valueColumnOf } from './series-inserts.js';

/** A table as the direct path writes it, for one catalog generation. */
interface TableBinding {
  readonly generation: number;
  readonly table: TableSchema;
  readonly mergeMode: TableRows['mergeMode'];
  readonly valueId: number;
  /** Ids of the table's tags, ascending: the `tagIds` of its parts (keys travel whole, so any superset will do). */
  readonly tagIds: number[];
  /** Tag column ids by name. */
  readonly tagIdByName: Map<string, number>;
  readonly valueName: string;
  /** Whether its rows go to the shards in turn rather than by series (partition.ts). */
  readonly spread: boolean;
  /** Its position among the tables of the request being split, valid while `stamp` is its. */
  stamp: number;
  index: number;
  /** The shard of all its rows in that request when `spread`, else -1. */
  requestShard: number;
}

/** A series bound to a `TableBinding`; kept on the series (`ResolvedSeries.binding`). */
export interface SeriesBinding {
  readonly table: TableBinding;
  readonly key: EncodedKey;
}

/** Table bindings of the current generation, by `ResolvedSeries.tableKey`. */
let bindings = new Map<string, TableBinding | null>();
let bindingsGeneration = -1;

function tableBinding(schema: SchemaSnapshot, series: ResolvedSeries): TableBinding | null {
  if (bindingsGeneration !== schema.generation) {
    bindings = new Map();
    bindingsGeneration = schema.generation;
  }
  let bound = bindings.get(series.tableKey);
  if (bound === undefined) {
    bound = bindTable(schema.generation, schema.getTable(series.db, series.table));
    bindings.set(series.tableKey, bound);
  }
  return bound;
}

/** The binding of a table the direct path can write, else null. */
function bindTable(generation: number, table: TableSchema | undefined): TableBinding | null {
  if (table === undefined) return null;
  const time = table.columns.find((c) => c.name === table.timeIndex);
  if (time?.type !== 'TimestampMillisecond') return null;
  const valueName = valueColumnOf(table);
  const value = table.columns.find((c) => c.name === valueName);
  if (value?.semantic !== 'FIELD' || value.type !== 'Float64') return null;
  const tagIdByName = new Map<string, number>();
  for (const c of table.columns) if (c.semantic === 'TAG' && c.type === 'String') tagIdByName.set(c.name, c.id);
  return {
    generation,
    table,
    mergeMode: mergeModeOf(table),
    valueId: value.id,
    tagIds: [...tagIdByName.values()].sort((a, b) => a - b),
    tagIdByName,
    valueName,
    spread: spreadsRows(table),
    stamp: 0,
    index: 0,
    requestShard: -1,
  };
}

/** Binds `series` for the schema's generation, or null when the general path must take it. */
function bindSeries(schema: SchemaSnapshot, series: ResolvedSeries): SeriesBinding | null {
  const table = tableBinding(schema, series);
  if (table === null) return null;
  const n = series.tagNames.length;
  const ids = new Array<number>(n);
  for (let j = 0; j < n; j++) {
    const name = series.tagNames[j] as string;
    // The general path refuses a label named like the time index or value column.
    if (name === TIME_COLUMN || name === table.table.timeIndex || name === table.valueName) return null;
    const id = table.tagIdByName.get(name);
    if (id === undefined) return null;
    ids[j] = id;
  }
  const order = ids.map((_, j) => j).sort((a, b) => (ids[a] as number) - (ids[b] as number));
  const key = seriesKeyOf(
    order.map((j) => ids[j] as number),
    order.map((j) => series.tagValues[j] as string),
  );
  // Reuse the encoded key the series already has for this table (from either path): a new one
  // would mint a new key id, and shards would be sent its bytes again.
  const held = series.storageKey;
  let encoded: EncodedKey | null;
  if (held !== undefined && held.tableId === table.table.id && held.key === key) encoded = held.encoded;
  else {
    encoded = encodeKey(key);
    series.storageKey = { tableId: table.table.id, idsKey: '', key, encoded };
  }
  if (encoded === null) return null;
  const binding = { table, key: encoded };
  series.binding = binding;
  return binding;
}

/** One table's samples bound for one shard, as they are counted and then filled. */
interface Part {
  table: TableBinding;
  shard: number;
  rows: number;
  keys: EncodedKey[];
  /** Filled in the second pass. */
  filled: number;
  timestamps: BigInt64Array | null;
  /** `timestamps` as 32-bit words (low, high). */
  words: Int32Array | null;
  values: Float64Array | null;
  rowSeries: Uint32Array | null;
}

/**
 * Per shard, the `TableRows` of `points` (empty lists for shards without any), and the samples
 * per table in first-seen order; null when some series is not bound and cannot be.
 * `byRef`: keys already sent to a shard go as references (series-key-blob.ts).
 */
export function sampleParts(
  points: SeriesRuns,
  schema: SchemaSnapshot,
  shardCount: number,
  byRef: boolean,
): { perShard: TableRows[][]; tableRows: number[] } | null {
  const stamp = newStamp();
  const generation = schema.generation;
  const tables: TableBinding[] = [];
  const tableRows: number[] = [];
  // parts[table index * shardCount + shard]
  const parts: Array<Part | undefined> = [];
  const runs = points.series.length;
  for (let i = 0; i < runs; i++) {
    const count = points.count[i] as number;
    if (count === 0) continue;
    const series = points.series[i] as ResolvedSeries;
    let binding = series.binding;
    if (binding === undefined || binding.table.generation !== generation) {
      binding = bindSeries(schema, series) ?? undefined;
      if (binding === undefined) return null;
    }
    const table = binding.table;
    if (table.stamp !== stamp) {
      table.stamp = stamp;
      table.index = tables.length;
      table.requestShard = table.spread && shardCount > 1 ? nextSpread(shardCount) : -1;
      tables.push(table);
      tableRows.push(0);
      for (let s = 0; s < shardCount; s++) parts.push(undefined);
    }
    const shard = table.requestShard >= 0 ? table.requestShard : series.shard;
    const p = table.index * shardCount + shard;
    let part = parts[p];
    if (part === undefined) {
      part = {
        table,
        shard,
        rows: 0,
        keys: [],
        filled: 0,
        timestamps: null,
        words: null,
        values: null,
        rowSeries: null,
      };
      parts[p] = part;
    }
    if (series.stamp !== stamp) {
      series.stamp = stamp;
      series.stampIndex = part.keys.length;
      part.keys.push(binding.key);
    }
    part.rows += count;
    tableRows[table.index] = (tableRows[table.index] as number) + count;
  }

  for (const part of parts) {
    if (part === undefined) continue;
    part.timestamps = new BigInt64Array(part.rows);
    part.words = new Int32Array(part.timestamps.buffer);
    part.values = new Float64Array(part.rows);
    part.rowSeries = new Uint32Array(part.rows);
  }
  for (let i = 0; i < runs; i++) {
    const count = points.count[i] as number;
    if (count === 0) continue;
    const series = points.series[i] as ResolvedSeries;
    const table = (series.binding as SeriesBinding).table;
    const part = parts[
      table.index * shardCount + (table.requestShard >= 0 ? table.requestShard : series.shard)
    ] as Part;
    const from = points.start[i] as number;
    const row = part.filled;
    // Timestamps go in through the 32-bit words: no BigInt per sample.
    const words = part.words as Int32Array;
    for (let k = 0; k < count; k++) {
      const ms = points.timestamps[from + k] as number;
      const hi = Math.floor(ms / 4294967296);
      words[2 * (row + k)] = (ms - hi * 4294967296) | 0;
      words[2 * (row + k) + 1] = hi | 0;
    }
    const values = part.values as Float64Array;
    const rowSeries = part.rowSeries as Uint32Array;
    // One sample by assignment, runs by a copy: both keep a NaN's payload (stale markers).
    if (count === 1) {
      values[row] = points.values[from] as number;
      rowSeries[row] = series.stampIndex as number;
    } else {
      values.set(points.values.subarray(from, from + count), row);
      rowSeries.fill(series.stampIndex as number, row, row + count);
    }
    part.filled = row + count;
  }

  const perShard: TableRows[][] = Array.from({ length: shardCount }, () => []);
  for (const part of parts) {
    if (part === undefined) continue;
    const { table } = part;
    (perShard[part.shard] as TableRows[]).push({
      tableId: table.table.id,
      mergeMode: table.mergeMode,
      rowCount: part.rows,
      timestamps: part.timestamps as BigInt64Array,
      tagIds: table.tagIds,
      seriesTags: [],
      rowSeries: part.rowSeries as Uint32Array,
      seriesKeyBlob: blobOf(part.keys, undefined, { shard: part.shard, byRef }),
      fields: [{ id: table.valueId, vector: { kind: 'f64', values: part.values as Float64Array } }],
    });
  }
  return { perShard, tableRows };
}
