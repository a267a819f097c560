/**
 * `POST /v1/ingest` (reference ingest §7): log records (JSON, NDJSON or text lines) through a
 * stored pipeline or a built-in one, into the request's table (plus any suffix the pipeline
 * gives a record). Every record is run before anything is written: one that fails fails the
 * request (400, nothing written) unless `skip_error` drops it. Tables made here are append-only.
 */
import { DbError, httpStatusOf } from '../../shared/errors.js';
import { checkPermission } from '../auth/credentials.js';
import { errorResponse } from '../errors/error-response.js';
import type { HttpResponse, Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';
import { invalidParameter, isTruthy, pipelineSpecOf, versionOf } from '../pipelines/request.js';
import type { PipelineStore } from '../pipelines/store.js';

const PROTOCOL = 'pipeline';

export interface LogIngestDeps {
  store: PipelineStore;
  ingest: IngestPipeline;
}

export function logIngestRoutes(deps: LogIngestDeps, metrics: ServerMetrics): Route[] {
  const { store, ingest } = deps;
  return [
    {
      methods: ['POST'],
      pattern: '/v1/ingest',
      errors: 'short',
      decompress: true,
      protocol: PROTOCOL,
      handler: async (ctx): Promise<HttpResponse> => {
        metrics.ingestBytes.inc({ protocol: PROTOCOL }, ctx.body.length);
        let writing = false;
        try {
          if (ctx.user) checkPermission(ctx.user, 'write');
          const db = databaseOf(ctx, ['db']);
          const table = ctx.query.get('table');
          if (!table) throw invalidParameter('table is required');
          const name =
            ctx.headers.get('x-greptime-pipeline-name') ??
            ctx.headers.get('x-greptime-log-pipeline-name') ??
            ctx.query.get('pipeline_name');
          if (!name) throw invalidParameter('pipeline_name is required');
          const params = new URLSearchParams(ctx.headers.get('x-greptime-pipeline-params') ?? '');
          const skipError = isTruthy(params.get('skip_error') ?? ctx.query.get('skip_error'));
          const ignoreErrors = isTruthy(ctx.query.get('ignore_errors'));
          const nested = params.get('max_nested_levels');
          const maxNestedLevels = nested !== null && /^\d+$/.test(nested) ? Number(nested) : undefined;
          const version = versionOf(ctx.query.get('version'));
          const contentType = ctx.headers.get('content-type');
          if (!contentType) throw invalidParameter('Content-Type is required');
          const identity = {
            maxNestedLevels,
            customTimeIndex: ctx.query.get('custom_time_index') ?? undefined,
            ignoreErrors,
          };
          const pipeline = await pipelineSpecOf(store, name, version, identity);
          // Parsing the body and running the pipeline are most of the cost: a shard does both
          // (src/shared/ingest/pipeline-decode.ts), and the router only queues the rows.
          const { tableRows: written } = await ingest.writeDecodedTables(
            {
              protocol: 'pipeline',
              body: ctx.body,
              db,
              table,
              contentType,
              ignoreErrors,
              skipError,
              pipeline,
              options: withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'append' }),
            },
            () => {
              writing = true;
            },
          );
          const rows = written.reduce((a, b) => a + b, 0);
          metrics.ingestRows.inc({ protocol: PROTOCOL }, rows);
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: 'ok' });
          const ms = Math.round(performance.now() - ctx.startMs);
          return {
            status: 200,
            headers: {
              'content-type': 'application/json',
              'x-greptime-format': 'greptimedb_v1',
              'x-greptime-execution-time': String(ms),
            },
            body: JSON.stringify({ output: written.map((n) => ({ affectedrows: n })), execution_time_ms: ms }),
          };
        } catch (err) {
          const rejected = err instanceof DbError && httpStatusOf(err.code) < 500;
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: rejected ? 'rejected' : 'failed' });
          if (writing && err instanceof DbError) {
            return errorResponse(err, 'greptime', Math.round(performance.now() - ctx.startMs));
          }
          throw err;
        }
      },
    },
  ];
}
