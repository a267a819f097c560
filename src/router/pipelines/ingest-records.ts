/**
 * Records through a pipeline into tables: what `/v1/ingest` does after reading its body, and
 * what the OTLP logs and Loki routes do when a request names a pipeline. Every record is run
 * before anything is written; tables that share their options go to the catalog in one write,
 * which checks them all before writing any.
 */
import { insertOf, insertOptionsOf } from '../../pipeline/to-inserts.js';
import type { PipelineRecord } from '../../pipeline/value.js';
import type { InsertOptions, TableInsert } from '../../shared/insert.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import { type IdentityParams, pipelineNamed, runPipeline } from './request.js';
import type { PipelineStore } from './store.js';

export interface PipelineTarget {
  db: string;
  pipeline: string;
  version: bigint | undefined;
  skipError: boolean;
  identity?: IdentityParams | undefined;
}

/**
 * Runs the records of each table (a pipeline's suffixes are appended to the table's name), all of
 * them before anything is written, then writes; returns the rows written per target table.
 */
export async function ingestRecords(
  store: PipelineStore,
  ingest: IngestPipeline,
  target: PipelineTarget,
  recordsByTable: ReadonlyMap<string, PipelineRecord[]>,
  /** Called once every record has run, before the first write (the routes note it for errors). */
  beforeWrite?: () => void,
): Promise<number[]> {
  const pipeline = await pipelineNamed(store, target.pipeline, target.version, target.identity ?? {});
  const byOptions = new Map<string, { options: InsertOptions; inserts: TableInsert[] }>();
  for (const [table, records] of recordsByTable) {
    const result = await runPipeline(store, pipeline, records, target.skipError);
    for (const out of result.tables) {
      const key = JSON.stringify(out.options ?? {});
      let group = byOptions.get(key);
      if (group === undefined) byOptions.set(key, (group = { options: insertOptionsOf(out), inserts: [] }));
      group.inserts.push(insertOf(target.db, table, out));
    }
  }
  beforeWrite?.();
  const written: number[] = [];
  // Tables that share their options go to the catalog in one write, which checks them all first.
  for (const group of byOptions.values()) {
    await ingest.write(group.inserts, group.options);
    for (const insert of group.inserts) written.push(insert.rowCount);
  }
  return written;
}
