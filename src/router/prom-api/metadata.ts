/**
 * `/api/v1/metadata`: metric families' type, help and unit as remote write last sent them, read
 * back with SQL from the table src/router/ingest/prom-remote/metadata.ts keeps. One entry per
 * family (Prometheus lists one per distinct scrape target answer; we keep only the latest).
 */
import { executeSql } from '../../query/sql/exec/execute.js';
import { DbError, ErrorCode } from '../../shared/errors.js';
import { METADATA_DB, METADATA_TABLE } from '../../shared/ingest/prom-remote/metadata.js';
import { checkPermission } from '../auth/credentials.js';
import type { AuthedUser } from '../auth/user-provider.js';
import { createSqlEnv, type SqlEnvDeps } from '../sql-env.js';

/** One family's metadata, keys in Prometheus' order. */
export interface MetricMetadata {
  type: string;
  help: string;
  unit: string;
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Metadata of database `db`, by family name in name order; only `metric` when given, at most
 * `limit` families when `limit` is not negative.
 */
export async function readMetadata(
  deps: SqlEnvDeps,
  user: AuthedUser | null,
  db: string,
  metric: string,
  limit: number,
  signal: AbortSignal,
): Promise<Record<string, MetricMetadata[]>> {
  // A read, whether or not anything was recorded yet: the answer must not depend on the data.
  if (user) checkPermission(user, 'read');
  const out: Record<string, MetricMetadata[]> = {};
  if (limit === 0 || !deps.catalog.getTable(METADATA_DB, METADATA_TABLE)) return out;
  let sql = `SELECT metric, type, help, unit FROM ${METADATA_DB}.${METADATA_TABLE} WHERE db = ${sqlString(db)}`;
  if (metric !== '') sql += ` AND metric = ${sqlString(metric)}`;
  sql += ' ORDER BY metric';
  if (limit > 0) sql += ` LIMIT ${limit}`;
  let results: Awaited<ReturnType<typeof executeSql>>;
  try {
    results = await executeSql(sql, { db: METADATA_DB, timezone: 'UTC', signal }, createSqlEnv(deps, user));
  } catch (err) {
    // Dropped between the check and the scan: nothing recorded.
    if (err instanceof DbError && err.code === ErrorCode.TableNotFound) return out;
    throw err;
  }
  const result = results[0];
  if (result?.kind !== 'records') return out;
  for (const row of result.rows) {
    const [name, type, help, unit] = row.map((v) => (v === null || v === undefined ? '' : String(v)));
    out[name as string] = [{ type: type as string, help: help as string, unit: unit as string }];
  }
  return out;
}
