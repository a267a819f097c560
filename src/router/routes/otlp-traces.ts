/**
 * OTLP/HTTP traces (reference ingest §3.1, §3.5): `POST /v1/otlp/v1/traces`, protobuf or JSON.
 * Spans go to `opentelemetry_traces` (or `x-greptime-trace-table-name`) plus its `_services` and
 * `_operations` tables; the answer waits until every row is durable. Spans that cannot be stored
 * are counted in `partial_success`; when none can, the answer is 400.
 */
import { DbError } from '../../shared/errors.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import { checkPermission } from '../auth/credentials.js';
import type { Catalog } from '../catalog.js';
import type { Route } from '../http/context.js';
import { HttpStatusError } from '../http/http-status-error.js';
import { databaseOf } from '../http/params.js';
import { handleOtlpExport, OtlpRequestError } from '../ingest/otlp/request.js';
import { checkTracePipeline, tableNameOf } from '../ingest/otlp/trace-log-headers.js';
import { DEFAULT_TRACE_TABLE, tracesToInserts } from '../ingest/otlp/traces-to-inserts.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';

/** The protocol name of trace ingestion in metrics. */
const PROTOCOL = 'otlp-traces';

export interface OtlpTraceDeps {
  catalog: Catalog;
  ingest: IngestPipeline;
}

export function otlpTraceRoutes(deps: OtlpTraceDeps, metrics: ServerMetrics): Route[] {
  const { catalog, ingest } = deps;
  return [
    {
      methods: ['POST'],
      pattern: '/v1/otlp/v1/traces',
      errorShape: 'short',
      decompress: true,
      protocol: PROTOCOL,
      handler: async (ctx) => {
        if (ctx.user) checkPermission(ctx.user, 'write');
        metrics.ingestBytes.inc({ protocol: PROTOCOL }, ctx.body.length);
        try {
          const response = await handleOtlpExport(ctx, 'traces', async (request) => {
            checkTracePipeline(ctx.headers);
            const db = databaseOf(ctx, ['db']);
            const table = tableNameOf(ctx.headers, 'x-greptime-trace-table-name', DEFAULT_TRACE_TABLE);
            const mapped = tracesToInserts(request, db, table, catalog.getTable(db, table));
            if (mapped.accepted === 0 && mapped.rejected > 0) {
              throw new OtlpRequestError(400, `All ${mapped.rejected} spans were rejected: ${mapped.firstRejection}`);
            }
            // Let a timeout or a disconnect that happened while decoding stop the write.
            await yieldToEventLoop();
            if (ctx.signal.aborted) throw ctx.signal.reason;
            if (mapped.accepted > 0) {
              await ingest.write([mapped.spans], {
                autoCreateTable: true,
                autoAddColumns: true,
                createMergeMode: 'append',
              });
              // The service and operation lists are sets: re-sending one replaces its row.
              await ingest.write(mapped.auxiliary, {
                autoCreateTable: true,
                autoAddColumns: true,
                createMergeMode: 'last_row',
              });
            }
            metrics.ingestRows.inc({ protocol: PROTOCOL }, mapped.accepted);
            if (mapped.rejected === 0) return null;
            return {
              rejected: mapped.rejected,
              message: `${mapped.rejected} spans rejected; first: ${mapped.firstRejection}`,
            };
          });
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: response.status === 200 ? 'ok' : 'rejected' });
          return response;
        } catch (err) {
          const rejected = err instanceof HttpStatusError || (err instanceof DbError && err.code < 5000);
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: rejected ? 'rejected' : 'failed' });
          throw err;
        }
      },
    },
  ];
}
