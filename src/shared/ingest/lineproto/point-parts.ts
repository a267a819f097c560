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
import { shardOfSeries, tableHash } from '../../partition.js';
import { blobSlabBytes, type EncodedKey } from '../../series-key-blob.js';
import { type DataType, type PhysicalKind, physicalKindOf, type TableSchema, type Vector } from '../../types.js';
import {
  addSeries,
  encodedKeyOf,
  enterTable,
  GenerationBindings,
  partRows,
  shardIn,
  type TableBindingBase,
  tableBindingBase,
} from '../direct-parts.js';
import { PartSlab } from '../part-slab.js';
import type { SchemaSnapshot } from '../schema-snapshot.js';
import { newStamp } from '../series-inserts.js';
import { DATA_TYPE_OF_KIND, NANOS_PER_PRECISION, nanosOf, setField, TIME_INDEX_COLUMN } from './to-inserts.js';
import type { FieldKind, LinePoint, LineSeries, ParsedBatch, Precision } from './types.js';

/** Column types a line-protocol field can be written to (each kind has exactly one). */
const FIELD_TYPES = new Set<DataType>(Object.values(DATA_TYPE_OF_KIND));

/** A table as this path writes it, for one catalog generation. */
interface TableBinding extends TableBindingBase {
  readonly db: string;
  /** The shard count its series' shards are for (a server's never changes). */
  readonly shards: number;
  /** Field columns by name, of the types line protocol writes. */
  readonly fieldByName: Map<string, { id: number; type: DataType }>;
  readonly hash: number;
  /** The field ids of the last field-key list bound (parsed points share those lists). */
  lastKeys: readonly string[] | null;
  lastKinds: readonly FieldKind[] | null;
  lastIds: Int32Array | null;
  /** Per request (valid while `stamp` is its): fields carried, and their positions by id. */
  fields: Array<{ id: number; kind: PhysicalKind }>;
  fieldAt: Map<number, number>;
  /** Positions in `fields` of each bound field-id list, per request. */
  positions: Map<Int32Array, Int32Array>;
}

/** Table bindings by database and (shard count, measurement). */
const bindings = new GenerationBindings<TableBinding>();

function bindTable(
  generation: number,
  db: string,
  shards: number,
  table: TableSchema | undefined,
): TableBinding | null {
  if (table === undefined) return null;
  const time = table.columns.find((c) => c.name === table.timeIndex);
  if (time?.type !== 'TimestampNanosecond') return null;
  const fieldByName = new Map<string, { id: number; type: DataType }>();
  for (const c of table.columns) {
    if (c.semantic === 'FIELD' && FIELD_TYPES.has(c.type)) fieldByName.set(c.name, { id: c.id, type: c.type });
  }
  return {
    ...tableBindingBase(generation, table),
    db,
    shards,
    fieldByName,
    hash: tableHash(db, table.name),
    lastKeys: null,
    lastKinds: null,
    lastIds: null,
    fields: [],
    fieldAt: new Map(),
    positions: new Map(),
  };
}

/**
 * Binds a point's series for the schema's generation (`boundTable`, `boundKey`, `boundShard` of
 * its record), or returns null when the general path must take it.
 */
function bindSeries(
  schema: SchemaSnapshot,
  db: string,
  shards: number,
  point: LinePoint,
  series: LineSeries,
): TableBinding | null {
  const generation = schema.generation;
  const table = bindings.get(generation, db, `${shards}/${point.measurement}`, () =>
    bindTable(generation, db, shards, schema.getTable(db, point.measurement)),
  );
  if (table === null) return null;
  const names = point.tagKeys;
  const values = point.tagValues;
  for (const name of names) if (name === TIME_INDEX_COLUMN || name === table.table.timeIndex) return null;
  const key = encodedKeyOf(series, table, names, values);
  if (key === null) return null;
  // Placement by the series' own tags in name order, as the general path places it.
  const byName = names.map((_, j) => j).sort((a, b) => ((names[a] as string) < (names[b] as string) ? -1 : 1));
  const shard = shardOfSeries(
    table.hash,
    byName.map((j) => names[j] as string),
    byName.map((j) => values[j] as string),
    shards,
  );
  series.boundTable = table;
  series.boundKey = key;
  series.boundShard = shard;
  return table;
}

/** The column ids of a point's fields, or null when one is not a field of its type. */
function fieldIdsOf(table: TableBinding, keys: readonly string[], kinds: readonly FieldKind[]): Int32Array | null {
  if (table.lastKeys === keys && table.lastKinds === kinds) return table.lastIds;
  const ids = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const field = table.fieldByName.get(keys[i] as string);
    if (field === undefined || field.type !== DATA_TYPE_OF_KIND[kinds[i] as FieldKind]) return null;
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
    // Only this path binds line-protocol series.
    let table = series.boundTable as TableBinding | undefined;
    // A series record is the text of measurement and tags, whatever the database it went to.
    if (table === undefined || table.generation !== generation || table.db !== db || table.shards !== shardCount) {
      table = bindSeries(schema, db, shardCount, point, series) ?? undefined;
      if (table === undefined) return null;
    }
    if (enterTable(table, stamp, tables, shardCount)) {
      table.fields = [];
      table.fieldAt = new Map();
      table.positions = new Map();
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
        table.fields.push({ id, kind: physicalKindOf(DATA_TYPE_OF_KIND[point.fieldKinds[i] as FieldKind]) });
      }
      table.positions.set(ids, ids);
    }
    pointFields[p] = ids;
    const shard = shardIn(table, series.boundShard as number);
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
    addSeries(part.keys, series, stamp, series.boundKey as EncodedKey);
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
  let slabBytes = 0;
  for (const part of parts) {
    if (part === undefined) continue;
    slabBytes += PartSlab.bytes(8, part.rows) + PartSlab.bytes(4, part.rows) + blobSlabBytes(part.keys.length);
    for (const f of part.table.fields) {
      if (f.kind !== 'str') slabBytes += PartSlab.valueBytes(f.kind, part.rows) + PartSlab.bytes(1, part.rows);
    }
  }
  const slab = new PartSlab(slabBytes);
  for (const part of parts) {
    if (part === undefined) continue;
    part.timestamps = slab.i64(part.rows);
    part.rowSeries = slab.u32(part.rows);
    part.columns = part.table.fields.map((f) => ({
      values: slab.values(f.kind, part.rows),
      valid: f.kind === 'str' ? undefined : slab.u8(part.rows),
    }));
  }

  const scale = NANOS_PER_PRECISION[precision];
  const nowTruncated = nowNs - (nowNs % scale);
  for (let p = 0; p < points.length; p++) {
    const point = points[p] as LinePoint;
    const series = point.series as LineSeries;
    const table = series.boundTable as TableBinding;
    const part = parts[table.index * shardCount + shardIn(table, series.boundShard as number)] as Part;
    const row = part.filled++;
    const nanos = nanosOf(point, precision, scale, nowTruncated);
    if (nanos === null) return null;
    part.timestamps[row] = nanos;
    part.rowSeries[row] = series.stampIndex as number;
    const positions = table.positions.get(pointFields[p] as Int32Array) as Int32Array;
    const values = point.fieldValues;
    for (let i = 0; i < positions.length; i++) {
      const column = part.columns[positions[i] as number] as Part['columns'][number];
      setField(column.values, row, point.fieldKinds[i] as FieldKind, values[i]);
      if (column.valid !== undefined) column.valid[row] = 1;
    }
  }

  const perShard: TableRows[][] = Array.from({ length: shardCount }, () => []);
  for (const part of parts) {
    if (part === undefined) continue;
    const fields = part.table.fields.map((f, k) => {
      const column = part.columns[k] as Part['columns'][number];
      // A validity array where every row is present says nothing (Vector rules).
      const valid = column.valid !== undefined && column.valid.indexOf(0) >= 0 ? column.valid : undefined;
      const vector: Vector = { kind: f.kind, values: column.values, valid };
      return { id: f.id, vector };
    });
    (perShard[part.shard] as TableRows[]).push(partRows(part.table, part.shard, byRef, part, fields, slab));
  }
  return { perShard, tableRows };
}

const EMPTY_TIMES = new BigInt64Array(0);
const EMPTY_SERIES = new Uint32Array(0);
