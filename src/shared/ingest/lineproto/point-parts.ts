/**
 * Parsed line-protocol points straight into per-shard `TableRows`, for requests whose every point
 * is bound to the schema: its measurement is a table with a nanosecond time index, each tag a
 * String tag of it, each field a field column of the field's type. Then there is nothing to plan,
 * and the per-measurement inserts (to-inserts.ts) and their split by shard (../split.ts) are
 * skipped: each value is copied once, into the part of its table bound for its series' shard.
 * Any other request returns null and takes that general path, which also words every refusal.
 *
 * As there, a field the request carries for a table is sent with every part of it (NULL where
 * a point lacks it), and fields it does not carry stay absent (read as their default).
 *
 * A series' binding (table, storage key, encoded key, shard) is kept on the parser's series
 * record per catalog generation; the storage key and shard are the ones the general path
 * computes, and the encoded key is reused, so key ids stay stable whichever path a request takes.
 */
import type { TableRows } from '../../codec/write-batch.js';
import { nextSpread, shardOfSeries, spreadsRows, tableHash } from '../../partition.js';
import { seriesKeyOf } from '../../series-key.js';
import { blobOf, type EncodedKey, encodeKey } from '../../series-key-blob.js';
import type { DataType, PhysicalKind, TableSchema, Vector } from '../../types.js';
import { mergeModeOf } from '../plan.js';
import type { SchemaSnapshot } from '../schema-snapshot.js';
import { newStamp } from '../series-inserts.js';
import type { FieldKind, LinePoint, LineSeries, ParsedBatch, Precision } from './parser.js';
import { NANOS_PER_PRECISION, TIME_INDEX_COLUMN } from './to-inserts.js';

const TYPE_OF_KIND: Record<FieldKind, DataType> = {
  float: 'Float64',
  integer: 'Int64',
  uinteger: 'UInt64',
  string: 'String',
  boolean: 'Boolean',
};
const PHYSICAL_OF_KIND: Record<FieldKind, PhysicalKind> = {
  float: 'f64',
  integer: 'i64',
  uinteger: 'u64',
  string: 'str',
  boolean: 'bool',
};

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** A table as the direct path writes it, for one catalog generation. */
interface TableBinding {
  readonly generation: number;
  readonly db: string;
  /** The shard count its series' shards are for (a server's never changes). */
  readonly shards: number;
  readonly table: TableSchema;
  readonly mergeMode: TableRows['mergeMode'];
  /** Ids of the table's tags, ascending (keys travel whole, so any superset will do). */
  readonly tagIds: number[];
  readonly tagIdByName: Map<string, number>;
  /** Field columns by name: id and the line-protocol kind whose type they have. */
  readonly fieldByName: Map<string, { id: number; kind: PhysicalKind }>;
  readonly hash: number;
  /** The field ids of the last field-key list bound (parsed points share those lists). */
  lastKeys: readonly string[] | null;
  lastKinds: readonly FieldKind[] | null;
  lastIds: Int32Array | null;
  /** Whether its rows go to the shards in turn rather than by series (partition.ts). */
  readonly spread: boolean;
  /** Per request (valid while `stamp` is its): position, shard when `spread` (else -1), fields carried and their positions by id. */
  stamp: number;
  index: number;
  requestShard: number;
  fields: Array<{ id: number; kind: PhysicalKind }>;
  fieldAt: Map<number, number>;
  /** Positions in `fields` of each bound field-id list, per request. */
  positions: Map<Int32Array, Int32Array>;
}

/** A series bound to a `TableBinding`; kept on the parser's series record. */
export interface LineBinding {
  readonly table: TableBinding;
  readonly key: EncodedKey;
  readonly shard: number;
}

/** Table bindings of the current generation, by database and measurement. */
let bindings = new Map<string, Map<string, TableBinding | null>>();
let bindingsGeneration = -1;

function tableBinding(schema: SchemaSnapshot, db: string, measurement: string, shards: number): TableBinding | null {
  if (bindingsGeneration !== schema.generation) {
    bindings = new Map();
    bindingsGeneration = schema.generation;
  }
  let ofDb = bindings.get(db);
  if (ofDb === undefined) bindings.set(db, (ofDb = new Map()));
  let bound = ofDb.get(measurement);
  if (bound === undefined || (bound !== null && bound.shards !== shards)) {
    bound = bindTable(schema.generation, db, shards, schema.getTable(db, measurement));
    ofDb.set(measurement, bound);
  }
  return bound;
}

function bindTable(
  generation: number,
  db: string,
  shards: number,
  table: TableSchema | undefined,
): TableBinding | null {
  if (table === undefined) return null;
  const time = table.columns.find((c) => c.name === table.timeIndex);
  if (time?.type !== 'TimestampNanosecond') return null;
  const tagIdByName = new Map<string, number>();
  const fieldByName = new Map<string, { id: number; kind: PhysicalKind }>();
  for (const c of table.columns) {
    if (c.semantic === 'TAG' && c.type === 'String') tagIdByName.set(c.name, c.id);
    if (c.semantic !== 'FIELD') continue;
    for (const [kind, type] of Object.entries(TYPE_OF_KIND)) {
      if (type === c.type) fieldByName.set(c.name, { id: c.id, kind: PHYSICAL_OF_KIND[kind as FieldKind] });
    }
  }
  return {
    generation,
    db,
    shards,
    table,
    mergeMode: mergeModeOf(table),
    tagIds: [...tagIdByName.values()].sort((a, b) => a - b),
    tagIdByName,
    fieldByName,
    hash: tableHash(db, table.name),
    lastKeys: null,
    lastKinds: null,
    lastIds: null,
    spread: spreadsRows(table),
    stamp: 0,
    index: 0,
    requestShard: -1,
    fields: [],
    fieldAt: new Map(),
    positions: new Map(),
  };
}

/** Binds a point's series for the schema's generation, or null when the general path must take it. */
function bindSeries(
  schema: SchemaSnapshot,
  db: string,
  shards: number,
  point: LinePoint,
  series: LineSeries,
): LineBinding | null {
  const table = tableBinding(schema, db, point.measurement, shards);
  if (table === null) return null;
  const names = point.tagKeys;
  const values = point.tagValues;
  const ids = new Array<number>(names.length);
  for (let j = 0; j < names.length; j++) {
    const name = names[j] as string;
    if (name === TIME_INDEX_COLUMN || name === table.table.timeIndex) return null;
    const id = table.tagIdByName.get(name);
    if (id === undefined) return null;
    ids[j] = id;
  }
  const byId = ids.map((_, j) => j).sort((a, b) => (ids[a] as number) - (ids[b] as number));
  const key = seriesKeyOf(
    byId.map((j) => ids[j] as number),
    byId.map((j) => values[j] as string),
  );
  const byName = ids.map((_, j) => j).sort((a, b) => ((names[a] as string) < (names[b] as string) ? -1 : 1));
  const shard = shardOfSeries(
    table.hash,
    byName.map((j) => names[j] as string),
    byName.map((j) => values[j] as string),
    shards,
  );
  const held = series.storageKey;
  let encoded: EncodedKey | null;
  if (held !== undefined && held.tableId === table.table.id && held.key === key) encoded = held.encoded;
  else {
    encoded = encodeKey(key);
    series.storageKey = { tableId: table.table.id, idsKey: '', key, encoded };
  }
  if (encoded === null) return null;
  const binding = { table, key: encoded, shard };
  series.binding = binding;
  return binding;
}

/** The column ids of a point's fields, or null when one is not a field of its type. */
function fieldIdsOf(table: TableBinding, keys: readonly string[], kinds: readonly FieldKind[]): Int32Array | null {
  if (table.lastKeys === keys && table.lastKinds === kinds) return table.lastIds;
  const ids = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const field = table.fieldByName.get(keys[i] as string);
    if (field === undefined || field.kind !== PHYSICAL_OF_KIND[kinds[i] as FieldKind]) return null;
    ids[i] = field.id;
  }
  table.lastKeys = keys;
  table.lastKinds = kinds;
  table.lastIds = ids;
  return ids;
}

interface Part {
  table: TableBinding;
  shard: number;
  rows: number;
  keys: EncodedKey[];
  filled: number;
  timestamps: BigInt64Array;
  rowSeries: Uint32Array;
  columns: Array<{ values: Vector['values']; valid: Uint8Array | undefined }>;
}

function emptyValues(kind: PhysicalKind, n: number): Vector['values'] {
  switch (kind) {
    case 'f64':
      return new Float64Array(n);
    case 'i64':
      return new BigInt64Array(n);
    case 'u64':
      return new BigUint64Array(n);
    case 'bool':
      return new Uint8Array(n);
    case 'str':
      return new Array<string | null>(n).fill(null);
  }
}

/**
 * Per shard, the `TableRows` of the batch, and the rows per table in first-seen order; null when
 * some point is not bound and cannot be, or its timestamp is missing or out of range (the general
 * path words those errors).
 */
export function pointParts(
  batch: ParsedBatch,
  db: string,
  precision: Precision,
  nowNs: bigint,
  schema: SchemaSnapshot,
  shardCount: number,
  byRef: boolean,
): { perShard: TableRows[][]; tableRows: number[] } | null {
  const points = batch.points;
  if (points.length === 0) return null;
  const stamp = newStamp();
  const generation = schema.generation;
  const tables: TableBinding[] = [];
  const tableRows: number[] = [];
  const parts: Array<Part | undefined> = [];
  const pointFields = new Array<Int32Array>(points.length);
  for (let p = 0; p < points.length; p++) {
    const point = points[p] as LinePoint;
    const series = point.series;
    if (series === undefined) return null;
    let binding = series.binding;
    // A series record is the text of measurement and tags, whatever the database it went to.
    if (
      binding === undefined ||
      binding.table.generation !== generation ||
      binding.table.db !== db ||
      binding.table.shards !== shardCount
    ) {
      binding = bindSeries(schema, db, shardCount, point, series) ?? undefined;
      if (binding === undefined) return null;
    }
    const table = binding.table;
    if (table.stamp !== stamp) {
      table.stamp = stamp;
      table.index = tables.length;
      table.requestShard = table.spread && shardCount > 1 ? nextSpread(shardCount) : -1;
      table.fields = [];
      table.fieldAt = new Map();
      table.positions = new Map();
      tables.push(table);
      tableRows.push(0);
      for (let s = 0; s < shardCount; s++) parts.push(undefined);
    }
    const ids = fieldIdsOf(table, point.fieldKeys, point.fieldKinds);
    if (ids === null) return null;
    if (!table.positions.has(ids)) {
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as number;
        if (table.fieldAt.has(id)) continue;
        table.fieldAt.set(id, table.fields.length);
        table.fields.push({ id, kind: PHYSICAL_OF_KIND[point.fieldKinds[i] as FieldKind] });
      }
      table.positions.set(ids, ids);
    }
    pointFields[p] = ids;
    const shard = table.requestShard >= 0 ? table.requestShard : binding.shard;
    const at = table.index * shardCount + shard;
    let part = parts[at];
    if (part === undefined) {
      part = {
        table,
        shard,
        rows: 0,
        keys: [],
        filled: 0,
        timestamps: EMPTY_TIMES,
        rowSeries: EMPTY_SERIES,
        columns: [],
      };
      parts[at] = part;
    }
    if (series.stamp !== stamp) {
      series.stamp = stamp;
      series.stampIndex = part.keys.length;
      part.keys.push(binding.key);
    }
    part.rows++;
    tableRows[table.index] = (tableRows[table.index] as number) + 1;
  }

  for (const table of tables) {
    // Now that the request's fields of the table are known, each field-id list's positions.
    for (const ids of table.positions.keys()) {
      table.positions.set(
        ids,
        Int32Array.from(ids, (id) => table.fieldAt.get(id) as number),
      );
    }
  }
  for (const part of parts) {
    if (part === undefined) continue;
    part.timestamps = new BigInt64Array(part.rows);
    part.rowSeries = new Uint32Array(part.rows);
    part.columns = part.table.fields.map((f) => ({
      values: emptyValues(f.kind, part.rows),
      valid: f.kind === 'str' ? undefined : new Uint8Array(part.rows),
    }));
  }

  const scale = NANOS_PER_PRECISION[precision];
  const nowTruncated = nowNs - (nowNs % scale);
  for (let p = 0; p < points.length; p++) {
    const point = points[p] as LinePoint;
    const series = point.series as LineSeries;
    const binding = series.binding as LineBinding;
    const table = binding.table;
    const part = parts[
      table.index * shardCount + (table.requestShard >= 0 ? table.requestShard : binding.shard)
    ] as Part;
    const row = part.filled++;
    const ts = point.timestamp;
    let nanos: bigint;
    if (ts === null) {
      if (precision === 'm' || precision === 'h') return null;
      nanos = nowTruncated;
    } else {
      nanos = scale === 1n ? ts : ts * scale;
      if (nanos < I64_MIN || nanos > I64_MAX) return null;
    }
    part.timestamps[row] = nanos;
    part.rowSeries[row] = series.stampIndex as number;
    const positions = binding.table.positions.get(pointFields[p] as Int32Array) as Int32Array;
    const values = point.fieldValues;
    for (let i = 0; i < positions.length; i++) {
      const column = part.columns[positions[i] as number] as Part['columns'][number];
      const value = values[i];
      switch (point.fieldKinds[i]) {
        case 'float':
          (column.values as Float64Array)[row] = value as number;
          break;
        case 'integer':
          (column.values as BigInt64Array)[row] = value as bigint;
          break;
        case 'uinteger':
          (column.values as BigUint64Array)[row] = value as bigint;
          break;
        case 'boolean':
          (column.values as Uint8Array)[row] = value === true ? 1 : 0;
          break;
        case 'string':
          (column.values as Array<string | null>)[row] = value as string;
          break;
      }
      if (column.valid !== undefined) column.valid[row] = 1;
    }
  }

  const perShard: TableRows[][] = Array.from({ length: shardCount }, () => []);
  for (const part of parts) {
    if (part === undefined) continue;
    const { table } = part;
    (perShard[part.shard] as TableRows[]).push({
      tableId: table.table.id,
      mergeMode: table.mergeMode,
      rowCount: part.rows,
      timestamps: part.timestamps,
      tagIds: table.tagIds,
      seriesTags: [],
      rowSeries: part.rowSeries,
      seriesKeyBlob: blobOf(part.keys, undefined, { shard: part.shard, byRef }),
      fields: table.fields.map((f, k) => {
        const column = part.columns[k] as Part['columns'][number];
        // A validity array where every row is present says nothing (Vector rules).
        const valid = column.valid !== undefined && column.valid.indexOf(0) >= 0 ? column.valid : undefined;
        return { id: f.id, vector: { kind: f.kind, values: column.values, valid } };
      }),
    });
  }
  return { perShard, tableRows };
}

const EMPTY_TIMES = new BigInt64Array(0);
const EMPTY_SERIES = new Uint32Array(0);
