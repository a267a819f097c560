/**
 * OTLP/HTTP metrics (reference ingest §3; docs/otlp.md "Metrics"): `POST /v1/otlp/v1/metrics`
 * with an `ExportMetricsServiceRequest` as protobuf (`application/x-protobuf`) or OTLP/JSON
 * (`application/json`). Samples land in the remote-write table layout, so PromQL and SQL read
 * them like remote-written metrics; type, unit and help go to the same metadata store.
 *
 * Answers: 200 with an `ExportMetricsServiceResponse` in the request's encoding, `partial_success`
 * set when points were rejected; 400 (google.rpc.Status body) for malformed requests, with
 * nothing stored; 415 for unknown content types; 413 past the body limit.
 */
import { DbError } from '../../shared/errors.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import { checkPermission } from '../auth/credentials.js';
import type { Catalog } from '../catalog.js';
import type { Route } from '../http/context.js';
import { HttpStatusError } from '../http/http-status-error.js';
import { databaseOf } from '../http/params.js';
import { metricsOptionsOf } from '../ingest/otlp/metrics-options.js';
import { otlpMetricsToInserts } from '../ingest/otlp/metrics-to-inserts.js';
import { handleOtlpExport, OtlpRequestError } from '../ingest/otlp/request.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import { metadataInsert } from '../ingest/prom-remote/metadata.js';
import type { ServerMetrics } from '../metrics.js';

/** The protocol name in ingest metrics. */
const PROTOCOL = 'otlp-metrics';

export interface OtlpMetricsDeps {
  catalog: Catalog;
  ingest: IngestPipeline;
}

export function otlpMetricsRoutes(deps: OtlpMetricsDeps, metrics: ServerMetrics): Route[] {
  const { catalog, ingest } = deps;
  const lookup = (db: string, table: string) => catalog.getTable(db, table);
  return [
    {
      methods: ['POST'],
      pattern: '/v1/otlp/v1/metrics',
      errorShape: 'short',
      decompress: true,
      protocol: PROTOCOL,
      handler: async (ctx) => {
        metrics.ingestBytes.inc({ protocol: PROTOCOL }, ctx.body.length);
        let sampleRows = 0;
        try {
          const response = await handleOtlpExport(ctx, 'metrics', async (request) => {
            // Inside the exchange, so a refusal is answered as an OTLP status like other errors.
            if (ctx.user) checkPermission(ctx.user, 'write');
            let options: ReturnType<typeof metricsOptionsOf>;
            try {
              options = metricsOptionsOf(ctx.headers);
            } catch (err) {
              throw new OtlpRequestError(400, (err as Error).message);
            }
            const db = databaseOf(ctx, ['db']);
            await yieldToEventLoop();
            const conversion = otlpMetricsToInserts(request, db, options, lookup);
            const inserts = conversion.inserts;
            const metadata = metadataInsert(conversion.metadata, db);
            if (metadata) inserts.push(metadata);
            await yieldToEventLoop();
            await ingest.write(inserts, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'last_row' });
            sampleRows = conversion.sampleRows;
            if (conversion.rejectedPoints === 0) return null;
            return { rejected: conversion.rejectedPoints, message: conversion.rejectionMessage };
          });
          const ok = response.status === 200;
          if (ok) metrics.ingestRows.inc({ protocol: PROTOCOL }, sampleRows);
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: ok ? 'ok' : 'rejected' });
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
