/**
 * HyperLogLog distinct-count sketch behind `hll`, `hll_merge` and `hll_count`, at GreptimeDB's
 * precision (14: 16384 registers, standard error 1.04/√16384 ≈ 0.8%). Values are hashed to 64
 * bits; the top 14 bits pick a register, which keeps the largest rank (leading zeros + 1) of the
 * other 50. Counting uses Ertl's improved estimator ("New cardinality estimation algorithms for
 * HyperLogLog sketches", 2017), which is unbiased from one value to billions without the
 * empirical bias tables of HLL++, so no table needs to be carried here.
 *
 * A sketch stays sparse (a Map of the registers that are set) while few registers are set, so a
 * group with a handful of values costs a handful of entries, and turns dense (one byte per
 * register) past `SPARSE_REGISTERS_MAX`. Both forms survive structured clone. The serialised
 * form is chosen apart from the memory form: whichever is smaller.
 *
 * The serialised state is ShoalDB's own format (docs/formats/sketch-states.md), not GreptimeDB's
 * bincode of `HyperLogLogPlus<String, ahash>`: that one depends on ahash's output, which differs
 * by ahash version and CPU features, so its bytes cannot be reproduced with certainty.
 */

/** Register index bits, as GreptimeDB's `DEFAULT_PRECISION`. */
export const HLL_PRECISION = 14;
const REGISTERS = 1 << HLL_PRECISION;
/** Hash bits left after the index: ranks run 1..RANK_BITS + 1. */
const RANK_BITS = 64 - HLL_PRECISION;
/** A Map entry costs V8 several times a register byte, so a sketch turns dense early. */
const SPARSE_REGISTERS_MAX = 256;
/** The bytes are written sparse (3 per register set) while that is smaller than dense. */
const SPARSE_ENCODED_MAX = Math.floor((REGISTERS - 4) / 3);
const MAGIC = 'SHLL';
const VERSION = 1;
const FORM_SPARSE = 0;
const FORM_DENSE = 1;
const HEADER_BYTES = 8;

/** A sketch: exactly one of `sparse` (register index → rank) and `dense` is set. */
export interface HllSketch {
  sparse: Map<number, number> | null;
  dense: Uint8Array | null;
}

/** An empty sketch. */
export function newHll(): HllSketch {
  return { sparse: new Map(), dense: null };
}

/** MurmurHash3's 32-bit finaliser: every input bit affects every output bit. */
function fmix32(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * MurmurHash3 (x86, 32-bit) over the text's UTF-16 code units, two per 32-bit block. Hashing
 * code units rather than UTF-8 bytes avoids encoding every value; distinct texts still give
 * distinct inputs.
 */
function murmurText(text: string, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const n = text.length;
  const pairs = n & ~1;
  for (let i = 0; i < pairs; i += 2) {
    let k = (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)) >>> 0;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) >>> 0;
  }
  if (n !== pairs) {
    let k = text.charCodeAt(n - 1);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  return fmix32((h ^ (n * 2)) >>> 0);
}

const SEED_HIGH = 0x9747b28c;
const SEED_LOW = 0x5bd1e995;

/** Adds one text value. */
export function hllInsert(sketch: HllSketch, text: string): void {
  const high = murmurText(text, SEED_HIGH);
  // The low word's seed depends on the high word, so the two halves do not share a seed's biases.
  const low = murmurText(text, (SEED_LOW ^ high) >>> 0);
  const index = high >>> (32 - HLL_PRECISION);
  const rest = high & ((1 << (32 - HLL_PRECISION)) - 1);
  let rank: number;
  if (rest !== 0) rank = Math.clz32(rest) - HLL_PRECISION + 1;
  else if (low !== 0) rank = 32 - HLL_PRECISION + Math.clz32(low) + 1;
  else rank = RANK_BITS + 1;
  setRegister(sketch, index, rank);
}

function setRegister(sketch: HllSketch, index: number, rank: number): void {
  if (sketch.dense) {
    if (rank > (sketch.dense[index] as number)) sketch.dense[index] = rank;
    return;
  }
  const sparse = sketch.sparse as Map<number, number>;
  if (rank > (sparse.get(index) ?? 0)) sparse.set(index, rank);
  if (sparse.size > SPARSE_REGISTERS_MAX) densify(sketch);
}

function densify(sketch: HllSketch): void {
  const dense = new Uint8Array(REGISTERS);
  for (const [index, rank] of sketch.sparse as Map<number, number>) dense[index] = rank;
  sketch.dense = dense;
  sketch.sparse = null;
}

/** Folds `from` into `into`: the register-wise maximum, so merging is associative and exact. */
export function hllMerge(into: HllSketch, from: HllSketch): void {
  if (from.dense) {
    if (!into.dense) densify(into);
    const target = into.dense as Uint8Array;
    for (let i = 0; i < REGISTERS; i++)
      if ((from.dense[i] as number) > (target[i] as number)) target[i] = from.dense[i] as number;
    return;
  }
  for (const [index, rank] of from.sparse as Map<number, number>) setRegister(into, index, rank);
}

/** Ertl's σ(x) = x + Σ_{k≥1} x^(2^k)·2^(k−1), for the share of empty registers. */
function sigma(x: number): number {
  if (x === 1) return Number.POSITIVE_INFINITY;
  let power = x;
  let weight = 1;
  let sum = x;
  for (;;) {
    power *= power;
    const previous = sum;
    sum += power * weight;
    weight += weight;
    if (sum === previous) return sum;
  }
}

/** Ertl's τ(x), for the share of registers at the largest rank. */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let root = x;
  let weight = 1;
  let sum = 1 - x;
  for (;;) {
    root = Math.sqrt(root);
    const previous = sum;
    weight *= 0.5;
    sum -= (1 - root) ** 2 * weight;
    if (sum === previous) return sum / 3;
  }
}

/** The estimated number of distinct values. */
export function hllEstimate(sketch: HllSketch): number {
  const histogram = new Float64Array(RANK_BITS + 2);
  if (sketch.dense) {
    for (let i = 0; i < REGISTERS; i++) (histogram[sketch.dense[i] as number] as number)++;
  } else {
    const sparse = sketch.sparse as Map<number, number>;
    histogram[0] = REGISTERS - sparse.size;
    for (const rank of sparse.values()) (histogram[rank] as number)++;
  }
  let z = REGISTERS * tau(1 - (histogram[RANK_BITS + 1] as number) / REGISTERS);
  for (let k = RANK_BITS; k >= 1; k--) z = 0.5 * (z + (histogram[k] as number));
  z += REGISTERS * sigma((histogram[0] as number) / REGISTERS);
  return (REGISTERS * REGISTERS) / (2 * Math.LN2) / z;
}

function setRegisters(dense: Uint8Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < REGISTERS; i++) if ((dense[i] as number) > 0) out.push([i, dense[i] as number]);
  return out;
}

/** The state's bytes (docs/formats/sketch-states.md), as a Binary value (latin1 text). */
export function encodeHll(sketch: HllSketch): string {
  let bytes: Uint8Array;
  const entries = sketch.dense ? setRegisters(sketch.dense) : [...(sketch.sparse as Map<number, number>)];
  const dense = entries.length > SPARSE_ENCODED_MAX;
  if (dense) {
    bytes = new Uint8Array(HEADER_BYTES + REGISTERS);
    for (const [index, rank] of entries) bytes[HEADER_BYTES + index] = rank;
  } else {
    entries.sort((a, b) => a[0] - b[0]);
    bytes = new Uint8Array(HEADER_BYTES + 4 + entries.length * 3);
    const view = new DataView(bytes.buffer);
    view.setUint32(HEADER_BYTES, entries.length, true);
    let at = HEADER_BYTES + 4;
    for (const [index, rank] of entries) {
      view.setUint16(at, index, true);
      bytes[at + 2] = rank;
      at += 3;
    }
  }
  for (let i = 0; i < 4; i++) bytes[i] = MAGIC.charCodeAt(i);
  bytes[4] = VERSION;
  bytes[5] = HLL_PRECISION;
  bytes[6] = dense ? FORM_DENSE : FORM_SPARSE;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** A sketch from a Binary value, or null when the bytes are not a state of this format. */
export function decodeHll(value: string): HllSketch | null {
  const bytes = Buffer.from(value, 'latin1');
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== MAGIC) return null;
  if (bytes[4] !== VERSION || bytes[5] !== HLL_PRECISION || bytes[7] !== 0) return null;
  if (bytes[6] === FORM_DENSE) {
    if (bytes.length !== HEADER_BYTES + REGISTERS) return null;
    const dense = new Uint8Array(bytes.subarray(HEADER_BYTES));
    for (const rank of dense) if (rank > RANK_BITS + 1) return null;
    return { sparse: null, dense };
  }
  if (bytes[6] !== FORM_SPARSE || bytes.length < HEADER_BYTES + 4) return null;
  const count = bytes.readUInt32LE(HEADER_BYTES);
  if (bytes.length !== HEADER_BYTES + 4 + count * 3) return null;
  const sketch = newHll();
  for (let at = HEADER_BYTES + 4; at < bytes.length; at += 3) {
    const index = bytes.readUInt16LE(at);
    const rank = bytes[at + 2] as number;
    if (index >= REGISTERS || rank === 0 || rank > RANK_BITS + 1) return null;
    setRegister(sketch, index, rank);
  }
  return sketch;
}
