/**
 * The MANIFEST: the one file that says which segments are live, how far the WAL is flushed, the
 * merge mode of each table and which tables were dropped (format in docs/formats/manifest.md).
 * It is replaced atomically: write `MANIFEST.tmp`, fsync, rename over `MANIFEST`, fsync the
 * directory. Every other file is live only if the manifest says so. Its `checksum` (CRC32 of the
 * JSON text without it) catches bytes changed on disk that still parse.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { MergeMode } from '../shared/codec/write-batch.js';
import { StorageUnavailable } from '../shared/errors.js';
import { faultPoint } from './fault-points.js';
import { fsyncDir, fsyncDirSync, unlinkQuietSync } from './fs-util.js';

export const MANIFEST_FILE = 'MANIFEST';
export const MANIFEST_FORMAT_VERSION = 1;

export interface ManifestSegment {
  id: number;
  /** Relative to the shard directory: `seg/<tableId>/<id>.seg`. */
  file: string;
  rows: number;
  bytes: number;
  /** Inclusive time range of the rows, as decimal strings (int64 does not fit a JSON number). */
  minTs: string;
  maxTs: string;
}

export interface ManifestTable {
  mergeMode: MergeMode;
  /** Live segments, oldest data first: later segments win over earlier ones on duplicates. */
  segments: ManifestSegment[];
}

export interface Manifest {
  formatVersion: number;
  /** Next segment id to hand out; ids are never reused. */
  nextSegmentId: number;
  /** Every WAL file numbered up to this one is entirely in segments (0: none). */
  walFlushedFile: number;
  /** Keyed by table id (decimal string). */
  tables: Record<string, ManifestTable>;
  /** Tables whose data is gone; WAL records for them are skipped on replay. */
  droppedTables: number[];
  /** CRC32 of the file's JSON text without this field; only on disk (absent in files before it). */
  checksum?: number;
}

export function emptyManifest(): Manifest {
  return { formatVersion: MANIFEST_FORMAT_VERSION, nextSegmentId: 1, walFlushedFile: 0, tables: {}, droppedTables: [] };
}

export function cloneManifest(m: Manifest): Manifest {
  return structuredClone(m);
}

const MERGE_MODES = new Set<string>(['last_row', 'last_non_null', 'append']);

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Checks the shape of a parsed manifest; returns the first problem or null. */
function problemOf(m: Manifest): string | null {
  if (m.formatVersion !== MANIFEST_FORMAT_VERSION) return `unsupported format version ${String(m.formatVersion)}`;
  if (!isCount(m.nextSegmentId) || !isCount(m.walFlushedFile)) return 'bad counters';
  if (!Array.isArray(m.droppedTables) || !m.droppedTables.every(isCount)) return 'bad droppedTables';
  if (typeof m.tables !== 'object' || m.tables === null) return 'bad tables';
  for (const [id, t] of Object.entries(m.tables)) {
    if (!/^\d+$/.test(id) || !MERGE_MODES.has(t.mergeMode) || !Array.isArray(t.segments)) return `bad table ${id}`;
    for (const s of t.segments) {
      if (!isCount(s.id) || s.id >= m.nextSegmentId || s.file !== `seg/${id}/${s.id}.seg`)
        return `bad segment in ${id}`;
      if (!isCount(s.rows) || !isCount(s.bytes) || typeof s.minTs !== 'string' || typeof s.maxTs !== 'string') {
        return `bad segment ${s.file}`;
      }
    }
  }
  return null;
}

/** A manifest whose bytes are damaged (unparsable, checksum or shape); other read errors are not. */
export class ManifestCorrupt extends StorageUnavailable {}

function textOf(m: Manifest): string {
  return JSON.stringify(m, null, 1);
}

/** The file's text: the manifest with its checksum as the last field. */
export function encodeManifest(m: Manifest): string {
  const { checksum: _, ...rest } = m;
  return `${textOf({ ...rest, checksum: crc32(textOf(rest)) })}\n`;
}

/** Reads the manifest of a shard directory; null when there is none yet. */
export function readManifest(dir: string): Manifest | null {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StorageUnavailable(`cannot read ${file}: ${(err as Error).message}`);
  }
  let m: Manifest;
  try {
    m = JSON.parse(text) as Manifest;
  } catch (err) {
    throw new ManifestCorrupt(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof m !== 'object' || m === null) throw new ManifestCorrupt(`${file}: not an object`);
  if (m.checksum !== undefined) {
    const { checksum, ...rest } = m;
    const actual = crc32(textOf(rest));
    if (actual !== checksum) throw new ManifestCorrupt(`${file}: checksum mismatch (${actual}, stored ${checksum})`);
    m = rest;
  }
  // A newer server's manifest (its checksum passed, or it has none) is not damage: rebuilding it
  // would downgrade the shard behind the operator's back.
  if (typeof m.formatVersion === 'number' && m.formatVersion !== MANIFEST_FORMAT_VERSION)
    throw new StorageUnavailable(`${file}: unsupported format version ${String(m.formatVersion)}`);
  const problem = problemOf(m);
  if (problem) throw new ManifestCorrupt(`${file}: ${problem}`);
  return m;
}

/**
 * Replaces the manifest atomically and durably. A failed write (a full disk) removes its
 * `MANIFEST.tmp`: the old manifest stays in force and no half-written file is left.
 */
export async function writeManifest(dir: string, m: Manifest): Promise<void> {
  const tmp = path.join(dir, `${MANIFEST_FILE}.tmp`);
  try {
    const handle = await fsp.open(tmp, 'w');
    try {
      await handle.writeFile(encodeManifest(m), 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
  await faultPoint('manifest.after-temp-write');
  await fsp.rename(tmp, path.join(dir, MANIFEST_FILE));
  await faultPoint('manifest.after-rename');
  await fsyncDir(dir);
}

/** `writeManifest` for recovery, which runs before the thread serves anything. */
export function writeManifestSync(dir: string, m: Manifest): void {
  const tmp = path.join(dir, `${MANIFEST_FILE}.tmp`);
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeFileSync(fd, encodeManifest(m), 'utf8');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    unlinkQuietSync(tmp);
    throw err;
  }
  fs.renameSync(tmp, path.join(dir, MANIFEST_FILE));
  fsyncDirSync(dir);
}
