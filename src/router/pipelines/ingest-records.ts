/**
 * Records through a pipeline into tables: what `/v1/ingest` does after reading its body, and
 * what the OTLP logs and Loki routes do when a request names a pipeline. Every record is run
 * before anything is written; tables that share their options go to the catalog in one write,
 * which checks them all before writing any.
 */
import type { RunResult } from '../../pipeline/output.js';
import { insertOf, insertOptionsOf } from '../../pipeline/to-inserts.js';
import type { PipelineRecord } from '../../pipeline/value.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import { type IdentityParams, pipelineNamed, runPipeline } from './request.js';
import type { PipelineStore } from './store.js';

export interface PipelineTarget {
  db: string;
  /** The table; a pipeline's suffixes are appended to it. */
  table: string;
  pipeline: string;
  version: bigint | undefined;
  skipError: boolean;
  identity?: IdentityParams | undefined;
}

/** Runs `records` and writes them; returns the rows written per target table. */
export async function ingestRecords(
  store: PipelineStore,
  ingest: IngestPipeline,
  target: PipelineTarget,
  records: PipelineRecord[],
  /** Called once every record has run, before the first write (the routes note it for errors). */
  beforeWrite?: () => void,
): Promise<number[]> {
  const pipeline = await pipelineNamed(store, target.pipeline, target.version, target.identity ?? {});
  const result = await runPipeline(store, pipeline, records, target.skipError);
  beforeWrite?.();
  return writeTables(ingest, target.db, target.table, result);
}

async function writeTables(ingest: IngestPipeline, db: string, table: string, result: RunResult): Promise<number[]> {
  const written: number[] = [];
  const byOptions = new Map<string, RunResult['tables']>();
  for (const out of result.tables) {
    const key = JSON.stringify(out.options ?? {});
    byOptions.set(key, [...(byOptions.get(key) ?? []), out]);
  }
  for (const tables of byOptions.values()) {
    const inserts = tables.map((out) => insertOf(db, table, out));
    await ingest.write(inserts, insertOptionsOf(tables[0] as RunResult['tables'][number]));
    for (const insert of inserts) written.push(insert.rowCount);
  }
  return written;
}
