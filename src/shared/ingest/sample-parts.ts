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
import { blobSlabBytes, type EncodedKey } from '../series-key-blob.js';
import type { TableSchema } from '../types.js';
import {
  addSeries,
  encodedKeyOf,
  enterTable,
  GenerationBindings,
  partRows,
  shardIn,
  type TableBindingBase,
  tableBindingBase,
} from './direct-parts.js';
import { PartSlab } from './part-slab.js';
import type { SchemaSnapshot } from './schema-snapshot.js';
import {
  newStamp,
  putMillis,
  type ResolvedSeries,
  type SeriesRuns,
  TIME_COLUMN,
  valueColumnOf,
} from './series-inserts.js';

/** A table as this path writes it, for one catalog generation. */
interface TableBinding extends TableBindingBase {
  readonly valueId: number;
  readonly valueName: string;
}

/** Table bindings by database and table. */
const bindings = new GenerationBindings<TableBinding>();

/** The binding of a table the direct path can write, else null. */
function bindTable(generation: number, table: TableSchema | undefined): TableBinding | null {
  if (table === undefined) return null;
  const time = table.columns.find((c) => c.name === table.timeIndex);
  if (time?.type !== 'TimestampMillisecond') return null;
  const valueName = valueColumnOf(table);
  const value = table.columns.find((c) => c.name === valueName);
  if (value?.semantic !== 'FIELD' || value.type !== 'Float64') return null;
  return { ...tableBindingBase(generation, table), valueId: value.id, valueName };
}

/**
 * Binds `series` for the schema's generation (its `boundTable` and `boundKey`), or returns null
 * when the general path must take it.
 */
function bindSeries(schema: SchemaSnapshot, series: ResolvedSeries): TableBinding | null {
  const table = bindings.get(schema.generation, series.db, series.table, () =>
    bindTable(schema.generation, schema.getTable(series.db, series.table)),
  );
  if (table === null) return null;
  for (const name of series.tagNames) {
    // The general path refuses a label named like the time index or value column.
    if (name === TIME_COLUMN || name === table.table.timeIndex || name === table.valueName) return null;
  }
  const key = encodedKeyOf(series, table, series.tagNames, series.tagValues);
  if (key === null) return null;
  series.boundTable = table;
  series.boundKey = key;
  return table;
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
  const tables: TableBindingBase[] = [];
  const tableRows: number[] = [];
  // parts[table index * shardCount + shard]
  const parts: Array<Part | undefined> = [];
  const runs = points.series.length;
  for (let i = 0; i < runs; i++) {
    const count = points.count[i] as number;
    if (count === 0) continue;
    const series = points.series[i] as ResolvedSeries;
    // Only this path binds resolved series.
    let table = series.boundTable as TableBinding | undefined;
    if (table === undefined || table.generation !== generation) {
      table = bindSeries(schema, series) ?? undefined;
      if (table === undefined) return null;
    }
    if (enterTable(table, stamp, tables, shardCount)) {
      tableRows.push(0);
      for (let s = 0; s < shardCount; s++) parts.push(undefined);
    }
    const shard = shardIn(table, series.shard);
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
    addSeries(part.keys, series, stamp, series.boundKey as EncodedKey);
    part.rows += count;
    tableRows[table.index] = (tableRows[table.index] as number) + count;
  }

  let slabBytes = 0;
  for (const part of parts) {
    if (part === undefined) continue;
    slabBytes += PartSlab.bytes(8, part.rows) * 2 + PartSlab.bytes(4, part.rows) + blobSlabBytes(part.keys.length);
  }
  const slab = new PartSlab(slabBytes);
  for (const part of parts) {
    if (part === undefined) continue;
    part.timestamps = slab.i64(part.rows);
    part.words = new Int32Array(part.timestamps.buffer, part.timestamps.byteOffset, part.rows * 2);
    part.values = slab.f64(part.rows);
    part.rowSeries = slab.u32(part.rows);
  }
  for (let i = 0; i < runs; i++) {
    const count = points.count[i] as number;
    if (count === 0) continue;
    const series = points.series[i] as ResolvedSeries;
    const table = series.boundTable as TableBinding;
    const part = parts[table.index * shardCount + shardIn(table, series.shard)] as Part;
    const from = points.start[i] as number;
    const row = part.filled;
    putMillis(part.words as Int32Array, row, points.timestamps, from, count);
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
    const finished = {
      rows: part.rows,
      keys: part.keys,
      timestamps: part.timestamps as BigInt64Array,
      rowSeries: part.rowSeries as Uint32Array,
    };
    const fields = [{ id: table.valueId, vector: { kind: 'f64' as const, values: part.values as Float64Array } }];
    (perShard[part.shard] as TableRows[]).push(partRows(table, part.shard, byRef, finished, fields, slab));
  }
  return { perShard, tableRows };
}
