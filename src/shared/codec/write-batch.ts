/**
 * Encoding of the rows one ingest request sends to one shard. The router encodes once; the shard
 * appends the very same bytes to its WAL and decodes them into its memtable, so a write is never
 * re-encoded on its way to disk.
 *
 * Batches are written in the binary form of write-batch-binary.ts. Records written before it are
 * msgpack maps whose typed arrays travel as byte strings; they still decode (a WAL can hold both
 * forms), as do key definitions, which stay msgpack.
 */
import { Packr } from 'msgpackr';
import type { PhysicalKind, Vector } from '../types.js';
import type { MergeMode, WriteBatch } from './table-rows.js';
import { Utf8Vector } from './utf8-column.js';
import { BINARY_BATCH_MAGIC, decodeBinaryBatch, encodeBinaryBatch } from './write-batch-binary.js';

export {
  DELETE_MARK_COLUMN_ID,
  type MergeMode,
  type ResolvedKey,
  seriesCountOf,
  seriesFormOf,
  type TableRows,
  type WriteBatch,
} from './table-rows.js';

const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * A column of a msgpack record (written before the binary form). Strings as UTF-8 bytes `u` with
 * each value's byte length in `e` (i32 LE, -1 for NULL; see utf8-column.ts); older still, a joined
 * string `j` with UTF-16 lengths `l`, or an array of strings `s`.
 */
interface WireVector {
  k: PhysicalKind;
  b?: Uint8Array;
  s?: Array<string | null>;
  j?: string;
  l?: Uint8Array;
  u?: Uint8Array;
  e?: Uint8Array;
  v?: Uint8Array;
}

/** The values of an older record's joined string column (`j` with UTF-16 lengths `l`). */
function splitStrings(joined: string, lengthBytes: Uint8Array): Array<string | null> {
  const lengths = new Int32Array(aligned(lengthBytes));
  const out = new Array<string | null>(lengths.length);
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    const n = lengths[i] as number;
    if (n < 0) {
      out[i] = null;
      continue;
    }
    if (at + n > joined.length) throw new Error('string column shorter than its lengths');
    out[i] = joined.substring(at, at + n);
    at += n;
  }
  if (at !== joined.length) throw new Error('string column longer than its lengths');
  return out;
}

/** Copies into a fresh buffer so the typed array is aligned whatever offset msgpackr gave us. */
function aligned(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

function vectorFromWire(w: WireVector): Vector {
  if (w.k === 'str' && w.u !== undefined && w.e !== undefined) {
    return new Utf8Vector({ bytes: w.u, lengths: new Int32Array(aligned(w.e)) }, w.v ? new Uint8Array(w.v) : undefined);
  }
  let values: Vector['values'];
  switch (w.k) {
    case 'str':
      values = w.j !== undefined && w.l !== undefined ? splitStrings(w.j, w.l) : (w.s ?? []);
      break;
    case 'f64':
      values = new Float64Array(aligned(w.b ?? new Uint8Array()));
      break;
    case 'i64':
      values = new BigInt64Array(aligned(w.b ?? new Uint8Array()));
      break;
    case 'u64':
      values = new BigUint64Array(aligned(w.b ?? new Uint8Array()));
      break;
    case 'bool':
      values = new Uint8Array(w.b ?? new Uint8Array());
      break;
  }
  return { kind: w.k, values, valid: w.v ? new Uint8Array(w.v) : undefined };
}

/** The batch's wire form (write-batch-binary.ts), in a buffer of its own. */
export function encodeWriteBatch(batch: WriteBatch): Uint8Array {
  return encodeBinaryBatch(batch);
}

/** Series keys a WAL file defines by id ahead of the records that reference them. */
export interface KeyDefinitions {
  origins: number[];
  ids: number[];
  keys: string[];
}

export function encodeKeyDefinitions(defs: KeyDefinitions): Uint8Array {
  const encoded = packr.pack({ d: { o: defs.origins, i: defs.ids, k: defs.keys } });
  const out = new Uint8Array(encoded.byteLength);
  out.set(encoded);
  return out;
}

/** A WAL record's payload: a write batch, or key definitions (src/shard/key-refs.ts). */
export function decodeWalRecord(bytes: Uint8Array): { batch: WriteBatch } | { definitions: KeyDefinitions } {
  if (bytes[0] === BINARY_BATCH_MAGIC) return { batch: decodeBinaryBatch(bytes) };
  const raw = packr.unpack(bytes) as { d?: { o: unknown; i: unknown; k: unknown } };
  if (raw !== null && typeof raw === 'object' && raw.d !== undefined) {
    return { definitions: { origins: raw.d.o as number[], ids: raw.d.i as number[], keys: raw.d.k as string[] } };
  }
  return { batch: batchOfRaw(raw) };
}

export function decodeWriteBatch(bytes: Uint8Array): WriteBatch {
  if (bytes[0] === BINARY_BATCH_MAGIC) return decodeBinaryBatch(bytes);
  return batchOfRaw(packr.unpack(bytes));
}

function batchOfRaw(unpacked: unknown): WriteBatch {
  const raw = unpacked as {
    t: Array<{
      i: number;
      m: MergeMode;
      n: number;
      ts: Uint8Array;
      g: number[];
      st: Array<Array<string | null>>;
      rs: Uint8Array;
      sk?: string[];
      kb?: Uint8Array;
      ke?: Uint8Array;
      ko?: number;
      ki?: Uint8Array;
      kr?: Uint8Array;
      f: Array<[number, WireVector]>;
    }>;
  };
  return {
    tables: raw.t.map((t) => ({
      tableId: t.i,
      mergeMode: t.m,
      rowCount: t.n,
      timestamps: new BigInt64Array(aligned(t.ts)),
      tagIds: t.g,
      seriesTags: t.st,
      rowSeries: new Uint32Array(aligned(t.rs)),
      seriesKeys: t.sk,
      seriesKeyBlob:
        t.kb && t.ke
          ? {
              bytes: t.kb,
              ends: new Uint32Array(aligned(t.ke)),
              origin: t.ko,
              ids: t.ki ? new Int32Array(aligned(t.ki)) : undefined,
              refs: t.kr,
            }
          : undefined,
      fields: t.f.map(([id, w]) => ({ id, vector: vectorFromWire(w) })),
    })),
  };
}
