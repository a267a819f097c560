/**
 * The WAL record framing (docs/formats/wal.md):
 *
 *   length u32 LE | crc32 u32 LE (of the payload) | payload (length bytes: one encoded WriteBatch)
 *
 * and the file naming: `wal/NNNNNNNN.log`, numbered from 1 upwards, never reused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { BINARY_BATCH_MAGIC, BINARY_BATCH_VERSION } from '../../shared/codec/write-batch-binary.js';

export const RECORD_HEADER_BYTES = 8;
/** A record longer than this is treated as corrupt (a group commit is far smaller). */
export const RECORD_PAYLOAD_BYTES_MAX = 1 << 30;

/**
 * Whether a payload may start at `at`: a payload is a binary write batch (its magic byte and
 * version, write-batch-binary.ts) or a msgpack map of a few keys (key definitions, and batches
 * written before the binary form), whose header is a fixmap's byte or a map16/map32 header with a
 * small count (msgpackr writes objects as map16). Lets a resync after damage skip most offsets at once.
 */
export function isPayloadStart(bytes: Uint8Array, at: number): boolean {
  const b = bytes[at] as number;
  if (b === BINARY_BATCH_MAGIC) return bytes[at + 1] === BINARY_BATCH_VERSION;
  if ((b & 0xf0) === 0x80) return true;
  if (b === 0xde) return bytes[at + 1] === 0;
  return b === 0xdf && bytes[at + 1] === 0 && bytes[at + 2] === 0 && bytes[at + 3] === 0;
}

const WAL_FILE_PATTERN = /^(\d{8,})\.log$/;

export function walFileName(fileNumber: number): string {
  return `${String(fileNumber).padStart(8, '0')}.log`;
}

/** Numbers of the WAL files in `walDir`, ascending. */
export function listWalFiles(walDir: string): number[] {
  const numbers: number[] = [];
  for (const name of fs.readdirSync(walDir)) {
    const m = WAL_FILE_PATTERN.exec(name);
    if (m) numbers.push(Number(m[1]));
  }
  return numbers.sort((a, b) => a - b);
}

export function walFilePath(walDir: string, fileNumber: number): string {
  return path.join(walDir, walFileName(fileNumber));
}

/** Frames payloads as consecutive records in one buffer, so they go to disk with one write. */
export function encodeRecords(payloads: readonly Uint8Array[]): Buffer {
  let total = 0;
  for (const p of payloads) total += RECORD_HEADER_BYTES + p.byteLength;
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  for (const p of payloads) {
    out.writeUInt32LE(p.byteLength, pos);
    out.writeUInt32LE(crc32(p), pos + 4);
    out.set(p, pos + RECORD_HEADER_BYTES);
    pos += RECORD_HEADER_BYTES + p.byteLength;
  }
  return out;
}
