/**
 * Storage keys as they travel from the thread that decoded a request to the shard that stores it:
 * one UTF-8 blob per batch, with each key's end and hash. Sending keys as msgpack strings cost
 * an encode on one side, a string per key and a string hash per lookup on the other; a blob is
 * copied, and the memtable finds a known series by the hash and a byte comparison, building no
 * string unless the series is new.
 */
import { Buffer } from 'node:buffer';

/** Key k is `bytes[k === 0 ? 0 : ends[k - 1], ends[k])`; `hashes[k]` is `seriesKeyHash` of it. */
export interface SeriesKeyBlob {
  bytes: Uint8Array;
  ends: Uint32Array;
  hashes: Uint32Array;
}

/** A key with what the blob needs, computed once per series (kept on the decoder's series cache). */
export interface EncodedKey {
  utf8: Uint8Array;
  hash: number;
}

/** FNV-1a 32 over the key's UTF-16 code units: the same for a key however it arrived. */
export function seriesKeyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Null for a key UTF-8 cannot carry exactly (a lone surrogate, possible from JSON input). */
export function encodeKey(key: string): EncodedKey | null {
  if (hasLoneSurrogate(key)) return null;
  return { utf8: Buffer.from(key, 'utf8'), hash: seriesKeyHash(key) };
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
  const hashes = new Uint32Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const key = keys[picks ? (picks[i] as number) : i] as EncodedKey;
    bytes.set(key.utf8, at);
    at += key.utf8.length;
    ends[i] = at;
    hashes[i] = key.hash;
  }
  return { bytes, ends, hashes };
}

/** Key k of the blob as a string (for a series seen for the first time). */
export function blobKey(blob: SeriesKeyBlob, k: number): string {
  const start = k === 0 ? 0 : (blob.ends[k - 1] as number);
  const end = blob.ends[k] as number;
  return Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset + start, end - start).toString('utf8');
}

/** Whether key k of the blob is `key`, comparing bytes with code units (no string built for ASCII). */
export function blobKeyEquals(blob: SeriesKeyBlob, k: number, key: string): boolean {
  const start = k === 0 ? 0 : (blob.ends[k - 1] as number);
  const end = blob.ends[k] as number;
  const bytes = blob.bytes;
  if (end - start === key.length) {
    let i = 0;
    for (; i < key.length; i++) {
      const b = bytes[start + i] as number;
      if (b >= 0x80) break;
      if (b !== key.charCodeAt(i)) return false;
    }
    if (i === key.length) return true;
  } else if (end - start < key.length) {
    return false; // UTF-8 is never shorter than the UTF-16 code unit count
  }
  return blobKey(blob, k) === key;
}

/** The problem with a blob, or null: ends ascending to its size, one hash per key. */
export function problemOfBlob(blob: SeriesKeyBlob): string | null {
  if (!(blob.bytes instanceof Uint8Array) || !(blob.ends instanceof Uint32Array)) return 'bad key blob';
  if (!(blob.hashes instanceof Uint32Array) || blob.hashes.length !== blob.ends.length) return 'bad key blob';
  let last = 0;
  for (let k = 0; k < blob.ends.length; k++) {
    const end = blob.ends[k] as number;
    if (end < last) return 'bad key blob';
    last = end;
  }
  return last === blob.bytes.length ? null : 'bad key blob';
}
