/**
 * `/v1/pql` (reference §6): a PromQL range query answered as SQL records through the `/v1/sql`
 * output formats (greptimedb_v1, csv, arrow, ...). Parameters come only from the URL query:
 * `query`, `start`, `end`, `step` (required), `lookback`, `db`, `format`, `epoch`, `compression`.
 * Columns are named after the metric's table as GreptimeDB names them (src/query/promql/to-records.ts).
 *
 *   URL → parse times/durations → parsePromql → rangeRecords (engine over the shards) → sqlOutputResponse
 */
import { parsePromql } from '../../query/promql/engine.js';
import { parseDurationParamMs, parseTimeMs } from '../../query/promql/time-params.js';
import { promqlSqlError, rangeRecords } from '../../query/sql/exec/tql.js';
import { DbError, ErrorCode, InvalidArgument } from '../../shared/errors.js';
import { ROUTER_SLICE_MS, TimeSlice } from '../../shared/time-slice.js';
import { inSpan } from '../../shared/tracing/active-tracer.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from '../http/context.js';
import { databaseOf } from '../http/params.js';
import type { ServerMetrics } from '../metrics.js';
import { ShardSampleSource } from '../promql-source.js';
import { parseArrowCompression } from '../respond/arrow-compression.js';
import { parseEpoch, parseSqlOutputFormat, sqlOutputResponse } from '../respond/sql-output.js';
import type { SqlEnvDeps } from '../sql-env.js';

/** Prometheus' default lookback delta. */
const DEFAULT_LOOKBACK_MS = 5 * 60 * 1000;
/** Required parameters, in the order GreptimeDB's query-string extractor reports them missing. */
const REQUIRED = ['query', 'start', 'end', 'step'] as const;

function timeOf(query: URLSearchParams, name: 'start' | 'end'): number {
  try {
    return parseTimeMs(query.get(name) as string);
  } catch (err) {
    throw new InvalidArgument(`Invalid ${name}: ${(err as Error).message}`);
  }
}

function durationOf(query: URLSearchParams, name: 'step' | 'lookback'): number {
  try {
    return Math.round(parseDurationParamMs(query.get(name) as string));
  } catch (err) {
    throw new InvalidArgument(`Invalid ${name}: ${(err as Error).message}`);
  }
}

export function pqlRoutes(deps: SqlEnvDeps, metrics: ServerMetrics): Route[] {
  return [
    {
      methods: ['GET', 'POST'],
      pattern: '/v1/pql',
      errors: 'greptime',
      query: true,
      handler: async (ctx) => {
        const url = ctx.query;
        for (const name of REQUIRED) {
          if (!url.has(name))
            throw new ClientError('BadQueryString', `Failed to deserialize query string: missing field \`${name}\``);
        }
        const format = parseSqlOutputFormat(url.get('format'));
        const epoch = parseEpoch(url.get('epoch'));
        const compression = parseArrowCompression(url.get('compression'));
        const db = databaseOf(ctx, ['db'], false);
        if (!deps.catalog.getDatabase(db)) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${db}`);
        const startMs = timeOf(url, 'start');
        const endMs = timeOf(url, 'end');
        const stepMs = durationOf(url, 'step');
        const lookbackMs = url.has('lookback') ? durationOf(url, 'lookback') : DEFAULT_LOOKBACK_MS;
        const query = url.get('query') as string;
        try {
          const expr = await inSpan('promql.parse', () => parsePromql(query));
          // Active during evaluation, so the shard tasks it sends are its children.
          const records = await inSpan('promql.eval', () =>
            rangeRecords({
              expr,
              query,
              startMs,
              endMs,
              stepMs,
              lookbackMs,
              env: deps.catalog,
              source: new ShardSampleSource(deps.catalog, deps.cluster, {
                db,
                user: ctx.user,
                limits: deps.promqlLimits,
              }),
              db,
              alias: null,
              signal: ctx.signal,
              limits: deps.promqlLimits,
            }),
          );
          metrics.queryDone('pql', 'ok', ctx.startMs);
          const executionTimeMs = Math.round(performance.now() - ctx.startMs);
          const encoding = new TimeSlice(ROUTER_SLICE_MS, () => ctx.signal.throwIfAborted());
          return await sqlOutputResponse(
            [records],
            { format, epoch, limit: undefined, compression, executionTimeMs },
            encoding,
          );
        } catch (err) {
          metrics.queryDone('pql', 'error', ctx.startMs);
          throw promqlSqlError(err, ErrorCode.InvalidArguments);
        }
      },
    },
  ];
}
