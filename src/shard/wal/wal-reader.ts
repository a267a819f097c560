/**
 * Replays WAL files at open. Records are read until the first bad one: a torn header or payload
 * (the crash happened mid-write), a CRC mismatch, or a payload the caller cannot decode. The file
 * is then truncated at the start of that record, so the next append lands after the last good
 * record, and the cut is reported. Bad WAL content never throws.
 */
import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { RECORD_HEADER_BYTES, RECORD_PAYLOAD_BYTES_MAX } from './wal-record.js';

/** Where reading stopped early and why. */
export interface WalCut {
  offset: number;
  reason: string;
  bytesCut: number;
}

export interface WalReplay {
  records: number;
  cut: WalCut | null;
}

/**
 * Walks the records of `bytes`, handing each payload to `apply`, which returns null when it took
 * the record or a reason when the payload is undecodable.
 */
export function readRecords(bytes: Uint8Array, apply: (payload: Uint8Array) => string | null): WalReplay {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  let records = 0;
  const stop = (reason: string): WalReplay => ({ records, cut: { offset: pos, reason, bytesCut: view.length - pos } });
  while (pos < view.length) {
    if (view.length - pos < RECORD_HEADER_BYTES) return stop('torn record header');
    const length = view.readUInt32LE(pos);
    const crc = view.readUInt32LE(pos + 4);
    if (length === 0 || length > RECORD_PAYLOAD_BYTES_MAX) return stop(`bad record length ${length}`);
    if (view.length - pos - RECORD_HEADER_BYTES < length) return stop('torn record payload');
    const payload = view.subarray(pos + RECORD_HEADER_BYTES, pos + RECORD_HEADER_BYTES + length);
    if (crc32(payload) !== crc) return stop('checksum mismatch');
    const problem = apply(payload);
    if (problem !== null) return stop(`undecodable payload (${problem})`);
    records++;
    pos += RECORD_HEADER_BYTES + length;
  }
  return { records, cut: null };
}

/** Replays one WAL file and truncates it at a cut. */
export function replayWalFile(file: string, apply: (payload: Uint8Array) => string | null): WalReplay {
  const bytes = fs.readFileSync(file);
  const result = readRecords(bytes, apply);
  if (result.cut) {
    const fd = fs.openSync(file, 'r+');
    try {
      fs.ftruncateSync(fd, result.cut.offset);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  return result;
}
