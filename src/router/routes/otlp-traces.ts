/**
 * OTLP/HTTP traces (reference ingest §3.1, §3.5): `POST /v1/otlp/v1/traces`, protobuf or JSON.
 * Spans go to `opentelemetry_traces` (or `x-greptime-trace-table-name`) plus its `_services` and
 * `_operations` tables; the answer waits until every row is durable. Spans that cannot be stored
 * are counted in `partial_success`; when none can, the answer is 400.
 */
import { yieldToEventLoop } from '../../shared/yield.js';
import type { Catalog } from '../catalog.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import { checkTracePipeline, tableNameOf } from '../ingest/otlp/trace-log-headers.js';
import { DEFAULT_TRACE_TABLE, tracesToInserts } from '../ingest/otlp/traces-to-inserts.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';
import { otlpExportRoute } from './otlp-export-route.js';

export interface OtlpTraceDeps {
  catalog: Catalog;
  ingest: IngestPipeline;
}

export function otlpTraceRoutes(deps: OtlpTraceDeps, metrics: ServerMetrics): Route[] {
  const { catalog, ingest } = deps;
  return [
    otlpExportRoute('traces', 'otlp-traces', metrics, async (ctx, request) => {
      checkTracePipeline(ctx.headers);
      const db = databaseOf(ctx, ['db']);
      const table = tableNameOf(ctx.headers, 'x-greptime-trace-table-name', DEFAULT_TRACE_TABLE);
      const mapped = tracesToInserts(request, db, table, catalog.getTable(db, table));
      if (mapped.accepted === 0 && mapped.rejected > 0) {
        throw new ClientError('OtlpBadRequest', `All ${mapped.rejected} spans were rejected: ${mapped.firstRejection}`);
      }
      // Let a timeout or a disconnect that happened while decoding stop the write.
      await yieldToEventLoop();
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (mapped.accepted > 0) {
        await ingest.write(
          [mapped.spans],
          withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'append' }),
        );
        // The service and operation lists are sets: re-sending one replaces its row.
        await ingest.write(mapped.auxiliary, {
          autoCreateTable: true,
          autoAddColumns: true,
          createMergeMode: 'last_row',
        });
      }
      return {
        rows: mapped.accepted,
        rejected: mapped.rejected,
        message: `${mapped.rejected} spans rejected; first: ${mapped.firstRejection}`,
      };
    }),
  ];
}
