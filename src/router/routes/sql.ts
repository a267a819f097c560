/** `/v1/sql` (reference §4): parameters, database check, execution, output format. */
import { executeSql } from '../../query/sql/exec/execute.js';
import { DbError, ErrorCode, InvalidArgument } from '../../shared/errors.js';
import { ROUTER_SLICE_MS, TimeSlice } from '../../shared/time-slice.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from '../http/context.js';
import { databaseOf, formOf } from '../http/params.js';
import type { ServerMetrics } from '../metrics.js';
import { parseArrowCompression } from '../respond/arrow-compression.js';
import { parseEpoch, parseSqlOutputFormat, sqlOutputResponse } from '../respond/sql-output.js';
import { createSqlEnv, type SqlEnvDeps } from '../sql-env.js';

/** The largest `limit` Rust's `usize` takes; larger values fail to deserialize. */
const LIMIT_TEXT_MAX = 2n ** 64n - 1n;

/**
 * The `limit` URL parameter (a `usize` in GreptimeDB). A bad value is refused by the query-string
 * extractor before the handler runs, so it is a framework 400 in plain text (reference §1.5).
 */
function limitOf(query: URLSearchParams): number | undefined {
  const text = query.get('limit');
  if (text === null) return undefined;
  let detail: string | null = null;
  if (text === '') detail = 'cannot parse integer from empty string';
  else if (!/^\+?[0-9]+$/.test(text)) detail = 'invalid digit found in string';
  else if (BigInt(text) > LIMIT_TEXT_MAX) detail = 'number too large to fit in target type';
  if (detail !== null) throw new ClientError('BadQueryString', `Failed to deserialize query string: limit: ${detail}`);
  return Number(text);
}

export function sqlRoutes(deps: SqlEnvDeps, metrics: ServerMetrics): Route[] {
  return [
    {
      methods: ['GET', 'POST'],
      pattern: '/v1/sql',
      errors: 'greptime',
      query: true,
      handler: async (ctx) => {
        // URL-only parameters are read by the query-string extractor, before the form body.
        const limit = limitOf(ctx.query);
        const compression = parseArrowCompression(ctx.query.get('compression'));
        const form = formOf(ctx);
        // URL query values win over form values (reference §4.1).
        const param = (name: string): string | undefined => ctx.query.get(name) ?? form.get(name) ?? undefined;
        const sql = param('sql');
        if (sql === undefined || sql.trim() === '') throw new InvalidArgument('sql parameter is required.');
        // Inside the handler the `db` parameter wins over the header (reference §4.1).
        const db = databaseOf(ctx, ['db'], false, form);
        if (!deps.catalog.getDatabase(db)) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${db}`);
        const format = parseSqlOutputFormat(param('format'));
        const epoch = parseEpoch(param('epoch'));
        const env = createSqlEnv(deps, ctx.user);
        const session = {
          db,
          timezone: ctx.headers.get('x-greptime-timezone') || 'UTC',
          user: ctx.user?.username,
          signal: ctx.signal,
          memoryLimitBytes: deps.queryMemoryLimitBytes,
          rangeMaxRows: deps.queryRangeMaxRows,
          promqlLimits: deps.promqlLimits,
        };
        try {
          // Known gap: GreptimeDB's arrow format refuses several statements even when a later one
          // failed; here the first failure is always the answer.
          const results = await executeSql(sql, session, env);
          const executionTimeMs = Math.round(performance.now() - ctx.startMs);
          const encoding = new TimeSlice(ROUTER_SLICE_MS, () => ctx.signal.throwIfAborted());
          const response = await sqlOutputResponse(
            results,
            { format, epoch, limit, compression, executionTimeMs },
            encoding,
          );
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
