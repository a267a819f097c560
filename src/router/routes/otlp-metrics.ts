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

import { metricsOptionsOf } from '../../shared/ingest/otlp/metrics-options.js';
import type { Catalog } from '../catalog.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';
import { otlpBodyRoute } from './otlp-export-route.js';

export interface OtlpMetricsDeps {
  catalog: Catalog;
  ingest: IngestPipeline;
}

export function otlpMetricsRoutes(deps: OtlpMetricsDeps, metrics: ServerMetrics): Route[] {
  const { ingest } = deps;
  return [
    otlpBodyRoute('metrics', 'otlp-metrics', metrics, async (ctx, encoding) => {
      let metricsOptions: ReturnType<typeof metricsOptionsOf>;
      try {
        metricsOptions = metricsOptionsOf(ctx.headers);
      } catch (err) {
        throw new ClientError('OtlpBadRequest', (err as Error).message);
      }
      const db = databaseOf(ctx, ['db']);
      // Decoding and conversion are most of the cost: a shard does both (decode-metrics.ts).
      const written = await ingest.writeDecodedTables({
        protocol: 'otlp-metrics',
        body: ctx.body,
        db,
        encoding,
        metricsOptions,
        options: withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'last_row' }),
      });
      return {
        rows: written.rows,
        rejected: written.partial?.rejected ?? 0,
        message: written.partial?.message ?? '',
      };
    }),
  ];
}
