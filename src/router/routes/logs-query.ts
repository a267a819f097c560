/**
 * `/v1/logs` (reference §11): a structured log query, answered in the greptimedb_v1 shape.
 *
 *   JSON body → parseLogQueryBody (415/400/422) → canonicalTimeWindow (400 1004) → table from the
 *   catalog → logQuerySql → executeSql (planned and pushed down like /v1/sql) → sqlOutputResponse
 */
import { executeSql } from '../../query/sql/exec/execute.js';
import { DbError, ErrorCode } from '../../shared/errors.js';
import { ROUTER_SLICE_MS, TimeSlice } from '../../shared/time-slice.js';
import type { TableSchema } from '../../shared/types.js';
import { checkPermission } from '../auth/credentials.js';
import type { Route } from '../http/context.js';
import type { LogTableName } from '../logs/log-query.js';
import { parseLogQueryBody } from '../logs/log-query-parse.js';
import { logQuerySql } from '../logs/log-query-sql.js';
import { canonicalTimeWindow } from '../logs/time-filter.js';
import type { ServerMetrics } from '../metrics.js';
import { sqlOutputResponse } from '../respond/sql-output.js';
import { createSqlEnv, type SqlEnvDeps } from '../sql-env.js';

/** Our only catalog. */
const CATALOG = 'greptime';

/** The table a log query names, which must exist in our catalog (the request's `db` is not used). */
function resolveTable(deps: SqlEnvDeps, name: LogTableName): TableSchema {
  const table = name.catalog === CATALOG ? deps.catalog.getTable(name.schema, name.table) : undefined;
  if (!table) {
    throw new DbError(ErrorCode.TableNotFound, `Table not found: ${name.catalog}.${name.schema}.${name.table}`);
  }
  return table;
}

export function logsQueryRoutes(deps: SqlEnvDeps, metrics: ServerMetrics): Route[] {
  return [
    {
      methods: ['GET', 'POST'],
      pattern: '/v1/logs',
      errors: 'greptime',
      query: true,
      handler: async (ctx) => {
        // The JSON extractor runs before GreptimeDB's handler, so shape errors come first.
        const query = parseLogQueryBody(ctx.headers.get('content-type'), ctx.body);
        if (ctx.user) checkPermission(ctx.user, 'read');
        // `context` is accepted and ignored: the planner returns no surrounding lines either.
        const window = canonicalTimeWindow(query.timeFilter, BigInt(Date.now()) * 1_000_000n);
        const table = resolveTable(deps, query.table);
        const sql = logQuerySql(query, table, window);
        const session = {
          db: table.db,
          timezone: ctx.headers.get('x-greptime-timezone') || 'UTC',
          signal: ctx.signal,
          memoryLimitBytes: deps.queryMemoryLimitBytes,
          rangeMaxRows: deps.queryRangeMaxRows,
          promqlLimits: deps.promqlLimits,
        };
        try {
          const results = await executeSql(sql, session, createSqlEnv(deps, ctx.user));
          const executionTimeMs = Math.round(performance.now() - ctx.startMs);
          const encoding = new TimeSlice(ROUTER_SLICE_MS, () => ctx.signal.throwIfAborted());
          const response = await sqlOutputResponse(
            results,
            { format: 'greptimedb_v1', epoch: null, limit: undefined, compression: null, executionTimeMs },
            encoding,
          );
          // Counted as SQL: that is the language it runs as, and the metric's kinds are fixed.
          metrics.queryDone('sql', 'ok', ctx.startMs);
          return response;
        } catch (err) {
          metrics.queryDone('sql', 'error', ctx.startMs);
          throw err;
        }
      },
    },
  ];
}
