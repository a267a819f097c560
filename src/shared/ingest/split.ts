/**
 * Rows to shards: splits planned inserts by series to the shards that own them and encodes one
 * WriteBatch payload per shard. Runs wherever a request was decoded (the router, or the shard
 * worker that decoded an ingest body for it), against the schema the plan was checked with.
 */
import { DELETE_MARK_COLUMN_ID, encodeWriteBatch, seriesFormOf, type TableRows } from '../codec/write-batch.js';
import { InvalidArgument } from '../errors.js';
import type { InsertColumn, StorageKeyHolder, TableInsert } from '../insert.js';
import { nextSpread, shardOfSeries, spreadsRows, tableHash } from '../partition.js';
import { keyOrderOf, seriesKeyOfTuple } from '../series-key.js';
import { blobOf, type EncodedKey, encodeKey } from '../series-key-blob.js';
import {
  type ColumnSchema,
  type DataType,
  NANOS_PER_UNIT,
  type TableSchema,
  timeUnitOf,
  type Vector,
} from '../types.js';
import { gatherVector } from '../vector-gather.js';
import { mergeModeOf, type SchemaView } from './plan.js';

/**
 * Per shard, the rows of `inserts` (tables that exist in `schema`) it owns (empty when none).
 * `keysByRef`: keys already sent to a shard go to it as references (series-key-blob.ts).
 */
export function shardPartsOf(
  inserts: TableInsert[],
  schema: SchemaView,
  shardCount: number,
  keysByRef = false,
): TableRows[][] {
  const perShard: TableRows[][] = Array.from({ length: shardCount }, () => []);
  for (const insert of inserts) {
    addShardParts(perShard, insert, schema.getTable(insert.db, insert.table) as TableSchema, keysByRef);
  }
  return perShard;
}

/** Splits one insert into `table`'s rows per shard and adds each part to its shard's list. */
export function addShardParts(
  perShard: TableRows[][],
  insert: TableInsert,
  table: TableSchema,
  keysByRef = false,
): void {
  const split = splitByShard(insert, table, perShard.length, keysByRef);
  for (let s = 0; s < split.length; s++) {
    const part = split[s];
    if (part) perShard[s]?.push(part);
  }
}

/** One encoded payload per shard (null: nothing for it), each in its own buffer. */
export function encodeShardPayloads(perShard: TableRows[][]): Array<Uint8Array | null> {
  return perShard.map((tables) => {
    if (tables.length === 0) return null;
    // A buffer of its own (write-batch-binary.ts): the payload is transferred (from the router)
    // or cloned (from a decoding shard) later.
    return encodeWriteBatch({ tables });
  });
}

/** Scales a timestamp vector from one unit to another, exactly (BigInt). */
function convertTimestamps(values: BigInt64Array, from: DataType, to: DataType): BigInt64Array {
  const fromUnit = timeUnitOf(from);
  const toUnit = timeUnitOf(to);
  if (!fromUnit || !toUnit || fromUnit === toUnit) return values;
  const fromNs = NANOS_PER_UNIT[fromUnit];
  const toNs = NANOS_PER_UNIT[toUnit];
  const out = new BigInt64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = ((values[i] as bigint) * fromNs) / toNs;
  return out;
}

/**
 * The series of the rows: each row's series number and each series' tag tuple (in `tagVectors`
 * order). Uses the parser's hint when the insert has one, so no strings are compared; otherwise
 * `seriesFormOf` finds the series from the tag values.
 */
function seriesOfRows(
  insert: TableInsert,
  tagVectors: Array<Array<string | null>>,
): { rowSeries: Uint32Array; tuples: Array<Array<string | null>> } {
  const n = insert.rowCount;
  const hint = insert.rowSeries;
  if (!hint || hint.length !== n) {
    const form = seriesFormOf(
      tagVectors.map((values, id) => ({ id, values })),
      n,
    );
    return { rowSeries: form.rowSeries, tuples: form.seriesTags };
  }
  const tuples: Array<Array<string | null>> = [];
  for (let r = 0; r < n; r++) {
    const k = hint[r] as number;
    if (tuples[k] === undefined) tuples[k] = tagVectors.map((v) => v[r] ?? null);
  }
  return { rowSeries: hint, tuples };
}

/**
 * The storage key of each series (see src/shared/series-key.ts), from its holder while the table
 * and its tag column ids are those the key was built for; otherwise built and kept there, with
 * its UTF-8 bytes and hash for the key blob. `encoded` is null when some key cannot travel in a
 * blob (then the keys go as strings).
 */
function storageKeysOf(
  holders: StorageKeyHolder[],
  tuples: Array<Array<string | null>>,
  tagIds: number[],
  tableId: number,
): { keys: string[]; encoded: EncodedKey[] | null } {
  const idsKey = tagIds.join(',');
  const order = keyOrderOf(tagIds);
  const keys = new Array<string>(tuples.length);
  let encoded: EncodedKey[] | null = new Array<EncodedKey>(tuples.length);
  for (let k = 0; k < tuples.length; k++) {
    const holder = holders[k] as StorageKeyHolder;
    let cached = holder.storageKey;
    if (cached === undefined || cached.tableId !== tableId || cached.idsKey !== idsKey) {
      const key = seriesKeyOfTuple(order, tuples[k] as Array<string | null>);
      cached = { tableId, idsKey, key, encoded: encodeKey(key) };
      holder.storageKey = cached;
    }
    keys[k] = cached.key;
    if (encoded !== null) {
      if (cached.encoded === null) encoded = null;
      else encoded[k] = cached.encoded;
    }
  }
  return { keys, encoded };
}

/**
 * Splits one table's rows into per-shard `TableRows`, keyed by catalog column ids. A row's shard
 * is decided by its series (the table plus its non-null tags, sorted by tag name), computed once
 * per series; tags are sent once per series (see `TableRows`).
 */
function splitByShard(
  insert: TableInsert,
  table: TableSchema,
  shards: number,
  byRef: boolean,
): Array<TableRows | undefined> {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const timeColumn = insert.columns.find((c) => c.semantic === 'TIMESTAMP') as InsertColumn;
  const indexColumn = byName.get(table.timeIndex) as ColumnSchema;
  const timestamps = convertTimestamps(timeColumn.vector.values as BigInt64Array, timeColumn.type, indexColumn.type);
  if (timeColumn.vector.valid?.includes(0)) throw new InvalidArgument(`Time index ${table.timeIndex} cannot be null`);

  const tagColumns = insert.columns
    .filter((c) => c.semantic === 'TAG')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const fieldColumns = insert.columns.filter((c) => c.semantic === 'FIELD');
  const tagNames = tagColumns.map((c) => c.name);
  const tagIds = tagColumns.map((c) => (byName.get(c.name) as ColumnSchema).id);
  const tagVectors = tagColumns.map((c) => c.vector.values as Array<string | null>);
  const fields = insert.deletes
    ? [
        {
          id: DELETE_MARK_COLUMN_ID,
          vector: { kind: 'bool', values: new Uint8Array(insert.rowCount).fill(1) } as Vector,
        },
      ]
    : fieldColumns.map((c) => ({ id: (byName.get(c.name) as ColumnSchema).id, vector: c.vector }));
  const base = tableHash(insert.db, insert.table);
  const mergeMode = mergeModeOf(table);

  const n = insert.rowCount;
  const resolved = insert.series && insert.rowSeries?.length === n ? insert.series : undefined;
  const { rowSeries, tuples } = resolved
    ? { rowSeries: insert.rowSeries as Uint32Array, tuples: resolved.tuples }
    : seriesOfRows(insert, tagVectors);
  const seriesCount = tuples.length;
  const tupleOf = (k: number): Array<string | null> => tuples[k] as Array<string | null>;
  let seriesShard: Uint16Array = new Uint16Array(seriesCount);
  if (resolved) seriesShard = resolved.shards;
  else if (shards > 1) {
    for (let k = 0; k < seriesCount; k++) seriesShard[k] = shardOfSeries(base, tagNames, tupleOf(k), shards);
  }
  const spread = spreadsRows(table) && shards > 1;
  if (spread) {
    // Rows of an append-mode table go to one shard in turn; its tombstones to every shard, since
    // the rows they hide may be in any of them.
    seriesShard = new Uint16Array(seriesCount).fill(nextSpread(table.id, shards));
  }
  const counts = new Uint32Array(shards);
  for (let r = 0; r < n; r++) {
    const s = seriesShard[rowSeries[r] as number] as number;
    counts[s] = (counts[s] as number) + 1;
  }
  if (spread && insert.deletes) counts.fill(n);

  const stored = resolved?.keyHolders ? storageKeysOf(resolved.keyHolders, tuples, tagIds, table.id) : undefined;
  const keys = stored?.keys;
  const encoded = stored?.encoded ?? null;
  const out: Array<TableRows | undefined> = new Array(shards);
  for (let s = 0; s < shards; s++) {
    const count = counts[s] as number;
    if (count === 0) continue;
    if (count === n) {
      out[s] = {
        tableId: table.id,
        mergeMode,
        rowCount: n,
        timestamps,
        tagIds,
        seriesTags: keys ? [] : tuples,
        seriesKeys: encoded ? undefined : keys,
        seriesKeyBlob: encoded ? blobOf(encoded, undefined, { shard: s, byRef }) : undefined,
        rowSeries,
        fields,
      };
      continue;
    }
    const rows = new Uint32Array(count);
    const localSeries = new Uint32Array(count);
    const localIndex = new Int32Array(seriesCount).fill(-1);
    // The part's series, as tag tuples, key strings or (for the blob) indices into `keys`.
    const seriesTags: Array<Array<string | null>> = [];
    const seriesKeys: string[] = [];
    const picked: number[] = [];
    const ts = new BigInt64Array(count);
    let k = 0;
    for (let r = 0; r < n; r++) {
      const g = rowSeries[r] as number;
      if (seriesShard[g] !== s) continue;
      let local = localIndex[g] as number;
      if (local < 0) {
        local = encoded ? picked.length : keys ? seriesKeys.length : seriesTags.length;
        localIndex[g] = local;
        if (encoded) picked.push(g);
        else if (keys) seriesKeys.push(keys[g] as string);
        else seriesTags.push(tupleOf(g));
      }
      rows[k] = r;
      localSeries[k] = local;
      ts[k] = timestamps[r] as bigint;
      k++;
    }
    out[s] = {
      tableId: table.id,
      mergeMode,
      rowCount: count,
      timestamps: ts,
      tagIds,
      seriesTags,
      seriesKeys: keys && !encoded ? seriesKeys : undefined,
      seriesKeyBlob: encoded ? blobOf(encoded, picked, { shard: s, byRef }) : undefined,
      rowSeries: localSeries,
      fields: fields.map((f) => ({ id: f.id, vector: gatherVector(f.vector, rows, count) })),
    };
  }
  return out;
}
