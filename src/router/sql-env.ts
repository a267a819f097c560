/**
 * The router's side of `SqlEnv`: catalog changes, durable inserts through the ingest pipeline,
 * and scatter of plan fragments to every shard. One instance per request, so that permission
 * checks can use the request's user.
 */

import type { PromqlLimits } from '../query/promql/limits.js';
import type { NewTable, SqlEnv } from '../query/sql/plan/env.js';
import type { ShardPlan, ShardResult } from '../query/sql/plan/plan.js';
import { DbError, ErrorCode } from '../shared/errors.js';
import type { TableInsert } from '../shared/insert.js';
import { tableSegmentBytes } from '../shared/messages.js';
import type { DatabaseSchema, TableSchema } from '../shared/types.js';
import { checkPermission } from './auth/credentials.js';
import type { AuthedUser } from './auth/user-provider.js';
import type { Catalog } from './catalog.js';
import type { IngestPipeline } from './ingest/pipeline.js';
import { ShardSampleSource } from './promql-source.js';
import type { ShardCluster } from './shards.js';
import { countGroups } from './sql-shard-groups.js';

export interface SqlEnvDeps {
  catalog: Catalog;
  cluster: ShardCluster;
  ingest: IngestPipeline;
  /** `query.memory_limit`. */
  queryMemoryLimitBytes: number;
  /** `query.range_max_rows`; unset = the default. */
  queryRangeMaxRows?: number | undefined;
  /** `query.max_points_per_series`, `query.max_samples`, `query.max_series` (TQL, PromQL API, /v1/pql). */
  promqlLimits: PromqlLimits;
}

export function createSqlEnv(deps: SqlEnvDeps, user: AuthedUser | null): SqlEnv {
  const { catalog, cluster, ingest } = deps;
  const mayWrite = (): void => {
    if (user) checkPermission(user, 'write');
  };
  const mayRead = (): void => {
    if (user) checkPermission(user, 'read');
  };
  const dropData = async (tables: TableSchema[]): Promise<void> => {
    if (tables.length > 0) await cluster.broadcast({ op: 'drop', tableIds: tables.map((t) => t.id) });
  };
  return {
    authorize: (access) => {
      if (user) checkPermission(user, access);
    },
    tableSegmentBytes: async () => tableSegmentBytes(await cluster.stats()),
    getDatabase: (name: string): DatabaseSchema | undefined => catalog.getDatabase(name),
    listDatabases: () => catalog.listDatabases(),
    getTable: (db: string, name: string) => catalog.getTable(db, name),
    listTables: (db: string) => catalog.listTables(db),
    async createDatabase(name, options, ifNotExists) {
      mayWrite();
      return catalog.createDatabase(name, options, ifNotExists);
    },
    async alterDatabase(name, options) {
      mayWrite();
      await catalog.setDatabaseOptions(name, options);
    },
    async dropDatabase(name, ifExists) {
      mayWrite();
      if (!catalog.getDatabase(name)) {
        if (ifExists) return false;
        throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${name}`);
      }
      await dropData(await catalog.dropDatabase(name));
      return true;
    },
    async createTable(table: NewTable, ifNotExists: boolean) {
      mayWrite();
      const { created } = await catalog.createTable(
        {
          db: table.db,
          name: table.name,
          columns: table.columns.map((c) => ({
            name: c.name,
            type: c.type,
            semantic: c.semantic,
            nullable: c.nullable,
            defaultSql: c.defaultSql,
            ...(c.index ? { index: c.index } : {}),
          })),
          timeIndex: table.timeIndex,
          primaryKey: table.primaryKey,
          options: table.options,
        },
        ifNotExists,
      );
      return created;
    },
    async dropTable(db, name, ifExists) {
      mayWrite();
      const dropped = await catalog.dropTable(db, name);
      if (!dropped) {
        if (ifExists) return false;
        throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${db}.${name}`);
      }
      await dropData([dropped]);
      return true;
    },
    async alterTable(db, name, altered) {
      mayWrite();
      return catalog.alterTable(db, name, altered);
    },
    async truncateTable(db, name) {
      mayWrite();
      const old = await catalog.truncateTable(db, name);
      if (!old) throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${db}.${name}`);
      await dropData([old]);
    },
    async maintainTable(_db, _name, action) {
      mayWrite();
      // Storage flushes and compacts per shard, not per table.
      await cluster.broadcast({ op: action });
    },
    async insert(rows: TableInsert) {
      mayWrite();
      return ingest.write([rows], { autoCreateTable: false, autoAddColumns: false, createMergeMode: 'last_row' });
    },
    async scatter(plan: unknown, signal?: AbortSignal) {
      mayRead();
      const results = await cluster.query<ShardResult>({ lang: 'sql', plan: plan as ShardPlan }, signal);
      countGroups(results);
      return results;
    },
    promqlSource: (db: string) => new ShardSampleSource(catalog, cluster, { db, user, limits: deps.promqlLimits }),
  };
}
