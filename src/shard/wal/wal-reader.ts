/**
 * Replays WAL files at open. Records are read until the first bad one: a torn header or payload
 * (the crash happened mid-write), a CRC mismatch, or a payload the caller cannot decode. The file
 * is then truncated at the start of that record, so the next append lands after the last good
 * record, and the cut is reported. Bad WAL content never throws.
 *
 * One exception: damage followed by a chain of intact records to the end of the file is damage
 * in place (a flipped bit, a zeroed sector), not a torn write, and cutting there would throw away
 * acknowledged records that are fine. Only the damaged bytes are skipped, up to where that chain
 * starts: the record's own end when its length field is sound, else the first offset after it
 * from which every record to the end of the file checks out (a false start needs a payload whose
 * CRC matches by chance, and then every record after it to check out too). A record whose CRC is
 * good but whose payload cannot be applied (it names a series key whose definition record was
 * damaged) is skipped the same way. The file is then rewritten without the skipped bytes (tmp,
 * fsync, rename), so each is reported once. A torn tail has no intact record after it, so it is
 * still cut.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDirSync } from '../fs-util.js';
import { isPayloadStart, RECORD_HEADER_BYTES, RECORD_PAYLOAD_BYTES_MAX } from './wal-record.js';

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
 * Whether records chain from `pos` to exactly the end of `view` by their length fields alone,
 * each payload starting as every payload does: the cheap test a resync puts every offset to
 * before computing any CRC (a wrong offset rarely gets past its first or second hop).
 */
function chainsToEnd(view: Buffer, pos: number): boolean {
  while (pos < view.length) {
    if (view.length - pos <= RECORD_HEADER_BYTES) return false;
    const length = view.readUInt32LE(pos);
    if (length === 0 || length > view.length - pos - RECORD_HEADER_BYTES) return false;
    if (!isPayloadStart(view, pos + RECORD_HEADER_BYTES)) return false;
    pos += RECORD_HEADER_BYTES + length;
  }
  return true;
}

/**
 * Where the intact records after damage at `pos` start: `recordEnd` (the damaged record's end by
 * its length field, -1 when that field is itself bad) if the chain starts there, else the first
 * offset past `pos` it starts at; -1 when none does (a torn tail).
 */
function resyncPoint(view: Buffer, pos: number, recordEnd: number): number {
  if (recordEnd > pos && intactFrom(view, recordEnd)) return recordEnd;
  for (let p = pos + 1; p + RECORD_HEADER_BYTES < view.length; p++) {
    if (chainsToEnd(view, p) && intactFrom(view, p)) return p;
  }
  return -1;
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
  // Skips from `pos` to the start of the intact chain after it, or cuts there when there is none.
  const damaged = (reason: string, recordEnd: number): boolean => {
    const next = resyncPoint(view, pos, recordEnd);
    if (next < 0) return false;
    skipped.push({ offset: pos, reason, bytes: next - pos });
    pos = next;
    return true;
  };
  while (pos < view.length) {
    if (view.length - pos < RECORD_HEADER_BYTES) return stop('torn record header');
    const length = view.readUInt32LE(pos);
    const crc = view.readUInt32LE(pos + 4);
    if (length === 0 || length > RECORD_PAYLOAD_BYTES_MAX) {
      if (damaged(`bad record length ${length}`, -1)) continue;
      return stop(`bad record length ${length}`);
    }
    if (view.length - pos - RECORD_HEADER_BYTES < length) {
      if (damaged('torn record payload', -1)) continue;
      return stop('torn record payload');
    }
    const end = pos + RECORD_HEADER_BYTES + length;
    const payload = view.subarray(pos + RECORD_HEADER_BYTES, end);
    if (crc32(payload) !== crc) {
      if (damaged('checksum mismatch', end)) continue;
      return stop('checksum mismatch');
    }
    const problem = apply(payload);
    if (problem !== null) {
      if (damaged(`undecodable payload (${problem})`, end)) continue;
      return stop(`undecodable payload (${problem})`);
    }
    records++;
    pos = end;
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
