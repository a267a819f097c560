/**
 * What `ShardStore.open` does before the store takes writes:
 *   create dirs → read MANIFEST → delete garbage (files the manifest does not list, WAL files
 *   already flushed) → open live segments → replay newer WAL files into the memtable, cutting torn
 *   or corrupt tails → start a fresh WAL file.
 * A cut in a WAL file that is not the last one is handled the same way (that file is cut, later
 * files still replay): the lost records are gone either way, and later ones were acknowledged.
 *
 * Damaged files never stop the shard from opening (docs/reliability.md): a live segment that
 * fails its checks (header, footer CRC, any block's CRC, size) is moved to `quarantine/` and
 * dropped from the manifest, so its table keeps serving every other segment; a damaged MANIFEST
 * is moved there too and rebuilt from the segment files on disk (see rebuildManifest). Each is
 * logged with the file and reason and counted in `recovery`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DbError } from '../shared/errors.js';
import { blobKey } from '../shared/series-key-blob.js';
import { fsyncDirSync, unlinkQuietSync } from './fs-util.js';
import {
  emptyManifest,
  MANIFEST_FILE,
  type Manifest,
  ManifestCorrupt,
  readManifest,
  writeManifestSync,
} from './manifest.js';
import { rowAdmitter } from './retention.js';
import { SegmentCorrupt, SegmentFile } from './segment/segment-reader.js';
import type { ShardState } from './state.js';
import { replayWalFile } from './wal/wal-reader.js';
import { listWalFiles, walFileName, walFilePath } from './wal/wal-record.js';
import { WalWriter } from './wal/wal-writer.js';
import { decodeWalPayload } from './write-batch-check.js';

function ensureDir(dir: string): void {
  if (fs.existsSync(dir)) return;
  fs.mkdirSync(dir, { recursive: true });
  fsyncDirSync(path.dirname(dir));
}

/** Deletes everything under seg/ that the manifest does not list as live. */
function collectGarbage(state: ShardState): void {
  const live = new Set<string>();
  for (const t of Object.values(state.manifest.tables)) for (const s of t.segments) live.add(s.file);
  let removed = 0;
  for (const entry of fs.readdirSync(state.segDir, { withFileTypes: true })) {
    const abs = path.join(state.segDir, entry.name);
    if (!entry.isDirectory()) {
      unlinkQuietSync(abs);
      removed++;
      continue;
    }
    for (const name of fs.readdirSync(abs)) {
      if (live.has(`seg/${entry.name}/${name}`)) continue;
      fs.rmSync(path.join(abs, name), { recursive: true, force: true });
      removed++;
    }
    if (!state.manifest.tables[entry.name] && fs.readdirSync(abs).length === 0) fs.rmdirSync(abs);
  }
  if (removed > 0) {
    fsyncDirSync(state.segDir);
    state.log.info({ removed }, 'removed segment files the manifest does not list');
  }
}

export const QUARANTINE_DIR = 'quarantine';

/** Moves a damaged file out of the way, for an operator to inspect; returns its new relative path. */
function quarantine(state: ShardState, rel: string, as: string): string {
  const dir = path.join(state.dir, QUARANTINE_DIR);
  ensureDir(dir);
  const target = `${QUARANTINE_DIR}/${as}`;
  fs.renameSync(path.join(state.dir, rel), path.join(state.dir, target));
  fsyncDirSync(dir);
  fsyncDirSync(path.dirname(path.join(state.dir, rel)));
  return target;
}

/**
 * Opens a live segment and checks all of it: a manifest size that differs from the file's, a bad
 * header or footer, or a block whose CRC fails means the file is damaged, and the
 * reason names where. Other failures (permissions, too many files) are not the file's fault.
 */
function openChecked(state: ShardState, s: Manifest['tables'][string]['segments'][number], tableId: number) {
  const abs = path.join(state.dir, s.file);
  // Before opening: a cut file would fail on its trailer, which says less than its size does.
  const size = fs.statSync(abs).size;
  if (size !== s.bytes) throw new SegmentCorrupt(`segment ${s.file}: ${size} bytes, the manifest says ${s.bytes}`);
  const file = SegmentFile.open(abs, s.file, s.id, tableId);
  const problem = state.config.segment.verifyOnOpen === false ? null : file.verifyBlocks();
  if (problem === null) return file;
  file.close();
  throw new SegmentCorrupt(`segment ${s.file}: ${problem}`);
}

/** Opens the live segments; returns whether the manifest lost damaged ones (it must be saved). */
function openSegments(state: ShardState): boolean {
  let changed = false;
  for (const [key, table] of Object.entries(state.manifest.tables)) {
    const tableId = Number(key);
    const files: SegmentFile[] = [];
    for (const s of [...table.segments]) {
      try {
        files.push(openChecked(state, s, tableId));
      } catch (err) {
        const message = (err as DbError).message;
        const missing = !fs.existsSync(path.join(state.dir, s.file));
        if (!(err instanceof SegmentCorrupt) && !missing) {
          state.log.error({ err, tableId, file: s.file }, 'cannot open a live segment; scans of its table will fail');
          state.brokenTables.set(tableId, message);
          continue;
        }
        const moved = missing ? 'nothing to move' : quarantine(state, s.file, `seg-${tableId}-${s.id}.seg`);
        const line = `${s.file}: ${missing ? 'missing' : message.replace(`segment ${s.file}: `, '')}; ${s.rows} rows dropped (${moved})`;
        state.log.error({ file: s.file, tableId, rows: s.rows, moved }, `segment quarantined: ${line}`);
        state.recovery.quarantined.push(line);
        state.recovery.segmentsQuarantined++;
        table.segments.splice(table.segments.indexOf(s), 1);
        changed = true;
      }
    }
    if (files.length > 0) state.segments.set(tableId, files);
  }
  return changed;
}

/**
 * The manifest as the segment files on disk say it was, after the MANIFEST itself proved damaged.
 * It is exact for a shard that was open and idle before (open deletes unlisted files, and a
 * finished flush or compaction unlinks what it replaced): background compactions always merge
 * the newest run of a table, so id order is age order. After a crash inside a flush or
 * compaction, the orphans it left come back as live too: rows a table keeps once (last_row,
 * last_non_null) merge, rows of an `append` table may show twice. Every WAL file present is
 * replayed, since how far it was flushed is unknown (flushed files are deleted at once, so this
 * again only matters right after a crash). Dropped table ids are lost; their files were deleted.
 */
function rebuildManifest(state: ShardState): Manifest {
  const m = emptyManifest();
  let maxId = 0;
  for (const entry of fs.readdirSync(state.segDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !/^\d+$/.test(entry.name)) continue;
    const tableId = Number(entry.name);
    const ids = fs
      .readdirSync(path.join(state.segDir, entry.name))
      .map((name) => /^(\d+)\.seg$/.exec(name)?.[1])
      .filter((id): id is string => id !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const segments: Manifest['tables'][string]['segments'] = [];
    let mergeMode: Manifest['tables'][string]['mergeMode'] = 'last_row';
    for (const id of ids) {
      maxId = Math.max(maxId, id);
      const rel = `seg/${tableId}/${id}.seg`;
      let rows = 0;
      let bytes = 0;
      let minTs = 0n;
      let maxTs = 0n;
      try {
        const f = SegmentFile.open(path.join(state.dir, rel), rel, id, tableId);
        ({ rows, bytes } = f);
        f.blocks.forEach((b, i) => {
          if (i === 0 || b.minTs < minTs) minTs = b.minTs;
          if (i === 0 || b.maxTs > maxTs) maxTs = b.maxTs;
        });
        if (!f.deduplicated) mergeMode = 'append';
        f.close();
      } catch {
        // Listed anyway: openSegments quarantines it with its reason.
        bytes = fs.statSync(path.join(state.dir, rel)).size;
      }
      segments.push({ id, file: rel, rows, bytes, minTs: String(minTs), maxTs: String(maxTs) });
    }
    if (segments.length > 0) m.tables[entry.name] = { mergeMode, segments };
  }
  // Ids are never reused, also not those of files quarantined earlier (their names hold the id).
  const quarantined = path.join(state.dir, QUARANTINE_DIR);
  if (fs.existsSync(quarantined))
    for (const name of fs.readdirSync(quarantined))
      maxId = Math.max(maxId, Number(/^seg-\d+-(\d+)\.seg$/.exec(name)?.[1] ?? 0));
  m.nextSegmentId = maxId + 1;
  return m;
}

/** The manifest, or when it is damaged a rebuilt one (the damaged file is quarantined). */
function loadManifest(state: ShardState): { manifest: Manifest; rebuilt: boolean } {
  try {
    return { manifest: readManifest(state.dir) ?? emptyManifest(), rebuilt: false };
  } catch (err) {
    if (!(err instanceof ManifestCorrupt)) throw err;
    const moved = quarantine(state, MANIFEST_FILE, `${MANIFEST_FILE}.${Date.now()}`);
    const manifest = rebuildManifest(state);
    const segments = Object.values(manifest.tables).reduce((n, t) => n + t.segments.length, 0);
    const line = `${MANIFEST_FILE}: ${err.message.replace(/^\S*MANIFEST:? ?/, '')}; rebuilt from ${segments} segment files, every WAL file replayed (${moved})`;
    state.log.error({ file: MANIFEST_FILE, moved, segments }, `manifest rebuilt: ${line}`);
    state.recovery.quarantined.push(line);
    state.recovery.manifestRebuilt = true;
    return { manifest, rebuilt: true };
  }
}

function replayWal(state: ShardState, files: number[]): void {
  const isDropped = (tableId: number) => state.keepsNoRows(tableId);
  const admit = rowAdmitter(state, Date.now());
  // Key ids as the WAL defines them, in record order (see key-refs.ts); they are the writing
  // process's, so tables are applied with key strings and the memtable learns no ids here.
  const keysById = new Map<number, Map<number, string>>();
  for (const n of files) {
    const rel = `wal/${walFileName(n)}`;
    const result = replayWalFile(walFilePath(state.walDir, n), (payload) => {
      let record: ReturnType<typeof decodeWalPayload>;
      try {
        record = decodeWalPayload(payload);
      } catch (err) {
        return (err as Error).message;
      }
      if ('definitions' in record) {
        const { origins, ids, keys } = record.definitions;
        for (let i = 0; i < ids.length; i++)
          keysOfThread(keysById, origins[i] as number).set(ids[i] as number, keys[i] as string);
        return null;
      }
      const batch = record.batch;
      for (const t of batch.tables) {
        if (!isDropped(t.tableId)) state.mergeModes.set(t.tableId, t.mergeMode);
        const blob = t.seriesKeyBlob;
        if (blob === undefined) continue;
        const byId = blob.ids && blob.origin !== undefined ? keysOfThread(keysById, blob.origin) : null;
        const keys = new Array<string>(blob.ends.length);
        for (let k = 0; k < keys.length; k++) {
          const id = byId === null ? -1 : ((blob.ids as Int32Array)[k] as number);
          if (blob.refs?.[k] === 1) {
            const key = (byId as Map<number, string>).get(id);
            if (key === undefined)
              return `a record references series key ${id} of thread ${blob.origin}, not defined before it`;
            keys[k] = key;
          } else {
            keys[k] = blobKey(blob, k);
            if (id >= 0) (byId as Map<number, string>).set(id, keys[k] as string);
          }
        }
        t.seriesKeyBlob = undefined;
        t.seriesKeys = keys;
      }
      state.recovery.replayedRows += state.active.apply(batch, admit);
      return null;
    });
    state.recovery.replayedRecords += result.records;
    for (const { offset, reason, bytes } of result.skipped) {
      const line = `${rel}: ${reason} at offset ${offset}, skipped ${bytes} bytes up to the next intact record, kept the records after it`;
      state.log.warn({ file: rel, offset, reason, bytesCut: bytes }, `WAL cut: ${line}`);
      state.recovery.cuts.push(line);
      state.recovery.cutBytes += bytes;
    }
    if (result.cut) {
      const { offset, reason, bytesCut } = result.cut;
      const line = `${rel}: ${reason} at offset ${offset}, cut ${bytesCut} bytes`;
      state.log.warn({ file: rel, offset, reason, bytesCut }, `WAL cut: ${line}`);
      state.recovery.cuts.push(line);
      state.recovery.cutBytes += bytesCut;
    }
  }
}

function keysOfThread(keysById: Map<number, Map<number, string>>, origin: number): Map<number, string> {
  let keys = keysById.get(origin);
  if (keys === undefined) keysById.set(origin, (keys = new Map()));
  return keys;
}

/** Brings `state` from the directory's contents to ready-to-write. */
export function recover(state: ShardState): void {
  const started = performance.now();
  ensureDir(state.dir);
  ensureDir(state.walDir);
  ensureDir(state.segDir);
  unlinkQuietSync(path.join(state.dir, `${MANIFEST_FILE}.tmp`));
  // A WAL rewrite (wal-reader.ts) interrupted: the original is still in place.
  for (const name of fs.readdirSync(state.walDir))
    if (name.endsWith('.tmp')) unlinkQuietSync(path.join(state.walDir, name));

  const { manifest, rebuilt } = loadManifest(state);
  state.manifest = manifest;
  state.nextSegmentId = state.manifest.nextSegmentId;
  for (const id of state.manifest.droppedTables) state.dropped.add(id);
  collectGarbage(state);
  if (openSegments(state) || rebuilt) writeManifestSync(state.dir, state.manifest);

  const flushed = state.manifest.walFlushedFile;
  const walFiles = listWalFiles(state.walDir);
  for (const n of walFiles) if (n <= flushed) unlinkQuietSync(walFilePath(state.walDir, n));
  const toReplay = walFiles.filter((n) => n > flushed);
  replayWal(state, toReplay);

  const next = Math.max(flushed, ...walFiles) + 1;
  state.wal = WalWriter.create(state.walDir, next, state.config.wal.syncMode === 'fsync');
  state.walFiles = toReplay.length + 1;
  state.recovery.durationMs = Math.round((performance.now() - started) * 10) / 10;
  state.log.info(
    {
      segments: state.allSegments().length,
      walFilesReplayed: toReplay.length,
      records: state.recovery.replayedRecords,
      rows: state.recovery.replayedRows,
      cuts: state.recovery.cuts.length,
      durationMs: state.recovery.durationMs,
    },
    'shard recovered',
  );
}
