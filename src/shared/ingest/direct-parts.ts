/**
 * What the direct write paths share (sample-parts.ts for remote write and OpenTSDB,
 * lineproto/point-parts.ts): a request whose every series is bound to the schema goes straight
 * into per-shard `TableRows`, with no inserts to plan or split. Here: the table bindings of one
 * catalog generation, a series' storage key and encoded key, and the finished parts.
 */
import type { TableRows } from '../codec/write-batch.js';
import type { StorageKeyHolder } from '../insert.js';
import { nextSpread, spreadsRows } from '../partition.js';
import { seriesKeyOf } from '../series-key.js';
import { type BlobSlab, blobOf, type EncodedKey, encodeKey } from '../series-key-blob.js';
import type { TableSchema, Vector } from '../types.js';
import { mergeModeOf } from './plan.js';

/** What every direct path knows of a table it writes, for one catalog generation. */
export interface TableBindingBase {
  readonly generation: number;
  readonly table: TableSchema;
  readonly mergeMode: TableRows['mergeMode'];
  /** Ids of the table's tags, ascending: the `tagIds` of its parts (keys travel whole, so any superset will do). */
  readonly tagIds: number[];
  /** String tag column ids by name. */
  readonly tagIdByName: Map<string, number>;
  /** Whether its rows go to the shards in turn rather than by series (partition.ts). */
  readonly spread: boolean;
  /** Its position among the tables of the request being split, valid while `stamp` is its. */
  stamp: number;
  index: number;
  /** The shard of all its rows in that request when `spread`, else -1. */
  requestShard: number;
}

export function tableBindingBase(generation: number, table: TableSchema): TableBindingBase {
  const tagIdByName = new Map<string, number>();
  for (const c of table.columns) if (c.semantic === 'TAG' && c.type === 'String') tagIdByName.set(c.name, c.id);
  return {
    generation,
    table,
    mergeMode: mergeModeOf(table),
    tagIds: [...tagIdByName.values()].sort((a, b) => a - b),
    tagIdByName,
    spread: spreadsRows(table),
    stamp: 0,
    index: 0,
    requestShard: -1,
  };
}

/** Table bindings (or null: the table cannot be written directly) of the current generation, by two keys. */
export class GenerationBindings<T> {
  private generation = -1;
  private readonly byOuter = new Map<string, Map<string, T | null>>();

  get(generation: number, outer: string, inner: string, bind: () => T | null): T | null {
    if (generation !== this.generation) {
      this.byOuter.clear();
      this.generation = generation;
    }
    let byInner = this.byOuter.get(outer);
    if (byInner === undefined) this.byOuter.set(outer, (byInner = new Map()));
    let bound = byInner.get(inner);
    if (bound === undefined) {
      bound = bind();
      byInner.set(inner, bound);
    }
    return bound;
  }
}

/** Numbers a table among the request's tables the first time the request meets it (`stamp`). */
export function enterTable(
  table: TableBindingBase,
  stamp: number,
  tables: TableBindingBase[],
  shards: number,
): boolean {
  if (table.stamp === stamp) return false;
  table.stamp = stamp;
  table.index = tables.length;
  table.requestShard = table.spread && shards > 1 ? nextSpread(table.table.id, shards) : -1;
  tables.push(table);
  return true;
}

/** The shard a series placed on `seriesShard` goes to in this request (its table's turn when spread). */
export function shardIn(table: TableBindingBase, seriesShard: number): number {
  return table.requestShard >= 0 ? table.requestShard : seriesShard;
}

/** Numbers a series among its part's series the first time the request meets it (`stamp`). */
export function addSeries(
  keys: EncodedKey[],
  series: { stamp?: number | undefined; stampIndex?: number | undefined },
  stamp: number,
  key: EncodedKey,
): void {
  if (series.stamp === stamp) return;
  series.stamp = stamp;
  series.stampIndex = keys.length;
  keys.push(key);
}

/**
 * The storage key of a series with tags `names`/`values` in `table` (null when a tag is not a
 * String tag of it), and its encoded key: the one `holder` already has for this key and table
 * (from either path), else a new one kept there. A new one would mint a new key id, and the
 * shards would be sent its bytes again.
 */
export function encodedKeyOf(
  holder: StorageKeyHolder,
  table: TableBindingBase,
  names: readonly string[],
  values: readonly string[],
): EncodedKey | null {
  const ids = new Array<number>(names.length);
  for (let j = 0; j < names.length; j++) {
    const id = table.tagIdByName.get(names[j] as string);
    if (id === undefined) return null;
    ids[j] = id;
  }
  const order = ids.map((_, j) => j).sort((a, b) => (ids[a] as number) - (ids[b] as number));
  const key = seriesKeyOf(
    order.map((j) => ids[j] as number),
    order.map((j) => values[j] as string),
  );
  const held = holder.storageKey;
  if (held !== undefined && held.tableId === table.table.id && held.key === key) return held.encoded;
  const encoded = encodeKey(key);
  holder.storageKey = { tableId: table.table.id, idsKey: '', key, encoded };
  return encoded;
}

/** One table's rows bound for one shard, finished. */
export function partRows(
  table: TableBindingBase,
  shard: number,
  byRef: boolean,
  part: { rows: number; keys: EncodedKey[]; timestamps: BigInt64Array; rowSeries: Uint32Array },
  fields: Array<{ id: number; vector: Vector }>,
  slab?: BlobSlab,
): TableRows {
  return {
    tableId: table.table.id,
    mergeMode: table.mergeMode,
    rowCount: part.rows,
    timestamps: part.timestamps,
    tagIds: table.tagIds,
    seriesTags: [],
    rowSeries: part.rowSeries,
    seriesKeyBlob: blobOf(part.keys, undefined, { shard, byRef }, slab),
    fields,
  };
}
