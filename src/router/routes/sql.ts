/** `/v1/sql` (reference §4): parameters, database check, execution, output format. */
import { executeSql } from '../../query/sql/execute.js';
import { DbError, ErrorCode, InvalidArgument } from '../../shared/errors.js';
import type { Route } from '../http/context.js';
import { databaseOf, formOf } from '../http/params.js';
import type { ServerMetrics } from '../metrics.js';
import { greptimedbV1Body } from '../respond/greptimedb-v1.js';
import { createSqlEnv, type SqlEnvDeps } from '../sql-env.js';

export function sqlRoutes(deps: SqlEnvDeps, metrics: ServerMetrics): Route[] {
  return [
    {
      methods: ['GET', 'POST'],
      pattern: '/v1/sql',
      errorShape: 'native',
      handler: async (ctx) => {
        const form = formOf(ctx);
        const param = (name: string): string | undefined => ctx.query.get(name) ?? form.get(name) ?? undefined;
        const sql = param('sql');
        if (sql === undefined || sql.trim() === '') throw new InvalidArgument('sql parameter is required.');
        // Inside the handler the `db` parameter wins over the header (reference §4.1).
        const db = databaseOf(ctx, ['db'], false, form);
        if (!deps.catalog.getDatabase(db)) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${db}`);
        const limitText = ctx.query.get('limit');
        let limit: number | undefined;
        if (limitText !== null) {
          limit = Number(limitText);
          if (!Number.isInteger(limit) || limit < 0) {
            throw new InvalidArgument(`Failed to deserialize query string: limit: invalid digit found in string`);
          }
        }
        const env = createSqlEnv(deps, ctx.user);
        const session = {
          db,
          timezone: ctx.headers.get('x-greptime-timezone') || 'UTC',
          signal: ctx.signal,
        };
        try {
          const results = await executeSql(sql, session, env);
          metrics.queries.inc({ kind: 'sql', outcome: 'ok' });
          const elapsedMs = Math.round(performance.now() - ctx.startMs);
          return {
            status: 200,
            headers: {
              'content-type': 'application/json',
              'x-greptime-format': 'greptimedb_v1',
              'x-greptime-execution-time': String(elapsedMs),
            },
            body: greptimedbV1Body(results, elapsedMs, limit),
          };
        } catch (err) {
          metrics.queries.inc({ kind: 'sql', outcome: 'error' });
          throw err;
        }
      },
    },
  ];
}
