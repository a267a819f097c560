/**
 * Decodes a write payload and checks that its shape is what the memtable relies on (lengths,
 * kinds, tag value types). The store runs this before a payload reaches the WAL, so a malformed
 * payload is refused instead of made durable; recovery runs it again and cuts the WAL at a record
 * that fails.
 */

import { utf8ColumnProblem, utf8Of } from '../shared/codec/utf8-column.js';
import {
  decodeWalRecord,
  decodeWriteBatch,
  type KeyDefinitions,
  seriesCountOf,
  type WriteBatch,
} from '../shared/codec/write-batch.js';
import { InvalidArgument } from '../shared/errors.js';
import { problemOfBlob } from '../shared/series-key-blob.js';
import type { PhysicalKind } from '../shared/types.js';

const MERGE_MODES = new Set(['last_row', 'last_non_null', 'append']);

type TypedArrayClass = typeof Float64Array | typeof BigInt64Array | typeof BigUint64Array | typeof Uint8Array;

const TYPED_ARRAY_OF: Record<Exclude<PhysicalKind, 'str'>, TypedArrayClass> = {
  f64: Float64Array,
  i64: BigInt64Array,
  u64: BigUint64Array,
  bool: Uint8Array,
};

function isId(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function stringsOk(values: unknown, n: number): boolean {
  if (!Array.isArray(values) || values.length < n) return false;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== null && typeof v !== 'string') return false;
  }
  return true;
}

/** The first problem of a decoded batch, or null. */
export function problemOfBatch(batch: WriteBatch): string | null {
  if (!batch || !Array.isArray(batch.tables)) return 'no table list';
  for (const t of batch.tables) {
    if (!isId(t.tableId)) return 'bad table id';
    const where = `table ${t.tableId}`;
    if (!MERGE_MODES.has(t.mergeMode)) return `${where}: bad merge mode`;
    const n = t.rowCount;
    if (!isId(n)) return `${where}: bad row count`;
    if (!(t.timestamps instanceof BigInt64Array) || t.timestamps.length !== n) return `${where}: bad timestamps`;
    if (!Array.isArray(t.tagIds) || !Array.isArray(t.seriesTags) || !Array.isArray(t.fields)) {
      return `${where}: bad column lists`;
    }
    for (const id of t.tagIds) if (!isId(id)) return `${where}: bad tag column ${String(id)}`;
    const width = t.tagIds.length;
    for (const tuple of t.seriesTags) {
      if (!stringsOk(tuple, width) || tuple.length !== width) return `${where}: bad series tags`;
    }
    if (t.seriesKeys !== undefined) {
      const keys: unknown = t.seriesKeys;
      if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string') || t.seriesTags.length !== 0) {
        return `${where}: bad series keys`;
      }
    }
    if (t.seriesKeyBlob !== undefined) {
      if (t.seriesKeys !== undefined || t.seriesTags.length !== 0) return `${where}: bad series keys`;
      const problem = problemOfBlob(t.seriesKeyBlob);
      if (problem) return `${where}: ${problem}`;
    }
    if (!(t.rowSeries instanceof Uint32Array) || t.rowSeries.length !== n) return `${where}: bad row series`;
    const seriesCount = seriesCountOf(t);
    for (let i = 0; i < n; i++) if ((t.rowSeries[i] as number) >= seriesCount) return `${where}: bad row series`;
    for (const f of t.fields) {
      const v = f.vector;
      const bad = `${where}: bad field column ${String(f.id)}`;
      if (!isId(f.id) || !v) return bad;
      if (v.kind === 'str') {
        const utf8 = utf8Of(v);
        if (utf8 ? utf8ColumnProblem(utf8, n) !== null : !stringsOk(v.values, n)) return bad;
      } else {
        const type = TYPED_ARRAY_OF[v.kind];
        if (!type || !(v.values instanceof type) || (v.values as Float64Array).length < n) return bad;
      }
      if (v.valid !== undefined && (!(v.valid instanceof Uint8Array) || v.valid.length < n)) return bad;
    }
  }
  return null;
}

/** Decodes and checks one payload; the error says why a payload is refused. */
export function decodePayload(payload: Uint8Array): WriteBatch {
  let batch: WriteBatch;
  try {
    batch = decodeWriteBatch(payload);
  } catch (err) {
    throw new InvalidArgument(`undecodable write payload: ${(err as Error).message}`);
  }
  const problem = problemOfBatch(batch);
  if (problem) throw new InvalidArgument(`malformed write payload: ${problem}`);
  return batch;
}

/** Decodes and checks one WAL record's payload: a write batch, or key definitions. */
export function decodeWalPayload(payload: Uint8Array): { batch: WriteBatch } | { definitions: KeyDefinitions } {
  let record: ReturnType<typeof decodeWalRecord>;
  try {
    record = decodeWalRecord(payload);
  } catch (err) {
    throw new InvalidArgument(`undecodable write payload: ${(err as Error).message}`);
  }
  if ('definitions' in record) {
    const { origins, ids, keys } = record.definitions;
    const ok =
      Array.isArray(origins) &&
      Array.isArray(ids) &&
      Array.isArray(keys) &&
      origins.length === ids.length &&
      ids.length === keys.length &&
      origins.every((o) => Number.isSafeInteger(o)) &&
      ids.every((i) => Number.isInteger(i) && i >= 0) &&
      keys.every((k) => typeof k === 'string');
    if (!ok) throw new InvalidArgument('malformed key definitions');
    return record;
  }
  const problem = problemOfBatch(record.batch);
  if (problem) throw new InvalidArgument(`malformed write payload: ${problem}`);
  return record;
}
