/**
 * Parsed line-protocol points → one `TableInsert` per measurement (reference §1.2, §0.6).
 *
 * Column order per table follows GreptimeDB's row writer, so an auto-created table DESCRIBEs the
 * same: the first point's tags, then its fields, then `greptime_timestamp`, then any column a later
 * point adds, in first-seen order. The first use of a column fixes its type and role for the whole
 * request; a later point disagreeing rejects the request (datatype checked before role).
 */
import { InvalidArgument } from '../../errors.js';
import type { InsertColumn, TableInsert } from '../../insert.js';
import { intern } from '../../intern.js';
import { shardOfSeries, tableHash } from '../../partition.js';
import type { DataType, Vector } from '../../types.js';
import { newStamp } from '../series-inserts.js';
import type { FieldKind, FieldValue, LinePoint, LineSeries, ParsedBatch, Precision } from './types.js';

/** Name of the time index column of line-protocol tables. */
export const TIME_INDEX_COLUMN = 'greptime_timestamp';

/** Nanoseconds per unit of each request precision. */
export const NANOS_PER_PRECISION: Record<Precision, bigint> = {
  ns: 1n,
  us: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** GreptimeDB's ColumnDataType codes, as its "datatype incompatible" errors print them. */
const TYPE_CODE_OF_KIND: Record<FieldKind, number> = { float: 10, integer: 4, uinteger: 8, string: 12, boolean: 0 };
const TYPE_CODE_STRING = 12;
const TYPE_CODE_TIMESTAMP_NS = 18;
/** GreptimeDB's SemanticType codes, as its "semantic_type incompatible" errors print them. */
const SEMANTIC_CODE_TAG = 0;
const SEMANTIC_CODE_FIELD = 1;

export const DATA_TYPE_OF_KIND: Record<FieldKind, DataType> = {
  float: 'Float64',
  integer: 'Int64',
  uinteger: 'UInt64',
  string: 'String',
  boolean: 'Boolean',
};

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Role of a column in one table of the request. 'tag' and 'time' have fixed types. */
type ColumnRole = FieldKind | 'tag' | 'time';

interface ColumnSlot {
  name: string;
  role: ColumnRole;
  /** Position in the table's column list. */
  index: number;
}

/** Accumulates one measurement's rows: pass 1 resolves columns, pass 2 fills vectors. */
interface TableBuilder {
  table: string;
  points: LinePoint[];
  slotsByName: Map<string, ColumnSlot>;
  slots: ColumnSlot[];
  /** Per point, the column index of each tag / field (shared arrays when the key shape repeats). */
  tagSlots: number[][];
  fieldSlots: number[][];
  /** Key arrays and resolutions of the previous point, reused when the next has the same keys. */
  lastTagKeys: readonly string[] | null;
  lastTagSlots: number[];
  lastFieldKeys: readonly string[] | null;
  lastFieldKinds: readonly FieldKind[] | null;
  lastFieldSlots: number[];
}

/**
 * Groups points by measurement into column-wise inserts for database `db`. Timestamps are scaled
 * from `precision` to nanoseconds exactly (BigInt); a point without one gets `nowNs` truncated to
 * the precision. Throws `InvalidArgument` on type or role conflicts, timestamp overflow, or a
 * missing timestamp with precision `m`/`h`. With the cluster's shard count `shards`, parsed
 * points come out in series form (see `SeriesForm`).
 */
export function toTableInserts(
  batch: ParsedBatch,
  db: string,
  precision: Precision,
  nowNs: bigint,
  shards?: number,
): TableInsert[] {
  const builders = new Map<string, TableBuilder>();
  for (const point of batch.points) {
    let builder = builders.get(point.measurement);
    if (builder === undefined) {
      builder = newBuilder(point.measurement);
      builders.set(point.measurement, builder);
    }
    addPoint(builder, point);
  }
  const scale = NANOS_PER_PRECISION[precision];
  const nowTruncated = nowNs - (nowNs % scale);
  const inserts: TableInsert[] = [];
  for (const builder of builders.values())
    inserts.push(buildInsert(builder, db, precision, scale, nowTruncated, shards));
  return inserts;
}

function newBuilder(table: string): TableBuilder {
  return {
    table,
    points: [],
    slotsByName: new Map(),
    slots: [],
    tagSlots: [],
    fieldSlots: [],
    lastTagKeys: null,
    lastTagSlots: [],
    lastFieldKeys: null,
    lastFieldKinds: null,
    lastFieldSlots: [],
  };
}

/** Pass 1 for one point: resolve (or create) the column of every tag and field, checking types. */
function addPoint(b: TableBuilder, point: LinePoint): void {
  const first = b.points.length === 0;
  b.points.push(point);

  let tagSlots: number[];
  if (b.lastTagKeys !== null && sameKeys(b.lastTagKeys, point.tagKeys)) {
    tagSlots = b.lastTagSlots;
  } else {
    tagSlots = new Array<number>(point.tagKeys.length);
    for (let i = 0; i < point.tagKeys.length; i++) tagSlots[i] = resolve(b, point.tagKeys[i] as string, 'tag');
    b.lastTagKeys = point.tagKeys;
    b.lastTagSlots = tagSlots;
  }
  b.tagSlots.push(tagSlots);

  let fieldSlots: number[];
  if (
    b.lastFieldKeys !== null &&
    sameKeys(b.lastFieldKeys, point.fieldKeys) &&
    sameKinds(b.lastFieldKinds as readonly FieldKind[], point.fieldKinds)
  ) {
    fieldSlots = b.lastFieldSlots;
  } else {
    fieldSlots = new Array<number>(point.fieldKeys.length);
    for (let i = 0; i < point.fieldKeys.length; i++) {
      fieldSlots[i] = resolve(b, point.fieldKeys[i] as string, point.fieldKinds[i] as FieldKind);
    }
    b.lastFieldKeys = point.fieldKeys;
    b.lastFieldKinds = point.fieldKinds;
    b.lastFieldSlots = fieldSlots;
  }
  b.fieldSlots.push(fieldSlots);

  // GreptimeDB writes the time index after the first row's tags and fields.
  if (first) resolve(b, TIME_INDEX_COLUMN, 'time');
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameKinds(a: readonly FieldKind[], b: readonly FieldKind[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function typeCodeOf(role: ColumnRole): number {
  if (role === 'tag') return TYPE_CODE_STRING;
  if (role === 'time') return TYPE_CODE_TIMESTAMP_NS;
  return TYPE_CODE_OF_KIND[role];
}

function semanticCodeOf(role: ColumnRole): number {
  return role === 'tag' ? SEMANTIC_CODE_TAG : role === 'time' ? 2 : SEMANTIC_CODE_FIELD;
}

/** The column index of `name` used as `role`; the first use defines the column. */
function resolve(b: TableBuilder, name: string, role: ColumnRole): number {
  const slot = b.slotsByName.get(name);
  if (slot === undefined) {
    const created: ColumnSlot = { name, role, index: b.slots.length };
    b.slots.push(created);
    b.slotsByName.set(name, created);
    return created.index;
  }
  if (slot.role !== role) {
    const expectedType = typeCodeOf(slot.role);
    const actualType = typeCodeOf(role);
    if (expectedType !== actualType) {
      throw new InvalidArgument(
        `Column: ${name}, datatype incompatible, expected: ${expectedType}, actual: ${actualType}`,
      );
    }
    throw new InvalidArgument(
      `Column: ${name}, semantic_type incompatible, expected: ${semanticCodeOf(slot.role)}, actual: ${semanticCodeOf(role)}`,
    );
  }
  return slot.index;
}

/** Pass 2: allocate each column's vector at its final size and fill it row by row. */
function buildInsert(
  b: TableBuilder,
  db: string,
  precision: Precision,
  scale: bigint,
  nowTruncated: bigint,
  shards: number | undefined,
): TableInsert {
  const rowCount = b.points.length;
  const columns: InsertColumn[] = b.slots.map((slot) => newColumn(slot, rowCount));
  // Typed views of the columns by index, so the row loop does no per-cell dispatch on strings.
  const values = columns.map((c) => c.vector.values);
  const valid = columns.map((c) => c.vector.valid);
  const timeIndex = (b.slotsByName.get(TIME_INDEX_COLUMN) as ColumnSlot).index;
  const times = values[timeIndex] as BigInt64Array;
  // Points of one parsed series share their tag-value array (the parser's series cache), so the
  // array's identity numbers the series for the pipeline without comparing any strings.
  const seriesIndex = new Map<readonly string[], number>();
  const rowSeries = new Uint32Array(rowCount);
  // Series form (TableInsert.series) when the parser gave every point its series record: tag
  // tuples once per series instead of tag vectors filled row by row, shards and storage keys
  // kept on the record between requests.
  const form =
    shards !== undefined && b.points.every((p) => p.series !== undefined) ? new SeriesForm(b, db, shards) : null;

  for (let row = 0; row < rowCount; row++) {
    const point = b.points[row] as LinePoint;
    const tagSlots = b.tagSlots[row] as number[];
    let series: number;
    if (form !== null) series = form.indexOf(point, tagSlots);
    else {
      let known = seriesIndex.get(point.tagValues);
      if (known === undefined) {
        known = seriesIndex.size;
        seriesIndex.set(point.tagValues, known);
      }
      series = known;
    }
    rowSeries[row] = series;
    if (form === null) {
      for (let i = 0; i < tagSlots.length; i++) {
        (values[tagSlots[i] as number] as Array<string | null>)[row] = point.tagValues[i] as string;
      }
    }
    const fieldSlots = b.fieldSlots[row] as number[];
    for (let i = 0; i < fieldSlots.length; i++) {
      const index = fieldSlots[i] as number;
      setField(values[index] as Vector['values'], row, point.fieldKinds[i] as FieldKind, point.fieldValues[i]);
      const v = valid[index];
      if (v !== undefined) v[row] = 1;
    }
    times[row] = timestampNanos(point, precision, scale, nowTruncated);
  }

  // A validity array where every row is present says nothing: drop it (Vector rules).
  for (const column of columns) {
    const v = column.vector.valid;
    if (v !== undefined && v.indexOf(0) < 0) column.vector.valid = undefined;
  }
  return { db, table: b.table, rowCount, columns, rowSeries, series: form?.result() };
}

/** The series of one table's points as tag tuples (tag columns in name order), shards and keys. */
class SeriesForm {
  private readonly position: Int32Array;
  private readonly width: number;
  private readonly base: number;
  private readonly tagNames: string[];
  private readonly tuples: Array<Array<string | null>> = [];
  private readonly shards: number[] = [];
  private readonly holders: LineSeries[] = [];
  /** The insert's placement and tag columns: a record's tuple and shard are reused while equal. */
  private readonly layout: string;
  // Shared with the other passes that number series by a stamp on them (point-parts.ts).
  private readonly stamp = newStamp();

  constructor(
    b: TableBuilder,
    db: string,
    private readonly shardCount: number,
  ) {
    const tags = b.slots
      .filter((s) => s.role === 'tag')
      .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    this.position = new Int32Array(b.slots.length).fill(-1);
    tags.forEach((slot, k) => {
      this.position[slot.index] = k;
    });
    this.width = tags.length;
    this.tagNames = tags.map((t) => t.name);
    // Everything a record's tuple and shard depend on, besides the record's own tags.
    this.layout = intern(`${shardCount}\u0000${db}\u0000${b.table}\u0000${this.tagNames.join('\u0000')}`);
    this.base = tableHash(db, b.table);
  }

  /** The index of the point's series in this insert, adding the series on its first point. */
  indexOf(point: LinePoint, tagSlots: readonly number[]): number {
    const record = point.series as LineSeries;
    // Numbering by a stamp on the record, not a map: the insert is built in one synchronous call.
    if (record.stamp === this.stamp) return record.stampIndex as number;
    let tuple = record.tuple;
    if (tuple === undefined || record.tupleLayout !== this.layout) {
      tuple = new Array<string | null>(this.width).fill(null);
      for (let i = 0; i < tagSlots.length; i++) {
        tuple[this.position[tagSlots[i] as number] as number] = point.tagValues[i] as string;
      }
      record.tuple = tuple;
      record.shard = shardOfSeries(this.base, this.tagNames, tuple, this.shardCount);
      record.tupleLayout = this.layout;
    }
    record.stamp = this.stamp;
    record.stampIndex = this.tuples.length;
    this.tuples.push(tuple);
    this.shards.push(record.shard as number);
    this.holders.push(record);
    return record.stampIndex;
  }

  result(): NonNullable<TableInsert['series']> {
    return { tuples: this.tuples, shards: Uint16Array.from(this.shards), keyHolders: this.holders };
  }
}

function newColumn(slot: ColumnSlot, rowCount: number): InsertColumn {
  switch (slot.role) {
    case 'tag':
      return { name: slot.name, semantic: 'TAG', type: 'String', vector: strVector(rowCount) };
    case 'time':
      return {
        name: slot.name,
        semantic: 'TIMESTAMP',
        type: 'TimestampNanosecond',
        vector: { kind: 'i64', values: new BigInt64Array(rowCount) },
      };
    default: {
      const type = DATA_TYPE_OF_KIND[slot.role];
      return { name: slot.name, semantic: 'FIELD', type, vector: fieldVector(slot.role, rowCount) };
    }
  }
}

function strVector(rowCount: number): Vector {
  return { kind: 'str', values: new Array<string | null>(rowCount).fill(null) };
}

/** Non-string field vectors carry a validity array; string fields mark absence with null. */
function fieldVector(kind: FieldKind, rowCount: number): Vector {
  switch (kind) {
    case 'float':
      return { kind: 'f64', values: new Float64Array(rowCount), valid: new Uint8Array(rowCount) };
    case 'integer':
      return { kind: 'i64', values: new BigInt64Array(rowCount), valid: new Uint8Array(rowCount) };
    case 'uinteger':
      return { kind: 'u64', values: new BigUint64Array(rowCount), valid: new Uint8Array(rowCount) };
    case 'boolean':
      return { kind: 'bool', values: new Uint8Array(rowCount), valid: new Uint8Array(rowCount) };
    case 'string':
      return strVector(rowCount);
  }
}

/** Stores one parsed field value at `row` of a column of the field's kind. */
export function setField(values: Vector['values'], row: number, kind: FieldKind, value: FieldValue | undefined): void {
  switch (kind) {
    case 'float':
      (values as Float64Array)[row] = value as number;
      break;
    case 'integer':
      (values as BigInt64Array)[row] = value as bigint;
      break;
    case 'uinteger':
      (values as BigUint64Array)[row] = value as bigint;
      break;
    case 'boolean':
      (values as Uint8Array)[row] = value === true ? 1 : 0;
      break;
    case 'string':
      (values as Array<string | null>)[row] = value as string;
      break;
  }
}

/**
 * The point's time in nanoseconds, exact, or null when it has none under precision `m`/`h` or
 * overflows i64 (`timestampNanos` words those errors). `scale`: nanoseconds per unit of
 * `precision`; `nowTruncated`: the time of points without one.
 */
export function nanosOf(point: LinePoint, precision: Precision, scale: bigint, nowTruncated: bigint): bigint | null {
  const ts = point.timestamp;
  if (ts === null) return precision === 'm' || precision === 'h' ? null : nowTruncated;
  const nanos = scale === 1n ? ts : ts * scale;
  return nanos < I64_MIN || nanos > I64_MAX ? null : nanos;
}

/** The point's time in nanoseconds, exact; a missing (m/h) or overflowing one is an error. */
function timestampNanos(point: LinePoint, precision: Precision, scale: bigint, nowTruncated: bigint): bigint {
  const nanos = nanosOf(point, precision, scale, nowTruncated);
  if (nanos !== null) return nanos;
  if (point.timestamp === null) {
    throw new InvalidArgument(
      `Failed to parse InfluxDB line protocol: line ${point.line}: a timestamp is required with precision m or h`,
    );
  }
  throw new InvalidArgument(`Timestamp overflow: timestamp ${point.timestamp} overflow with precision ${precision}`);
}
