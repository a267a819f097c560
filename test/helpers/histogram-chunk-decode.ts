/**
 * An independent decoder of Prometheus' histogram chunks (`tsdb/chunkenc` encodings 2 and 3),
 * written from the format's description rather than from the server's encoder, so that the
 * streamed remote read tests check bytes against the format and not against themselves. Also
 * reads the chunks a real Prometheus sends.
 */
import { BitReader } from './prom-remote.js';

export interface DecodedHistogram {
  t: number;
  hint: 'unknown' | 'reset' | 'not_reset' | 'gauge';
  schema: number;
  zeroThreshold: number;
  count: number;
  zeroCount: number;
  sum: number;
  /** [bucket index, absolute count] per bucket, ascending index. */
  positive: Array<[number, number]>;
  negative: Array<[number, number]>;
  customValues: number[];
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

function floatOf(bits: bigint): number {
  u64[0] = bits;
  return f64[0] as number;
}

const WIDTHS = [0, 3, 6, 9, 12, 18, 25, 56, 64];

/** The varbit prefix: how many one bits (at most 8) before a zero. */
function prefix(r: BitReader): number {
  let ones = 0;
  while (ones < 8 && r.read(1) === 1n) ones++;
  return ones;
}

function varbitInt(r: BitReader): number {
  const width = WIDTHS[prefix(r)] as number;
  if (width === 0) return 0;
  let v = r.read(width);
  if (width === 64) v = BigInt.asIntN(64, v);
  else if (v > 1n << BigInt(width - 1)) v -= 1n << BigInt(width);
  return Number(v);
}

function varbitUint(r: BitReader): number {
  const width = WIDTHS[prefix(r)] as number;
  return width === 0 ? 0 : Number(r.read(width));
}

/** Gorilla XOR state of one float field. */
class Xor {
  leading = 0n;
  trailing = 0n;
  constructor(public bits: bigint) {}
  next(r: BitReader): number {
    if (r.read(1) === 1n) {
      if (r.read(1) === 1n) {
        this.leading = r.read(5);
        let significant = r.read(6);
        if (significant === 0n) significant = 64n;
        this.trailing = 64n - this.leading - significant;
      }
      this.bits ^= r.read(Number(64n - this.leading - this.trailing)) << this.trailing;
    }
    return floatOf(this.bits);
  }
}

/** Bucket indexes of a span list (offset of the first from 0, of the others from the last end). */
function indexesOf(spans: Array<[number, number]>): number[] {
  const out: number[] = [];
  let next = 0;
  spans.forEach(([offset, length]) => {
    next += offset;
    for (let k = 0; k < length; k++) out.push(next++);
  });
  return out;
}

function spans(r: BitReader): Array<[number, number]> {
  const n = varbitUint(r);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    const length = varbitUint(r);
    const offset = varbitInt(r);
    out.push([offset, length]);
  }
  return out;
}

/** Decodes one HISTOGRAM (`float` false) or FLOAT_HISTOGRAM (`float` true) chunk. */
export function decodeHistogramChunk(data: Uint8Array, float: boolean): DecodedHistogram[] {
  const total = ((data[0] as number) << 8) | (data[1] as number);
  const header = (data[2] as number) >> 6;
  const r = new BitReader(data.subarray(3));
  const out: DecodedHistogram[] = [];
  if (total === 0) return out;
  const ztByte = Number(r.read(8));
  const zeroThreshold = ztByte === 0 ? 0 : ztByte === 255 ? floatOf(r.read(64)) : 2 ** (ztByte - 243 - 1);
  const schema = varbitInt(r);
  const pIndex = indexesOf(spans(r));
  const nIndex = indexesOf(spans(r));
  const customValues: number[] = [];
  if (schema === -53) {
    const n = varbitUint(r);
    for (let i = 0; i < n; i++) {
      const v = varbitUint(r);
      customValues.push(v === 0 ? floatOf(r.read(64)) : (v - 1) / 1000);
    }
  }
  const nb = pIndex.length + nIndex.length;
  let t = 0;
  let tDelta = 0;
  // Integer state: value and delta per field (count, zero count, buckets as in-histogram deltas).
  const ints = new Array<number>(2 + nb).fill(0);
  const intDeltas = new Array<number>(2 + nb).fill(0);
  let xors: Xor[] = [];
  let sum: Xor = new Xor(0n);
  for (let i = 0; i < total; i++) {
    if (i === 0) {
      t = varbitInt(r);
      if (float) {
        const count = new Xor(r.read(64));
        const zero = new Xor(r.read(64));
        sum = new Xor(r.read(64));
        xors = [count, zero];
        for (let k = 0; k < nb; k++) xors.push(new Xor(r.read(64)));
      } else {
        ints[0] = varbitUint(r);
        ints[1] = varbitUint(r);
        sum = new Xor(r.read(64));
        for (let k = 0; k < nb; k++) ints[2 + k] = varbitInt(r);
      }
    } else {
      tDelta += varbitInt(r);
      t += tDelta;
      if (float) {
        xors[0]?.next(r);
        xors[1]?.next(r);
        sum.next(r);
        for (let k = 0; k < nb; k++) xors[2 + k]?.next(r);
      } else {
        const step = (k: number): void => {
          intDeltas[k] = (intDeltas[k] as number) + varbitInt(r);
          ints[k] = (ints[k] as number) + (intDeltas[k] as number);
        };
        step(0);
        step(1);
        sum.next(r);
        for (let k = 0; k < nb; k++) step(2 + k);
      }
    }
    const values = float ? xors.map((x) => floatOf(x.bits)) : [...ints];
    const side = (index: number[], from: number): Array<[number, number]> => {
      let absolute = 0;
      return index.map((idx, k) => {
        const v = values[from + k] as number;
        absolute = float ? v : absolute + v;
        return [idx, absolute];
      });
    };
    out.push({
      t,
      hint: header === 3 ? 'gauge' : i > 0 ? 'not_reset' : header === 2 ? 'reset' : 'unknown',
      schema,
      zeroThreshold,
      count: values[0] as number,
      zeroCount: values[1] as number,
      sum: floatOf(sum.bits),
      positive: side(pIndex, 2),
      negative: side(nIndex, 2 + pIndex.length),
      customValues,
    });
  }
  return out;
}
