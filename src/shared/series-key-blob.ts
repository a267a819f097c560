/**
 * Storage keys as they travel from the thread that decoded a request to the shard that stores it:
 * one UTF-8 blob per batch, with each key's end and its key id. Sending keys as msgpack strings
 * cost an encode on one side, a string per key and a string hash per lookup on the other.
 *
 * A key id, with the id of the thread that minted it, names one key string for the life of the
 * process: the decoder mints it when it first encodes the key (once per series, kept on its series
 * cache) from a counter, so no two keys ever share one. A memtable that has seen an id finds the series by it alone;
 * comparing the key's bytes instead cost more than everything else a row does (keys run to
 * hundreds of bytes). Only the first batch with an id pays for a string lookup. Ids mean nothing
 * to another process: WAL replay resolves them through the WAL's own definitions (key-refs.ts).
 *
 * Once a key's bytes have gone to a shard, later blobs to it carry only the id (`refs`): the
 * key bytes were nine tenths of a remote-write payload, copied between threads, checksummed,
 * written to the WAL and fsynced with every request.
 */
import { Buffer } from 'node:buffer';
import { threadId } from 'node:worker_threads';

/**
 * Key k is `bytes[k === 0 ? 0 : ends[k - 1], ends[k])`; `ids[k]` its key id among those minted by
 * thread `origin` (-1: none). With `refs`, a key whose `refs[k]` is 1 has no bytes: the sender has
 * sent them to this shard before, and the shard knows the key by its id (src/shard/key-refs.ts).
 */
export interface SeriesKeyBlob {
  bytes: Uint8Array;
  ends: Uint32Array;
  origin?: number | undefined;
  ids?: Int32Array | undefined;
  refs?: Uint8Array | undefined;
}

/** A key with what the blob needs, computed once per series (kept on the decoder's series cache). */
export interface EncodedKey {
  utf8: Uint8Array;
  /** The minting thread's id and the key's number among its keys (-1: none). */
  origin: number;
  id: number;
  /** Bit s: the bytes went to shard s once (shards below `REF_SHARDS_MAX` only). */
  sentTo: number;
}

/** Shards a key can be sent by reference to (bits of `EncodedKey.sentTo`). */
const REF_SHARDS_MAX = 31;

// Small integers, so that memtables look them up without boxing a number per row.
const KEY_IDS_MAX = 2 ** 30;
let keysMinted = 0;

/** The next key id of this thread, or -1 once it has minted 2^30 (then keys go by bytes). */
function mintKeyId(): number {
  if (keysMinted >= KEY_IDS_MAX - 1) return -1;
  return ++keysMinted;
}

/** Null for a key UTF-8 cannot carry exactly (a lone surrogate, possible from JSON input). */
export function encodeKey(key: string): EncodedKey | null {
  if (hasLoneSurrogate(key)) return null;
  return { utf8: Buffer.from(key, 'utf8'), origin: threadId, id: mintKeyId(), sentTo: 0 };
}

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return true;
  }
  return false;
}

/**
 * Zeroed arrays for a blob's per-key columns, carved from a buffer the caller shares among many
 * blobs (src/shared/ingest/part-slab.ts), `blobSlabBytes(n)` for a blob of n keys.
 */
export interface BlobSlab {
  i32(n: number): Int32Array;
  u32(n: number): Uint32Array;
  u8(n: number): Uint8Array;
}

/** What a blob of `n` keys takes of a `BlobSlab` (each column 8-byte aligned). */
export function blobSlabBytes(n: number): number {
  return 2 * ((4 * n + 7) & ~7) + ((n + 7) & ~7);
}

/**
 * The blob of `keys[picks[i]]` for each i (all of `keys` when `picks` is absent), bound for
 * `shard`. With `byRef`, a key whose bytes already went to that shard travels as its id alone.
 * The bytes count as sent once they are in a blob: a blob that never arrives makes the shard
 * refuse the next reference, and the router sends the request again with every key in full.
 */
export function blobOf(
  keys: readonly EncodedKey[],
  picks?: ArrayLike<number>,
  target?: { shard: number; byRef: boolean },
  slab?: BlobSlab,
): SeriesKeyBlob {
  const n = picks ? picks.length : keys.length;
  const origin = n > 0 ? (keys[picks ? (picks[0] as number) : 0] as EncodedKey).origin : threadId;
  const bit = target && target.shard < REF_SHARDS_MAX ? 1 << target.shard : 0;
  const byRef = bit !== 0 && target?.byRef === true;
  const ids = slab ? slab.i32(n) : new Int32Array(n);
  const refs = byRef ? (slab ? slab.u8(n) : new Uint8Array(n)) : undefined;
  let size = 0;
  let anyRef = false;
  for (let i = 0; i < n; i++) {
    const key = keys[picks ? (picks[i] as number) : i] as EncodedKey;
    const id = key.origin === origin ? key.id : -1;
    ids[i] = id;
    if (refs !== undefined && id >= 0 && (key.sentTo & bit) !== 0) {
      refs[i] = 1;
      anyRef = true;
    } else {
      size += key.utf8.length;
      if (id >= 0) key.sentTo |= bit;
    }
  }
  const bytes = new Uint8Array(size);
  const ends = slab ? slab.u32(n) : new Uint32Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    if (refs === undefined || refs[i] === 0) {
      const key = keys[picks ? (picks[i] as number) : i] as EncodedKey;
      bytes.set(key.utf8, at);
      at += key.utf8.length;
    }
    ends[i] = at;
  }
  return { bytes, ends, origin, ids, refs: anyRef ? refs : undefined };
}

/** Whether key k has no bytes in the blob (sent by reference). */
export function isKeyRef(blob: SeriesKeyBlob, k: number): boolean {
  return blob.refs !== undefined && blob.refs[k] === 1;
}

/** Key k of the blob as a string (for a series seen for the first time). */
export function blobKey(blob: SeriesKeyBlob, k: number): string {
  const start = k === 0 ? 0 : (blob.ends[k - 1] as number);
  const end = blob.ends[k] as number;
  return Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset + start, end - start).toString('utf8');
}

/** The problem with a blob, or null: ends ascending to its size, an id per key when ids are sent. */
export function problemOfBlob(blob: SeriesKeyBlob): string | null {
  if (!(blob.bytes instanceof Uint8Array) || !(blob.ends instanceof Uint32Array)) return 'bad key blob';
  const ids = blob.ids;
  if (ids !== undefined) {
    if (!(ids instanceof Int32Array) || ids.length !== blob.ends.length) return 'bad key blob';
    if (!Number.isSafeInteger(blob.origin)) return 'bad key blob';
  }
  const refs = blob.refs;
  if (refs !== undefined) {
    if (ids === undefined || !(refs instanceof Uint8Array) || refs.length !== blob.ends.length) return 'bad key blob';
    for (let k = 0; k < refs.length; k++) {
      if (refs[k] === 0) continue;
      if (refs[k] !== 1 || (ids[k] as number) < 0) return 'bad key blob';
      if (blob.ends[k] !== (k === 0 ? 0 : blob.ends[k - 1])) return 'bad key blob';
    }
  }
  let last = 0;
  for (let k = 0; k < blob.ends.length; k++) {
    const end = blob.ends[k] as number;
    if (end < last) return 'bad key blob';
    last = end;
  }
  return last === blob.bytes.length ? null : 'bad key blob';
}
