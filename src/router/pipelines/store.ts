/**
 * Stored pipelines (reference ingest §8): every version of every pipeline is a row of
 * `greptime_private.pipelines` (name, schema, content_type as the primary key, the YAML text, and
 * `created_at`, the version, as the time index), so they survive restarts and SQL can read them.
 * The router keeps them in memory too, loaded from the table on first use, with each version
 * compiled once; "latest" is the greatest version. Every change goes through this store.
 */
import { compilePipeline } from '../../pipeline/compile.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import type { InsertColumn, TableInsert } from '../../shared/insert.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import { newVersion } from './version.js';

export const PIPELINES_DB = 'greptime_private';
export const PIPELINES_TABLE = 'pipelines';

export interface StoredPipeline {
  name: string;
  version: bigint;
  text: string;
  pipeline: Pipeline;
}

interface Version {
  version: bigint;
  text: string;
  compiled?: Pipeline;
}

export interface PipelineStoreDeps {
  ingest: IngestPipeline;
  /** Whether the pipelines table exists yet. */
  tableExists: () => boolean;
  /** Rows of a SELECT on the pipelines table (values as SQL gives them). */
  select: (sql: string) => Promise<unknown[][]>;
}

function str(values: string[]): InsertColumn['vector'] {
  return { kind: 'str', values };
}

/** The rows (or, with `deletes`, the tombstones) of some pipeline versions. */
function pipelineRows(entries: Array<{ name: string; version: bigint; text: string }>, deletes = false): TableInsert {
  const columns: InsertColumn[] = [
    { name: 'name', semantic: 'TAG', type: 'String', vector: str(entries.map((e) => e.name)) },
    { name: 'schema', semantic: 'TAG', type: 'String', vector: str(entries.map(() => '')) },
    { name: 'content_type', semantic: 'TAG', type: 'String', vector: str(entries.map(() => 'yaml')) },
    {
      name: 'created_at',
      semantic: 'TIMESTAMP',
      type: 'TimestampNanosecond',
      vector: { kind: 'i64', values: BigInt64Array.from(entries.map((e) => e.version)) },
    },
  ];
  if (!deletes) {
    columns.push({ name: 'pipeline', semantic: 'FIELD', type: 'String', vector: str(entries.map((e) => e.text)) });
  }
  return { db: PIPELINES_DB, table: PIPELINES_TABLE, rowCount: entries.length, columns, deletes };
}

export class PipelineStore {
  private byName: Map<string, Version[]> | null = null;
  private loading: Promise<Map<string, Version[]>> | null = null;

  constructor(private readonly deps: PipelineStoreDeps) {}

  private async versions(): Promise<Map<string, Version[]>> {
    if (this.byName) return this.byName;
    this.loading ??= this.load();
    this.byName = await this.loading;
    return this.byName;
  }

  private async load(): Promise<Map<string, Version[]>> {
    const byName = new Map<string, Version[]>();
    if (!this.deps.tableExists()) return byName;
    const rows = await this.deps.select(
      `SELECT name, pipeline, created_at FROM ${PIPELINES_DB}.${PIPELINES_TABLE} WHERE schema = ''`,
    );
    for (const [name, text, createdAt] of rows) {
      if (typeof name !== 'string' || typeof text !== 'string') continue;
      const list = byName.get(name) ?? [];
      list.push({ version: BigInt(createdAt as bigint), text });
      byName.set(name, list);
    }
    for (const list of byName.values()) list.sort((a, b) => (a.version < b.version ? -1 : 1));
    return byName;
  }

  /** Compiles `text` (throwing PipelineError) and stores it as a new version of `name`. */
  async create(name: string, text: string): Promise<bigint> {
    const pipeline = compilePipeline(text);
    const byName = await this.versions();
    const version = newVersion();
    await this.deps.ingest.write([pipelineRows([{ name, version, text }])], {
      autoCreateTable: true,
      autoAddColumns: true,
      createMergeMode: 'last_row',
    });
    const list = byName.get(name) ?? [];
    list.push({ version, text, compiled: pipeline });
    list.sort((a, b) => (a.version < b.version ? -1 : 1));
    byName.set(name, list);
    return version;
  }

  /** A version of `name` (the latest when `version` is undefined), compiled. */
  async get(name: string, version?: bigint): Promise<StoredPipeline | undefined> {
    return this.find(await this.versions(), name, version);
  }

  /** Like `get`, for callers that already awaited `ready()` (dispatcher rules inside a run). */
  getLoaded(name: string): Pipeline | undefined {
    return this.byName ? this.find(this.byName, name, undefined)?.pipeline : undefined;
  }

  /** Loads the stored pipelines (once). */
  async ready(): Promise<void> {
    await this.versions();
  }

  private find(byName: Map<string, Version[]>, name: string, version: bigint | undefined): StoredPipeline | undefined {
    const list = byName.get(name);
    if (!list || list.length === 0) return undefined;
    const entry = version === undefined ? list[list.length - 1] : list.find((v) => v.version === version);
    if (!entry) return undefined;
    entry.compiled ??= compilePipeline(entry.text);
    return { name, version: entry.version, text: entry.text, pipeline: entry.compiled };
  }

  /** Deletes one version; false when there was no such version. */
  async delete(name: string, version: bigint): Promise<boolean> {
    const byName = await this.versions();
    const list = byName.get(name);
    const at = list?.findIndex((v) => v.version === version) ?? -1;
    if (!list || at < 0) return false;
    await this.deps.ingest.write([pipelineRows([{ name, version, text: '' }], true)], {
      autoCreateTable: false,
      autoAddColumns: false,
      createMergeMode: 'last_row',
    });
    list.splice(at, 1);
    if (list.length === 0) byName.delete(name);
    return true;
  }
}
