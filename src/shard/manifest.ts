/**
 * The MANIFEST: the one file that says which segments are live, how far the WAL is flushed, the
 * merge mode of each table and which tables were dropped (format in docs/formats/manifest.md).
 * It is replaced atomically: write `MANIFEST.tmp`, fsync, rename over `MANIFEST`, fsync the
 * directory. Every other file is live only if the manifest says so.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { MergeMode } from '../shared/codec/write-batch.js';
import { StorageUnavailable } from '../shared/errors.js';
import { fsyncDir } from './fs-util.js';

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
    throw new StorageUnavailable(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const problem = typeof m === 'object' && m !== null ? problemOf(m) : 'not an object';
  if (problem) throw new StorageUnavailable(`${file}: ${problem}`);
  return m;
}

/** Replaces the manifest atomically and durably. */
export async function writeManifest(dir: string, m: Manifest): Promise<void> {
  const tmp = path.join(dir, `${MANIFEST_FILE}.tmp`);
  const handle = await fsp.open(tmp, 'w');
  try {
    await handle.writeFile(`${JSON.stringify(m, null, 1)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(tmp, path.join(dir, MANIFEST_FILE));
  await fsyncDir(dir);
}
