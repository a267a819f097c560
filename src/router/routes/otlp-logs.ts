/**
 * OTLP/HTTP logs (reference ingest §3.1, §3.4): `POST /v1/otlp/v1/logs`, protobuf or JSON.
 * Records go to `opentelemetry_logs` (or `x-greptime-log-table-name`), an append-mode table, in
 * the built-in log model or through the pipeline `x-greptime-log-pipeline-name` names (reference
 * §3.4, src/router/pipelines/); the answer waits until every row is durable. Records that cannot be stored are counted in
 * `partial_success`; when none can, the answer is 400.
 */
import { yieldToEventLoop } from '../../shared/yield.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import { DEFAULT_LOG_TABLE, logsToInserts } from '../ingest/otlp/logs-to-inserts.js';
import { logsToRecords } from '../ingest/otlp/logs-to-records.js';
import { logPipelineOf, tableNameOf } from '../ingest/otlp/trace-log-headers.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';
import { ingestRecords } from '../pipelines/ingest-records.js';
import { versionOf } from '../pipelines/request.js';
import type { PipelineStore } from '../pipelines/store.js';
import { otlpExportRoute } from './otlp-export-route.js';

export function otlpLogRoutes(ingest: IngestPipeline, store: PipelineStore, metrics: ServerMetrics): Route[] {
  return [
    otlpExportRoute('logs', 'otlp-logs', metrics, async (ctx, request) => {
      const db = databaseOf(ctx, ['db']);
      const table = tableNameOf(ctx.headers, 'x-greptime-log-table-name', DEFAULT_LOG_TABLE);
      const pipeline = logPipelineOf(ctx.headers);
      if (pipeline !== null) {
        // Through a pipeline: every record or none (a failing record fails the request, 400).
        const records = logsToRecords(request);
        await yieldToEventLoop();
        const target = {
          db,
          pipeline,
          version: versionOf(ctx.headers.get('x-greptime-pipeline-version')),
          skipError: false,
        };
        const written = await ingestRecords(store, ingest, target, new Map([[table, records]]));
        return { rows: written.reduce((a, b) => a + b, 0), rejected: 0, message: '' };
      }
      const mapped = logsToInserts(request, db, table, BigInt(Date.now()) * 1_000_000n);
      if (mapped.accepted === 0 && mapped.rejected > 0) {
        throw new ClientError(
          'OtlpBadRequest',
          `All ${mapped.rejected} log records were rejected: ${mapped.firstRejection}`,
        );
      }
      // Let a timeout or a disconnect that happened while decoding stop the write.
      await yieldToEventLoop();
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (mapped.accepted > 0) {
        await ingest.write(
          [mapped.insert],
          withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'append' }),
        );
      }
      return {
        rows: mapped.accepted,
        rejected: mapped.rejected,
        message: `${mapped.rejected} log records rejected; first: ${mapped.firstRejection}`,
      };
    }),
  ];
}
