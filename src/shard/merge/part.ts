/**
 * The unit the merge works on: a run of rows of one series from one source (a memtable or one
 * block of a segment), sorted by timestamp. Rows with equal timestamps inside a part are in write
 * order. Parts of one series are handed to the merge oldest first.
 */
import type { PhysicalKind, Vector } from '../../shared/types.js';

/** A field column as storage keys it: catalog column id plus the physical kind it was written with. */
export interface FieldSpec {
  id: number;
  kind: PhysicalKind;
}

/**
 * `valid[row]` of a row whose write did not carry the column at all (written before the column
 * was added, or by a client that left it out). Scans read it as the column's default, or NULL
 * when it has none; GreptimeDB fills defaults the same way. Merges treat it like NULL.
 */
export const ABSENT = 2;

/**
 * Values of one column; `valid[row]` is 1 (present), 0 (NULL) or ABSENT; `valid` undefined means
 * every row is present (for `str`, a null value is NULL).
 */
export interface ColumnData {
  values: Vector['values'];
  valid: Uint8Array | undefined;
}

export interface Part {
  /** Timestamps; rows `[start, end)` belong to the part. */
  ts: BigInt64Array;
  start: number;
  end: number;
  /** One entry per field spec of the merge: the column, or null when the source lacks it. */
  cols: Array<ColumnData | null>;
  /** True when no two rows of the part share a timestamp. */
  unique: boolean;
  /**
   * The part's first and last timestamps when known without reading `ts` (a segment block's
   * statistics): such a part decodes its block only when its rows are read, so a scan that stops
   * early (LIMIT) never decodes the blocks it did not reach.
   */
  firstTs?: bigint | undefined;
  lastTs?: bigint | undefined;
  /**
   * Set on the pieces of one time-sorted run (a series' blocks in one segment), the same object on
   * each, which a merge's list then holds next to each other in order: a merge walks them as one
   * input instead of comparing every block with every other at each row.
   */
  run?: object | undefined;
  /** Lets go of what reading the rows decoded; called once a merge is past the part. */
  release?(): void;
}

const KIND_CODES: Record<PhysicalKind, number> = { f64: 1, i64: 2, u64: 3, bool: 4, str: 5 };
const KINDS_BY_CODE: PhysicalKind[] = ['f64', 'f64', 'i64', 'u64', 'bool', 'str'];

/** The on-disk code of a kind (also used in map keys): f64 1, i64 2, u64 3, bool 4, str 5. */
export function kindCodeOf(kind: PhysicalKind): number {
  return KIND_CODES[kind];
}

/** Inverse of `kindCodeOf`; undefined for an unknown code. */
export function kindOfCode(code: number): PhysicalKind | undefined {
  return code >= 1 && code <= 5 ? KINDS_BY_CODE[code] : undefined;
}

/** A number naming (column id, kind), for maps. */
export function specKey(id: number, kind: PhysicalKind): number {
  return id * 8 + KIND_CODES[kind];
}

/** Sorts specs by (id, kind code), the column order of segment files. */
export function sortSpecs(specs: FieldSpec[]): FieldSpec[] {
  return specs.sort((a, b) => specKey(a.id, a.kind) - specKey(b.id, b.kind));
}

/** Index of the first row in `[from, to)` with `ts[row] >= t`. */
export function lowerBound(ts: BigInt64Array, from: number, to: number, t: bigint): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as bigint) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first row in `[from, to)` with `ts[row] > t`. */
export function upperBound(ts: BigInt64Array, from: number, to: number, t: bigint): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as bigint) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Smallest and largest int64, the default bounds of a scan. */
export const I64_MIN = -(2n ** 63n);
export const I64_MAX = 2n ** 63n - 1n;
