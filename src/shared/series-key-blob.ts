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
 * to another process: WAL replay drops them (`withoutKeyIds`).
 */
import { Buffer } from 'node:buffer';
import { threadId } from 'node:worker_threads';

/**
 * Key k is `bytes[k === 0 ? 0 : ends[k - 1], ends[k])`; `ids[k]` its key id among those minted by
 * thread `origin` (-1: none).
 */
export interface SeriesKeyBlob {
  bytes: Uint8Array;
  ends: Uint32Array;
  origin?: number | undefined;
  ids?: Int32Array | undefined;
}

/** A key with what the blob needs, computed once per series (kept on the decoder's series cache). */
export interface EncodedKey {
  utf8: Uint8Array;
  /** The minting thread's id and the key's number among its keys (-1: none). */
  origin: number;
  id: number;
}

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
  return { utf8: Buffer.from(key, 'utf8'), origin: threadId, id: mintKeyId() };
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

/** The blob of `keys[picks[i]]` for each i (all of `keys` when `picks` is absent). */
export function blobOf(keys: readonly EncodedKey[], picks?: ArrayLike<number>): SeriesKeyBlob {
  const n = picks ? picks.length : keys.length;
  let size = 0;
  for (let i = 0; i < n; i++) size += (keys[picks ? (picks[i] as number) : i] as EncodedKey).utf8.length;
  const bytes = new Uint8Array(size);
  const ends = new Uint32Array(n);
  const ids = new Int32Array(n);
  const origin = n > 0 ? (keys[picks ? (picks[0] as number) : 0] as EncodedKey).origin : threadId;
  let at = 0;
  for (let i = 0; i < n; i++) {
    const key = keys[picks ? (picks[i] as number) : i] as EncodedKey;
    bytes.set(key.utf8, at);
    at += key.utf8.length;
    ends[i] = at;
    ids[i] = key.origin === origin ? key.id : -1;
  }
  return { bytes, ends, origin, ids };
}

/** The blob with its key ids dropped (for batches from another process: the WAL). */
export function withoutKeyIds(blob: SeriesKeyBlob): SeriesKeyBlob {
  return { bytes: blob.bytes, ends: blob.ends };
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
  let last = 0;
  for (let k = 0; k < blob.ends.length; k++) {
    const end = blob.ends[k] as number;
    if (end < last) return 'bad key blob';
    last = end;
  }
  return last === blob.bytes.length ? null : 'bad key blob';
}
