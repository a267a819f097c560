/**
 * Replays WAL files at open. Records are read until the first bad one: a torn header or payload
 * (the crash happened mid-write), a CRC mismatch, or a payload the caller cannot decode. The file
 * is then truncated at the start of that record, so the next append lands after the last good
 * record, and the cut is reported. Bad WAL content never throws.
 *
 * One exception: a record whose payload fails its CRC while everything after it is a chain of
 * intact records to the end of the file is damage in place (a flipped bit), not a torn write,
 * and cutting there would throw away acknowledged records that are fine. That record alone is
 * skipped, and the file rewritten without it (tmp, fsync, rename), so it is reported once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDirSync } from '../fs-util.js';
import { RECORD_HEADER_BYTES, RECORD_PAYLOAD_BYTES_MAX } from './wal-record.js';

/** Where reading stopped early and why. */
export interface WalCut {
  offset: number;
  reason: string;
  bytesCut: number;
}

/** A damaged record skipped in the middle of a file. */
export interface WalSkip {
  offset: number;
  reason: string;
  bytes: number;
}

export interface WalReplay {
  records: number;
  cut: WalCut | null;
  skipped: WalSkip[];
}

/** Whether `view` from `pos` to its end is one or more records with good lengths and CRCs. */
function intactFrom(view: Buffer, pos: number): boolean {
  if (pos >= view.length) return false;
  while (pos < view.length) {
    if (view.length - pos < RECORD_HEADER_BYTES) return false;
    const length = view.readUInt32LE(pos);
    if (length === 0 || length > view.length - pos - RECORD_HEADER_BYTES) return false;
    const payload = view.subarray(pos + RECORD_HEADER_BYTES, pos + RECORD_HEADER_BYTES + length);
    if (crc32(payload) !== view.readUInt32LE(pos + 4)) return false;
    pos += RECORD_HEADER_BYTES + length;
  }
  return true;
}

/**
 * Walks the records of `bytes`, handing each payload to `apply`, which returns null when it took
 * the record or a reason when the payload is undecodable.
 */
export function readRecords(bytes: Uint8Array, apply: (payload: Uint8Array) => string | null): WalReplay {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  let records = 0;
  const skipped: WalSkip[] = [];
  const stop = (reason: string): WalReplay => ({
    records,
    cut: { offset: pos, reason, bytesCut: view.length - pos },
    skipped,
  });
  while (pos < view.length) {
    if (view.length - pos < RECORD_HEADER_BYTES) return stop('torn record header');
    const length = view.readUInt32LE(pos);
    const crc = view.readUInt32LE(pos + 4);
    if (length === 0 || length > RECORD_PAYLOAD_BYTES_MAX) return stop(`bad record length ${length}`);
    if (view.length - pos - RECORD_HEADER_BYTES < length) return stop('torn record payload');
    const payload = view.subarray(pos + RECORD_HEADER_BYTES, pos + RECORD_HEADER_BYTES + length);
    if (crc32(payload) !== crc) {
      const next = pos + RECORD_HEADER_BYTES + length;
      if (!intactFrom(view, next)) return stop('checksum mismatch');
      skipped.push({ offset: pos, reason: 'checksum mismatch', bytes: next - pos });
      pos = next;
      continue;
    }
    const problem = apply(payload);
    if (problem !== null) return stop(`undecodable payload (${problem})`);
    records++;
    pos += RECORD_HEADER_BYTES + length;
  }
  return { records, cut: null, skipped };
}

/** Replays one WAL file and truncates it at a cut (rewrites it without skipped records). */
export function replayWalFile(file: string, apply: (payload: Uint8Array) => string | null): WalReplay {
  const bytes = fs.readFileSync(file);
  const result = readRecords(bytes, apply);
  if (result.skipped.length > 0) {
    const kept: Buffer[] = [];
    let from = 0;
    for (const s of result.skipped) {
      kept.push(bytes.subarray(from, s.offset));
      from = s.offset + s.bytes;
    }
    kept.push(bytes.subarray(from, result.cut?.offset ?? bytes.length));
    const tmp = `${file}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, Buffer.concat(kept));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    fsyncDirSync(path.dirname(file));
  } else if (result.cut) {
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
