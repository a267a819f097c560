/**
 * UDDSketch (Epicoco et al., "The UDDSketch: Accurate Tracking of Quantiles in Data Streams",
 * 2020) behind `uddsketch_state`, `uddsketch_merge` and `uddsketch_calc`, with the bucket
 * mapping, compaction and quantile rule of the `uddsketch` crate GreptimeDB uses, so the same
 * values give GreptimeDB's quantiles.
 *
 * A value v ≠ 0 falls in bucket ⌈log_γ |v|⌉ (γ = (1+α)/(1−α)), kept apart by sign; zero has its
 * own bucket. A bucket answers γ^(i−1)·(1+α), within relative error α of every value in it. When
 * more than `maxBuckets` buckets are in use, neighbouring buckets pair up (γ ← γ², α ← 2α/(1+α²)):
 * the error bound grows, but only as far as the data's range needs.
 *
 * The serialised state is ShoalDB's own format (docs/formats/sketch-states.md): GreptimeDB's has
 * changed from a bincode of the crate's hash map to a newer canonical encoding, and neither could
 * be pinned down byte for byte here.
 */

/** Sketch parameters and contents. Maps survive structured clone, so the state travels as is. */
export interface UddSketch {
  maxBuckets: number;
  initialError: number;
  compactions: number;
  /** Current error bound and bucket base, derived from `initialError` and `compactions`. */
  alpha: number;
  gamma: number;
  count: number;
  sum: number;
  zero: number;
  /** Bucket index → count, by sign of the values. ±Infinity index the infinite values. */
  positive: Map<number, number>;
  negative: Map<number, number>;
}

const MAGIC = 'SUDD';
const VERSION = 1;
const HEADER_BYTES = 52;
const ENTRY_BYTES = 16;
const INFINITE_INDEX = 0x7fffffffffffffffn;
const COMPACTIONS_MAX = 63;

/** An empty sketch. */
export function newUddSketch(maxBuckets: number, initialError: number): UddSketch {
  return {
    maxBuckets,
    initialError,
    compactions: 0,
    alpha: initialError,
    gamma: (1 + initialError) / (1 - initialError),
    count: 0,
    sum: 0,
    zero: 0,
    positive: new Map(),
    negative: new Map(),
  };
}

function bucketCount(s: UddSketch): number {
  return s.positive.size + s.negative.size + (s.zero > 0 ? 1 : 0);
}

/** The crate's index: `ceil(ln|v| / ln γ)`, NaN landing in bucket 0 as Rust's `as i64` puts it. */
function indexOf(magnitude: number, gamma: number): number {
  const index = Math.ceil(Math.log(magnitude) / Math.log(gamma));
  return Number.isNaN(index) ? 0 : index;
}

/** Adds one value. */
export function uddAdd(s: UddSketch, value: number): void {
  if (value === 0) s.zero++;
  else {
    const buckets = value < 0 ? s.negative : s.positive;
    const index = indexOf(Math.abs(value), s.gamma);
    buckets.set(index, (buckets.get(index) ?? 0) + 1);
  }
  s.count++;
  s.sum += value;
  while (bucketCount(s) > s.maxBuckets) compact(s);
}

/** The index after one compaction: odd buckets join the bucket above (−3,−2 → −1; 1,2 → 1). */
function compactIndex(index: number): number {
  if (!Number.isFinite(index)) return index;
  return Math.trunc((index > 0 ? index + 1 : index) / 2);
}

function compactMap(buckets: Map<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [index, n] of buckets) {
    const next = compactIndex(index);
    out.set(next, (out.get(next) ?? 0) + n);
  }
  return out;
}

function compact(s: UddSketch): void {
  s.positive = compactMap(s.positive);
  s.negative = compactMap(s.negative);
  s.compactions++;
  s.gamma *= s.gamma;
  s.alpha = (2 * s.alpha) / (1 + s.alpha ** 2);
}

/** Whether two sketches were made with the same parameters (and so can merge). */
export function sameParameters(a: UddSketch, b: UddSketch): boolean {
  return a.maxBuckets === b.maxBuckets && a.initialError === b.initialError;
}

/** Folds `from` into `into` (same parameters): exact, whatever the order of merges. */
export function uddMerge(into: UddSketch, from: UddSketch): void {
  if (from.count === 0) return;
  let other = from;
  if (other.compactions < into.compactions) {
    other = { ...from, positive: new Map(from.positive), negative: new Map(from.negative) };
    while (other.compactions < into.compactions) compact(other);
  }
  while (into.compactions < other.compactions) compact(into);
  for (const [index, n] of other.positive) into.positive.set(index, (into.positive.get(index) ?? 0) + n);
  for (const [index, n] of other.negative) into.negative.set(index, (into.negative.get(index) ?? 0) + n);
  into.zero += other.zero;
  into.count += other.count;
  into.sum += other.sum;
  while (bucketCount(into) > into.maxBuckets) compact(into);
}

/** Buckets from the smallest value to the largest, as (signed magnitude factor, index, count). */
function orderedBuckets(s: UddSketch): Array<[sign: number, index: number, count: number]> {
  const out: Array<[number, number, number]> = [];
  for (const index of [...s.negative.keys()].sort((a, b) => b - a)) out.push([-1, index, s.negative.get(index) ?? 0]);
  if (s.zero > 0) out.push([0, 0, s.zero]);
  for (const index of [...s.positive.keys()].sort((a, b) => a - b)) out.push([1, index, s.positive.get(index) ?? 0]);
  return out;
}

/**
 * The estimated `quantile` (0..1) as GreptimeDB computes it: the bucket holding the value of rank
 * ⌊n·q⌋+1 (capped at n). Null for an empty sketch or a quantile outside [0, 1].
 */
export function uddQuantile(s: UddSketch, quantile: number): number | null {
  if (!Number.isFinite(quantile) || quantile < 0 || quantile > 1 || s.count === 0) return null;
  const target = quantile === 1 ? s.count : Math.min(Math.floor(s.count * quantile) + 1, s.count);
  let seen = 0;
  for (const [sign, index, n] of orderedBuckets(s)) {
    seen += n;
    if (seen >= target) return sign === 0 ? 0 : sign * s.gamma ** (index - 1) * (1 + s.alpha);
  }
  return null;
}

/** The state's bytes (docs/formats/sketch-states.md), as a Binary value (latin1 text). */
export function encodeUddSketch(s: UddSketch): string {
  const negative = [...s.negative].sort((a, b) => b[0] - a[0]);
  const positive = [...s.positive].sort((a, b) => a[0] - b[0]);
  const bytes = Buffer.alloc(HEADER_BYTES + (negative.length + positive.length) * ENTRY_BYTES);
  bytes.write(MAGIC, 0, 'latin1');
  bytes[4] = VERSION;
  bytes[5] = s.compactions;
  bytes.writeUInt32LE(s.maxBuckets, 8);
  bytes.writeDoubleLE(s.initialError, 12);
  bytes.writeBigUInt64LE(BigInt(s.count), 20);
  bytes.writeDoubleLE(s.sum, 28);
  bytes.writeBigUInt64LE(BigInt(s.zero), 36);
  bytes.writeUInt32LE(negative.length, 44);
  bytes.writeUInt32LE(positive.length, 48);
  let at = HEADER_BYTES;
  for (const [index, n] of [...negative, ...positive]) {
    bytes.writeBigInt64LE(Number.isFinite(index) ? BigInt(index) : INFINITE_INDEX, at);
    bytes.writeBigUInt64LE(BigInt(n), at + 8);
    at += ENTRY_BYTES;
  }
  return bytes.toString('latin1');
}

function readEntries(bytes: Buffer, at: number, entries: number, into: Map<number, number>): number | null {
  let total = 0;
  for (let i = 0; i < entries; i++, at += ENTRY_BYTES) {
    const raw = bytes.readBigInt64LE(at);
    const index = raw === INFINITE_INDEX ? Number.POSITIVE_INFINITY : Number(raw);
    const n = Number(bytes.readBigUInt64LE(at + 8));
    if (n === 0 || into.has(index)) return null;
    into.set(index, n);
    total += n;
  }
  return total;
}

/** A sketch from a Binary value, or null when the bytes are not a consistent state of this format. */
export function decodeUddSketch(value: string): UddSketch | null {
  const bytes = Buffer.from(value, 'latin1');
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== MAGIC || bytes[4] !== VERSION) return null;
  const compactions = bytes[5] as number;
  const maxBuckets = bytes.readUInt32LE(8);
  const initialError = bytes.readDoubleLE(12);
  const negativeEntries = bytes.readUInt32LE(44);
  const positiveEntries = bytes.readUInt32LE(48);
  if (bytes.length !== HEADER_BYTES + (negativeEntries + positiveEntries) * ENTRY_BYTES) return null;
  if (compactions > COMPACTIONS_MAX || maxBuckets === 0 || !(initialError >= 1e-12 && initialError < 1)) return null;
  const s = newUddSketch(maxBuckets, initialError);
  for (let i = 0; i < compactions; i++) compact(s);
  s.count = Number(bytes.readBigUInt64LE(20));
  s.sum = bytes.readDoubleLE(28);
  s.zero = Number(bytes.readBigUInt64LE(36));
  const negatives = readEntries(bytes, HEADER_BYTES, negativeEntries, s.negative);
  const positives = readEntries(bytes, HEADER_BYTES + negativeEntries * ENTRY_BYTES, positiveEntries, s.positive);
  if (negatives === null || positives === null || negatives + positives + s.zero !== s.count) return null;
  if (bucketCount(s) > maxBuckets) return null;
  return s;
}
