/**
 * Dropping tables. The in-memory part is immediate (scans and writes stop seeing the tables); the
 * durable part runs as a job: the manifest forgets the tables' segments and lists their ids as
 * dropped, so WAL records for them are skipped on every later replay; then the files go.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cloneManifest } from './manifest.js';
import type { ShardState } from './state.js';

/** Forgets the tables in memory at once. */
export function dropInMemory(state: ShardState, tableIds: readonly number[]): void {
  for (const id of tableIds) {
    state.dropped.add(id);
    state.mergeModes.delete(id);
    state.active.dropTable(id);
    for (const m of state.frozen) m.dropTable(id);
  }
}

/** Makes the drop durable and removes the files. Runs in the job queue. */
export async function dropDurably(state: ShardState, tableIds: readonly number[]): Promise<void> {
  const next = cloneManifest(state.manifest);
  for (const id of tableIds) {
    delete next.tables[String(id)];
    if (!next.droppedTables.includes(id)) next.droppedTables.push(id);
  }
  await state.saveManifest(next);
  for (const id of tableIds) {
    for (const f of state.segments.get(id) ?? []) f.retire();
    state.segments.delete(id);
    state.brokenTables.delete(id);
    fs.rmSync(path.join(state.segDir, String(id)), { recursive: true, force: true });
  }
  state.log.info({ tableIds }, 'tables dropped');
}
