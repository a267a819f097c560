/**
 * OpenTSDB put (reference ingest §6): `POST /v1/tsjson/api/put`, one point or an array of points,
 * one table per metric. Answers follow OpenTSDB:
 *
 *   no `summary`/`details`   all good → 204; any bad point → 400 naming the first one and why,
 *                            and nothing of the request is stored
 *   `?summary`               `{"success": N, "failed": M}`
 *   `?details`               the same plus `"errors": [{"datapoint", "error"}]`
 *
 * With `summary` or `details` the good points are stored and the bad ones counted (and listed);
 * the status is 200 when none failed and 400 otherwise. A write refused by the catalog (type
 * conflict with an existing table) fails the points of that metric only. Unlike GreptimeDB, a
 * failed put is never a masked 500: the message says which point and why.
 */
import { DbError, httpStatusOf } from '../../shared/errors.js';
import { type PointError, parsePutBody } from '../../shared/ingest/opentsdb/put-points.js';
import { type PutRuns, PutSeriesResolver } from '../../shared/ingest/opentsdb/put-series.js';
import { seriesInserts, type TableLookup, type TableRuns } from '../../shared/ingest/series-inserts.js';
import type { InsertOptions } from '../../shared/insert.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import { checkPermission } from '../auth/credentials.js';
import { empty, type HttpResponse, json, type Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';

const PROTOCOL = 'opentsdb';
/** Encodings the HTTP server has already undone. */
const DECODED_ENCODINGS = new Set(['', 'identity', 'gzip', 'x-gzip', 'deflate', 'br', 'zstd']);
const WRITE_OPTIONS = { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'last_row' } as const;

/**
 * Writes every table in one request when the catalog accepts them all; when it refuses one,
 * writes the tables one by one to learn which metrics fail. The pipeline checks every insert
 * before writing any, so a refusal (4xx) has stored nothing and the second pass writes no row
 * twice.
 */
async function writeTables(
  ingest: IngestPipeline,
  put: PutRuns,
  tables: TableRuns[],
  options: InsertOptions,
): Promise<PointError[]> {
  try {
    await ingest.write(
      tables.map((t) => t.insert),
      options,
    );
    return [];
  } catch (err) {
    if (!(err instanceof DbError) || httpStatusOf(err.code) >= 500) throw err;
  }
  const failed: PointError[] = [];
  for (const table of tables) {
    try {
      await ingest.write([table.insert], options);
    } catch (err) {
      if (!(err instanceof DbError) || httpStatusOf(err.code) >= 500) throw err;
      for (const run of table.runs) {
        const index = put.pointOf[run] as number;
        failed.push({ index, datapoint: put.datapoints[index], error: err.publicMessage() });
      }
    }
  }
  return failed;
}

export interface OpentsdbDeps {
  ingest: IngestPipeline;
  lookup: TableLookup;
  databaseExists: (db: string) => boolean;
  shards: number;
}

export function opentsdbRoutes(deps: OpentsdbDeps, metrics: ServerMetrics): Route[] {
  const { ingest, lookup, shards } = deps;
  const resolver = new PutSeriesResolver(shards);
  metrics.reportSeriesCache(PROTOCOL, () => resolver.size);
  return [
    {
      methods: ['POST'],
      pattern: '/v1/tsjson/api/put',
      errors: 'short',
      decompress: true,
      protocol: PROTOCOL,
      handler: async (ctx): Promise<HttpResponse> => {
        metrics.ingestBytes.inc({ protocol: PROTOCOL }, ctx.body.length);
        const count = (outcome: string) => metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome });
        try {
          if (ctx.user) checkPermission(ctx.user, 'write');
          const encoding = (ctx.headers.get('content-encoding') ?? '').trim().toLowerCase();
          if (!DECODED_ENCODINGS.has(encoding)) {
            count('rejected');
            return json(415, { error: `Unsupported Content-Encoding: ${encoding}` });
          }
          const summary = ctx.query.has('summary');
          const details = ctx.query.has('details');
          const db = databaseOf(ctx, ['db']);
          if (!summary && !details) {
            // All or nothing: a shard parses and resolves the points (IngestPipeline.writeDecoded).
            const rows = await ingest.writeDecoded({
              protocol: 'opentsdb',
              body: ctx.body,
              db,
              options: withHints(ctx, WRITE_OPTIONS),
            });
            metrics.ingestRows.inc({ protocol: PROTOCOL }, rows);
            count('ok');
            return empty(204);
          }

          const put = resolver.runsOf(parsePutBody(ctx.body), db, deps.databaseExists(db));
          const invalid = put.invalid;
          const good = put.runs.series.length;
          await yieldToEventLoop();
          const refused =
            good > 0
              ? await writeTables(ingest, put, seriesInserts(put.runs, lookup), withHints(ctx, WRITE_OPTIONS))
              : [];
          const failures = [...invalid, ...refused].sort((a, b) => a.index - b.index);
          const success = good - refused.length;
          metrics.ingestRows.inc({ protocol: PROTOCOL }, success);
          count(failures.length === 0 ? 'ok' : 'rejected');
          const body: Record<string, unknown> = { success, failed: failures.length };
          if (details) body.errors = failures.map((f) => ({ datapoint: f.datapoint, error: f.error }));
          return json(failures.length === 0 ? 200 : 400, body);
        } catch (err) {
          count(err instanceof DbError && httpStatusOf(err.code) < 500 ? 'rejected' : 'failed');
          throw err;
        }
      },
    },
  ];
}
