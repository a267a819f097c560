/**
 * A `SqlEnv` for tests: catalog in memory, rows partitioned by series over N shard stores, and
 * `scatter` running `runShardPlan` on each store with structured clones on the way in and out,
 * exactly as the worker boundary would.
 */

import type { PromqlShardPlan } from '../../../../src/query/promql/distribute/shard-plan.js';
import { runPromqlShardPlan } from '../../../../src/query/promql/store/shard-entry.js';
import type { SampleSource } from '../../../../src/query/promql/types.js';
import { executeSql, type StatementResult } from '../../../../src/query/sql/exec/execute.js';
import { runShardPlan } from '../../../../src/query/sql/exec/shard-exec.js';
import type { AlteredTable, NewTable, SqlEnv, SqlSession } from '../../../../src/query/sql/plan/env.js';
import type { ShardPlan } from '../../../../src/query/sql/plan/plan.js';
import { type ShardQuery, ShardSampleSource } from '../../../../src/router/promql-source.js';
import {
  DELETE_MARK_COLUMN_ID,
  encodeWriteBatch,
  seriesFormOf,
  type TableRows,
} from '../../../../src/shared/codec/write-batch.js';
import { DbError, ErrorCode } from '../../../../src/shared/errors.js';
import type { TableInsert } from '../../../../src/shared/insert.js';
import type { ScanSource } from '../../../../src/shared/scan.js';
import type { DatabaseSchema, TableSchema, Vector } from '../../../../src/shared/types.js';
import { MemoryStore } from './memory-store.js';

export interface ShardLike extends ScanSource {
  write(payloads: Uint8Array[]): Promise<unknown> | undefined;
  dropTables?(tableIds: number[]): Promise<void> | void;
  flush?(): Promise<void> | void;
}

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function slice(v: Vector, rows: number[]): Vector {
  if (v.kind === 'str') {
    const values = v.values as Array<string | null>;
    return {
      kind: 'str',
      values: rows.map((r) => values[r] ?? null),
      valid: v.valid ? Uint8Array.from(rows.map((r) => v.valid?.[r] ?? 1)) : undefined,
    };
  }
  const src = v.values as Float64Array | BigInt64Array | BigUint64Array | Uint8Array;
  const Ctor = src.constructor as new (n: number) => typeof src;
  const out = new Ctor(rows.length);
  rows.forEach((r, i) => {
    (out as unknown as Array<unknown>)[i] = (src as unknown as Array<unknown>)[r];
  });
  return {
    kind: v.kind,
    values: out,
    valid: v.valid ? Uint8Array.from(rows.map((r) => v.valid?.[r] ?? 1)) : undefined,
  } as Vector;
}

export class TestEnv implements SqlEnv {
  readonly databases = new Map<string, DatabaseSchema>();
  readonly tables = new Map<string, TableSchema>();
  private nextTableId = 1;
  scatterCount = 0;
  lastPlans: unknown[] = [];

  constructor(readonly shards: ShardLike[]) {
    for (const name of ['public', 'greptime_private']) this.databases.set(name, { name, options: {}, createdAtMs: 0 });
  }

  static memory(shardCount = 2): TestEnv {
    return new TestEnv(Array.from({ length: shardCount }, () => new MemoryStore()));
  }

  getDatabase(name: string): DatabaseSchema | undefined {
    return this.databases.get(name);
  }
  listDatabases(): DatabaseSchema[] {
    return [...this.databases.values()];
  }
  getTable(db: string, name: string): TableSchema | undefined {
    return this.tables.get(`${db}.${name}`);
  }
  listTables(db: string): TableSchema[] {
    return [...this.tables.values()].filter((t) => t.db === db);
  }
  async createDatabase(name: string, options: Record<string, string>, ifNotExists: boolean): Promise<boolean> {
    if (this.databases.has(name)) {
      if (ifNotExists) return false;
      throw new DbError(ErrorCode.DatabaseAlreadyExists, `Database already exists: ${name}`);
    }
    this.databases.set(name, { name, options, createdAtMs: Date.now() });
    return true;
  }
  async alterDatabase(name: string, options: Record<string, string>): Promise<void> {
    const db = this.databases.get(name);
    if (!db) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${name}`);
    this.databases.set(name, { ...db, options: { ...options } });
  }
  async dropDatabase(name: string, ifExists: boolean): Promise<boolean> {
    if (!this.databases.has(name)) {
      if (ifExists) return false;
      throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${name}`);
    }
    this.databases.delete(name);
    for (const [k, t] of this.tables) if (t.db === name) this.tables.delete(k);
    return true;
  }
  async createTable(table: NewTable, ifNotExists: boolean): Promise<boolean> {
    const key = `${table.db}.${table.name}`;
    if (this.tables.has(key)) {
      if (ifNotExists) return false;
      throw new DbError(ErrorCode.TableAlreadyExists, `Table already exists: \`greptime.${table.db}.${table.name}\``);
    }
    const columns = table.columns.map((c, i) => ({ id: i + 1, ...c }));
    this.tables.set(key, {
      id: this.nextTableId++,
      db: table.db,
      name: table.name,
      columns,
      timeIndex: table.timeIndex,
      primaryKey: table.primaryKey,
      options: table.options,
      nextColumnId: columns.length + 1,
      createdAtMs: Date.now(),
    });
    return true;
  }
  async dropTable(db: string, name: string, ifExists: boolean): Promise<boolean> {
    if (!this.tables.delete(`${db}.${name}`)) {
      if (ifExists) return false;
      throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${db}.${name}`);
    }
    return true;
  }
  async alterTable(db: string, name: string, altered: AlteredTable): Promise<TableSchema> {
    const table = this.getTable(db, name);
    if (!table) throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${db}.${name}`);
    if (altered.name !== name && this.getTable(db, altered.name)) {
      throw new DbError(ErrorCode.TableAlreadyExists, `Table already exists, table: greptime.${db}.${altered.name}`);
    }
    let nextColumnId = table.nextColumnId;
    const columns = altered.columns.map((c) => ({ ...c, id: c.id ?? nextColumnId++ }));
    const updated: TableSchema = {
      ...table,
      name: altered.name,
      columns,
      primaryKey: altered.primaryKey,
      options: altered.options,
      nextColumnId,
    };
    this.tables.delete(`${db}.${name}`);
    this.tables.set(`${db}.${updated.name}`, updated);
    return updated;
  }
  async truncateTable(db: string, name: string): Promise<void> {
    const table = this.getTable(db, name);
    if (!table) throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${db}.${name}`);
    this.tables.set(`${db}.${name}`, { ...table, id: this.nextTableId++ });
    await Promise.all(this.shards.map((s) => s.dropTables?.([table.id])));
  }
  maintenance: Array<'flush' | 'compact'> = [];
  async maintainTable(_db: string, _name: string, action: 'flush' | 'compact'): Promise<void> {
    this.maintenance.push(action);
    if (action === 'flush') await Promise.all(this.shards.map((s) => s.flush?.()));
  }
  async insert(rows: TableInsert): Promise<number> {
    const table = this.getTable(rows.db, rows.table);
    if (!table) throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${rows.db}.${rows.table}`);
    const tags = rows.columns.filter((c) => c.semantic === 'TAG');
    const perShard: number[][] = this.shards.map(() => []);
    for (let r = 0; r < rows.rowCount; r++) {
      const key = tags.map((t) => `${t.name}=${(t.vector.values as Array<string | null>)[r] ?? ''}`).join(',');
      (perShard[fnv(key) % this.shards.length] as number[]).push(r);
    }
    const idOf = (name: string): number => table.columns.find((c) => c.name === name)?.id ?? -1;
    await Promise.all(
      this.shards.map(async (shard, s) => {
        const picked = perShard[s] as number[];
        if (picked.length === 0) return;
        const time = rows.columns.find((c) => c.semantic === 'TIMESTAMP');
        const tableRows: TableRows = {
          tableId: table.id,
          mergeMode: 'last_row',
          rowCount: picked.length,
          timestamps: slice(time?.vector as Vector, picked).values as BigInt64Array,
          ...seriesFormOf(
            tags.map((t) => ({ id: idOf(t.name), values: slice(t.vector, picked).values as Array<string | null> })),
            picked.length,
          ),
          // A delete carries only the delete mark, like the router's ingest pipeline sends it.
          fields: rows.deletes
            ? [{ id: DELETE_MARK_COLUMN_ID, vector: { kind: 'bool', values: new Uint8Array(picked.length).fill(1) } }]
            : rows.columns
                .filter((c) => c.semantic === 'FIELD')
                .map((f) => ({ id: idOf(f.name), vector: slice(f.vector, picked) })),
        };
        await shard.write([encodeWriteBatch({ tables: [tableRows] })]);
      }),
    );
    return rows.rowCount;
  }
  /** PromQL selectors over the same stores, as the router's source reads the shards. */
  promqlSource(db: string): SampleSource {
    const shards: ShardQuery = {
      query: async <T>({ plan }: { plan: PromqlShardPlan }): Promise<T[]> =>
        Promise.all(
          this.shards.map(
            async (shard) => structuredClone((await runPromqlShardPlan(structuredClone(plan), shard)).value) as T,
          ),
        ),
    };
    return new ShardSampleSource(this, shards, { db });
  }
  async scatter(plan: unknown): Promise<unknown[]> {
    this.scatterCount++;
    this.lastPlans = [];
    return Promise.all(
      this.shards.map(async (shard) => {
        const cloned = structuredClone(plan as ShardPlan);
        this.lastPlans.push(cloned);
        return structuredClone(await runShardPlan(cloned, shard));
      }),
    );
  }
}

/** A fresh session in `public`, UTC. */
export function session(db = 'public', timezone = 'UTC'): SqlSession {
  return { db, timezone };
}

/** Runs SQL and returns the last statement's result. */
export async function run(env: SqlEnv, sql: string, s: SqlSession = session()): Promise<StatementResult> {
  const results = await executeSql(sql, s, env);
  const last = results[results.length - 1];
  if (!last) throw new Error('no statements');
  return last;
}

/** Rows of a records result. */
export async function rows(env: SqlEnv, sql: string, s: SqlSession = session()): Promise<unknown[][]> {
  const r = await run(env, sql, s);
  if (r.kind !== 'records') throw new Error(`expected records, got ${JSON.stringify(r)}`);
  return r.rows;
}
