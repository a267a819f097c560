/**
 * What `ShardStore.open` does before the store takes writes:
 *   create dirs → read MANIFEST → delete garbage (files the manifest does not list, WAL files
 *   already flushed) → open live segments → replay newer WAL files into the memtable, cutting torn
 *   or corrupt tails → start a fresh WAL file.
 * A cut in a WAL file that is not the last one is handled the same way (that file is cut, later
 * files still replay): the lost records are gone either way, and later ones were acknowledged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DbError } from '../shared/errors.js';
import { blobKey } from '../shared/series-key-blob.js';
import { fsyncDirSync, unlinkQuietSync } from './fs-util.js';
import { emptyManifest, MANIFEST_FILE, readManifest } from './manifest.js';
import { SegmentFile } from './segment/segment-reader.js';
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

function openSegments(state: ShardState): void {
  for (const [key, table] of Object.entries(state.manifest.tables)) {
    const tableId = Number(key);
    const files: SegmentFile[] = [];
    for (const s of table.segments) {
      try {
        files.push(SegmentFile.open(path.join(state.dir, s.file), s.file, s.id, tableId));
      } catch (err) {
        const message = (err as DbError).message;
        state.log.error({ err, tableId, file: s.file }, 'cannot open a live segment; scans of its table will fail');
        state.brokenTables.set(tableId, message);
      }
    }
    if (files.length > 0) state.segments.set(tableId, files);
  }
}

function replayWal(state: ShardState, files: number[]): void {
  const isDropped = (tableId: number) => state.dropped.has(tableId);
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
      state.recovery.replayedRows += state.active.apply(batch, isDropped);
      return null;
    });
    state.recovery.replayedRecords += result.records;
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

  state.manifest = readManifest(state.dir) ?? emptyManifest();
  state.nextSegmentId = state.manifest.nextSegmentId;
  for (const id of state.manifest.droppedTables) state.dropped.add(id);
  collectGarbage(state);
  openSegments(state);

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
