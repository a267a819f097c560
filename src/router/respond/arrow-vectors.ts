/**
 * Arrow data straight from a result's typed vectors (src/query/columns.ts): the arrays storage
 * read become the record batch's buffers, without a JS value per cell. Types whose Arrow layout
 * differs from the vector's (decimals, Time32, booleans, binary) return null and are written from
 * values as before.
 */
import { type DataType as ArrowType, type Data, makeData } from 'apache-arrow';
import type { DataType, Vector } from '../../shared/types.js';

type NumberArray = Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array;

const NARROW_NUMBER_ARRAYS: Partial<Record<DataType, new (length: number) => NumberArray>> = {
  Int8: Int8Array,
  Int16: Int16Array,
  Int32: Int32Array,
  UInt8: Uint8Array,
  UInt16: Uint16Array,
  UInt32: Uint32Array,
  Float32: Float32Array,
  Date: Int32Array,
};

/** Logical types held in an i64 vector whose Arrow buffer is the same 64-bit integers. */
const INT64_LAYOUT = new Set<DataType>([
  'Int64',
  'TimestampSecond',
  'TimestampMillisecond',
  'TimestampMicrosecond',
  'TimestampNanosecond',
  'TimeMicrosecond',
  'TimeNanosecond',
  'DurationSecond',
  'DurationMillisecond',
  'DurationMicrosecond',
  'DurationNanosecond',
]);

/** Validity bitmap (bit i set = row i is not null) from a vector's byte per row. */
function bitmapOf(vector: Vector, length: number): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array(Math.ceil(length / 8));
  const valid = vector.valid;
  const strings = vector.kind === 'str' ? (vector.values as Array<string | null>) : null;
  let nullCount = 0;
  for (let i = 0; i < length; i++) {
    if ((valid !== undefined && valid[i] === 0) || (strings !== null && (strings[i] ?? null) === null)) nullCount++;
    else nullBitmap[i >> 3] = (nullBitmap[i >> 3] as number) | (1 << (i & 7));
  }
  return { nullBitmap, nullCount };
}

/** The Arrow data of `length` rows of a vector of logical type `type`, or null when not direct. */
export function vectorData(type: DataType, arrowType: ArrowType, vector: Vector, length: number): Data | null {
  const props = (data: ArrayBufferView): Data => {
    const p = { type: arrowType, length, data, ...bitmapOf(vector, length) };
    return (makeData as (p: unknown) => Data)(p);
  };
  switch (vector.kind) {
    case 'f64': {
      const values = vector.values as Float64Array;
      if (type === 'Float64') return props(values.subarray(0, length));
      const Narrow = NARROW_NUMBER_ARRAYS[type];
      if (Narrow === undefined) return null;
      const data = new Narrow(length);
      for (let i = 0; i < length; i++) data[i] = values[i] as number;
      return props(data);
    }
    case 'i64':
      return INT64_LAYOUT.has(type) ? props((vector.values as BigInt64Array).subarray(0, length)) : null;
    case 'u64':
      return type === 'UInt64' ? props((vector.values as BigUint64Array).subarray(0, length)) : null;
    case 'str':
      return type === 'String' ? utf8Data(arrowType, vector, length) : null;
    default:
      return null;
  }
}

/**
 * Utf8 data in one encoding pass: the strings joined and encoded once; when the text is ASCII
 * (each byte one character), the byte offsets are the character offsets.
 */
function utf8Data(arrowType: ArrowType, vector: Vector, length: number): Data {
  const validity = bitmapOf(vector, length);
  const strings = vector.values as Array<string | null>;
  const texts = new Array<string>(length);
  for (let i = 0; i < length; i++) {
    const valid = (validity.nullBitmap[i >> 3] as number) & (1 << (i & 7));
    texts[i] = valid === 0 ? '' : (strings[i] as string);
  }
  const joined = texts.join('');
  const bytes = Buffer.from(joined, 'utf8');
  const ascii = bytes.length === joined.length;
  const valueOffsets = new Int32Array(length + 1);
  let offset = 0;
  for (let i = 0; i < length; i++) {
    valueOffsets[i] = offset;
    const s = texts[i] as string;
    offset += ascii ? s.length : Buffer.byteLength(s, 'utf8');
  }
  valueOffsets[length] = offset;
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const p = { type: arrowType, length, valueOffsets, data, ...validity };
  return (makeData as (p: unknown) => Data)(p);
}
