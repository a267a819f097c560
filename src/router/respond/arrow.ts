/**
 * The `arrow` output of /v1/sql (reference §4.2): the single result as an Arrow IPC **stream**
 * (schema message, one record batch when there are rows, end-of-stream marker), written with
 * apache-arrow. DDL/DML and an empty statement list answer an empty body.
 *
 * Column types follow GreptimeDB's Arrow schema: Int8..UInt64, Float32/64, Boolean → Bool,
 * String → Utf8, Binary → Binary, Date → Date32 (days), TimestampX → Timestamp(unit, no zone),
 * TimeX → Time32/Time64, DurationX → Duration(unit), Decimal(p, s) → Decimal128(p, s),
 * IntervalMonthDayNano → Interval(MONTH_DAY_NANO), List<T> → List of T (item field `item`),
 * Null → Null. Json is sent as Utf8 holding the JSON text (GreptimeDB sends its internal JSONB
 * bytes as Binary, which no client can read without GreptimeDB's decoder). Every field is
 * nullable. Fixed-width columns are built straight from typed arrays plus a validity bitmap so
 * 64-bit (and 128-bit) values stay exact.
 *
 * Compression (`compression=lz4|zstd`, URL only): apache-arrow ships no codecs, so `lz4` uses our
 * own LZ4_FRAME encoder (`lz4-frame.ts`) and `zstd` the WebAssembly build of the reference library
 * (src/shared/zstd.ts; Node 20's zlib has none). A reader needs the codec registered too.
 *
 * GreptimeDB itself writes the IPC *file* format here; the interface spec asks for a stream, which
 * clients read with `tableFromIPC`/`RecordBatchStreamReader` without seeking.
 */

import assert from 'node:assert';
import {
  type DataType as ArrowType,
  Binary,
  Bool,
  CompressionType,
  compressionRegistry,
  type Data,
  DateDay,
  Decimal,
  DurationMicrosecond,
  DurationMillisecond,
  DurationNanosecond,
  DurationSecond,
  Field,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  IntervalMonthDayNano,
  List,
  makeData,
  Null,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimeMicrosecond,
  TimeMillisecond,
  TimeNanosecond,
  TimeSecond,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  tableToIPC,
  Uint8,
  Uint16,
  Uint32,
  Uint64,
  Utf8,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import { boxColumn } from '../../query/columns.js';
import type { StatementResult } from '../../query/sql/exec/execute.js';
import { unpackInterval } from '../../query/sql/types/interval.js';
import { type DataType, decimalPartsOf, listItemTypeOf, vectorDimOf } from '../../shared/types.js';
import { zstdCompress, zstdDecompress } from '../../shared/zstd.js';
import type { ArrowCompression } from './arrow-compression.js';
import { vectorData } from './arrow-vectors.js';
import { lz4FrameCompress, lz4FrameDecompress } from './lz4-frame.js';

/** Largest Arrow buffer we would ever decode (the registry needs a decoder; we only encode). */
const ZSTD_BUFFER_BYTES_MAX = 1 << 30;

compressionRegistry.set(CompressionType.LZ4_FRAME, { encode: lz4FrameCompress, decode: lz4FrameDecompress });
let zstdRegistered = false;

/** Registers zstd on first use: apache-arrow tries the codec when it is set, after initZstd(). */
function ensureZstdCodec(): void {
  if (zstdRegistered) return;
  compressionRegistry.set(CompressionType.ZSTD, {
    encode: (bytes) => zstdCompress(bytes),
    decode: (bytes) => zstdDecompress(bytes, ZSTD_BUFFER_BYTES_MAX),
  });
  zstdRegistered = true;
}

/** The Arrow type GreptimeDB gives a column of this logical type. */
export function arrowTypeOf(type: DataType): ArrowType {
  if (vectorDimOf(type) !== null) return new Binary();
  switch (type) {
    case 'Boolean':
      return new Bool();
    case 'Int8':
      return new Int8();
    case 'Int16':
      return new Int16();
    case 'Int32':
      return new Int32();
    case 'Int64':
      return new Int64();
    case 'UInt8':
      return new Uint8();
    case 'UInt16':
      return new Uint16();
    case 'UInt32':
      return new Uint32();
    case 'UInt64':
      return new Uint64();
    case 'Float32':
      return new Float32();
    case 'Float64':
      return new Float64();
    case 'String':
      return new Utf8();
    case 'Binary':
      return new Binary();
    case 'Date':
      return new DateDay();
    case 'TimestampSecond':
      return new TimestampSecond();
    case 'TimestampMillisecond':
      return new TimestampMillisecond();
    case 'TimestampMicrosecond':
      return new TimestampMicrosecond();
    case 'TimestampNanosecond':
      return new TimestampNanosecond();
    case 'TimeSecond':
      return new TimeSecond();
    case 'TimeMillisecond':
      return new TimeMillisecond();
    case 'TimeMicrosecond':
      return new TimeMicrosecond();
    case 'TimeNanosecond':
      return new TimeNanosecond();
    case 'DurationSecond':
      return new DurationSecond();
    case 'DurationMillisecond':
      return new DurationMillisecond();
    case 'DurationMicrosecond':
      return new DurationMicrosecond();
    case 'DurationNanosecond':
      return new DurationNanosecond();
    case 'IntervalMonthDayNano':
      return new IntervalMonthDayNano();
    case 'Json':
      return new Utf8();
    case 'Null':
      return new Null();
    default: {
      const decimal = decimalPartsOf(type);
      if (decimal) return new Decimal(decimal.scale, decimal.precision, 128);
      const item = listItemTypeOf(type);
      if (item) return new List(new Field('item', arrowTypeOf(item), true));
      throw new Error(`no Arrow type for ${type}`);
    }
  }
}

type NumberArray =
  | Int8Array
  | Int16Array
  | Int32Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | Float32Array
  | Float64Array;
type NumberArrayConstructor = new (length: number) => NumberArray;

const NUMBER_ARRAYS: Partial<Record<DataType, NumberArrayConstructor>> = {
  Int8: Int8Array,
  Int16: Int16Array,
  Int32: Int32Array,
  UInt8: Uint8Array,
  UInt16: Uint16Array,
  UInt32: Uint32Array,
  Float32: Float32Array,
  Float64: Float64Array,
  Date: Int32Array,
  TimeSecond: Int32Array,
  TimeMillisecond: Int32Array,
};

/** Validity bitmap (bit i set = row i is not null) and the null count. */
function validityOf(values: unknown[]): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
  let nullCount = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) nullCount++;
    else nullBitmap[i >> 3] = (nullBitmap[i >> 3] as number) | (1 << (i & 7));
  }
  return { nullBitmap, nullCount };
}

/**
 * `makeData` for any fixed-width type. Its overloads are keyed by the static type, which is only
 * known at run time here; the props are the same for all of them.
 */
function fixedWidthData(type: ArrowType, values: unknown[], data: ArrayBufferView): Data {
  const props = { type, length: values.length, data, ...validityOf(values) };
  return (makeData as (p: typeof props) => Data)(props);
}

/** The single Data of a vector built in one go (`vectorFromArray` builds one chunk from an array). */
function onlyChunk(vector: Vector): Data {
  assert.equal(vector.data.length, 1, 'vectorFromArray built more than one chunk');
  return vector.data[0] as Data;
}

function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  return 0n;
}

/** Decimal128 values: four little-endian 32-bit words of the two's-complement unscaled integer. */
function decimalWords(values: unknown[]): Uint32Array {
  const words = new Uint32Array(values.length * 4);
  for (let i = 0; i < values.length; i++) {
    const unsigned = BigInt.asUintN(128, toBigInt(values[i]));
    for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((unsigned >> BigInt(32 * w)) & 0xffff_ffffn);
  }
  return words;
}

/** IntervalMonthDayNano values: months (i32), days (i32), nanoseconds (i64, low word first). */
function intervalWords(values: unknown[]): Int32Array {
  const words = new Int32Array(values.length * 4);
  for (let i = 0; i < values.length; i++) {
    const { months, days, nanos } = unpackInterval(toBigInt(values[i]));
    words[i * 4] = months;
    words[i * 4 + 1] = days;
    words[i * 4 + 2] = Number(BigInt.asIntN(32, nanos));
    words[i * 4 + 3] = Number(BigInt.asIntN(32, nanos >> 32n));
  }
  return words;
}

/** A list column: offsets into one child column of all items. */
function listData(type: ArrowType, item: DataType, values: unknown[]): Data {
  const offsets = new Int32Array(values.length + 1);
  const items: unknown[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Array.isArray(v)) for (const x of v) items.push(x);
    offsets[i + 1] = items.length;
  }
  const child = columnData(item, items);
  const props = { type, length: values.length, valueOffsets: offsets, child, ...validityOf(values) };
  return (makeData as (p: typeof props) => Data)(props);
}

/** One column's values as Arrow data of its type. */
function columnData(dataType: DataType, values: unknown[]): Data {
  // A VECTOR(n) column is its Binary.
  const type = vectorDimOf(dataType) !== null ? 'Binary' : dataType;
  const arrowType = arrowTypeOf(type);
  const length = values.length;
  const NumberArrayOf = NUMBER_ARRAYS[type];
  if (NumberArrayOf) {
    const data = new NumberArrayOf(length);
    for (let i = 0; i < length; i++) {
      const v = values[i];
      data[i] = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0;
    }
    return fixedWidthData(arrowType, values, data);
  }
  const decimal = decimalPartsOf(type);
  if (decimal) return fixedWidthData(arrowType, values, decimalWords(values));
  const item = listItemTypeOf(type);
  if (item) return listData(arrowType, item, values);
  switch (type) {
    case 'Int64':
    case 'TimestampSecond':
    case 'TimestampMillisecond':
    case 'TimestampMicrosecond':
    case 'TimestampNanosecond':
    case 'TimeMicrosecond':
    case 'TimeNanosecond':
    case 'DurationSecond':
    case 'DurationMillisecond':
    case 'DurationMicrosecond':
    case 'DurationNanosecond': {
      const data = new BigInt64Array(length);
      for (let i = 0; i < length; i++) data[i] = toBigInt(values[i]);
      return fixedWidthData(arrowType, values, data);
    }
    case 'UInt64': {
      const data = new BigUint64Array(length);
      for (let i = 0; i < length; i++) data[i] = toBigInt(values[i]);
      return fixedWidthData(arrowType, values, data);
    }
    case 'IntervalMonthDayNano':
      return fixedWidthData(arrowType, values, intervalWords(values));
    case 'Null':
      return makeData({ type: new Null(), length, nullCount: length });
    case 'Binary': {
      // Binary values are held as latin1 strings of their bytes.
      const bytes = values.map((v) => (typeof v === 'string' ? Buffer.from(v, 'latin1') : null));
      return onlyChunk(vectorFromArray(bytes, new Binary()));
    }
    case 'Boolean':
      return onlyChunk(
        vectorFromArray(
          values.map((v) => (v === null || v === undefined ? null : Boolean(v))),
          new Bool(),
        ),
      );
    default:
      return onlyChunk(
        vectorFromArray(
          values.map((v) => (v === null || v === undefined ? null : String(v))),
          new Utf8(),
        ),
      );
  }
}

/** The whole response body for at most one statement result. */
export function arrowBody(result: StatementResult | undefined, compression: ArrowCompression): Uint8Array {
  if (result === undefined || result.kind === 'affected') return new Uint8Array(0);
  const fields = result.columns.map((c) => new Field(c.name, arrowTypeOf(c.type), true));
  const schema = new Schema(fields);
  const batches: RecordBatch[] = [];
  const columnar = result.table;
  const length = columnar ? columnar.rowCount : result.rows.length;
  if (length > 0) {
    const children = result.columns.map((c, i) => {
      const column = columnar?.columns[i];
      if (column === undefined)
        return columnData(
          c.type,
          result.rows.map((row) => row[i]),
        );
      if (Array.isArray(column)) return columnData(c.type, column);
      // A typed column is written from its own arrays; only types laid out otherwise box.
      return (
        vectorData(c.type, arrowTypeOf(c.type), column, length) ?? columnData(c.type, boxColumn(column, 0, length))
      );
    });
    batches.push(new RecordBatch(schema, makeData({ type: new Struct(fields), length, nullCount: 0, children })));
  }
  const table = new Table(schema, batches);
  if (compression === 'zstd') ensureZstdCodec();
  const codec =
    compression === 'lz4' ? CompressionType.LZ4_FRAME : compression === 'zstd' ? CompressionType.ZSTD : null;
  return tableToIPC(table, 'stream', codec);
}
