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

import { metadataInsert } from '../../shared/ingest/prom-remote/metadata.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import type { Catalog } from '../catalog.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from '../http/context.js';
import { databaseOf } from '../http/params.js';
import { metricsOptionsOf } from '../ingest/otlp/metrics-options.js';
import { otlpMetricsToInserts } from '../ingest/otlp/metrics-to-inserts.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';
import { otlpExportRoute } from './otlp-export-route.js';

export interface OtlpMetricsDeps {
  catalog: Catalog;
  ingest: IngestPipeline;
}

export function otlpMetricsRoutes(deps: OtlpMetricsDeps, metrics: ServerMetrics): Route[] {
  const { catalog, ingest } = deps;
  const lookup = (db: string, table: string) => catalog.getTable(db, table);
  return [
    otlpExportRoute('metrics', 'otlp-metrics', metrics, async (ctx, request) => {
      let options: ReturnType<typeof metricsOptionsOf>;
      try {
        options = metricsOptionsOf(ctx.headers);
      } catch (err) {
        throw new ClientError('OtlpBadRequest', (err as Error).message);
      }
      const db = databaseOf(ctx, ['db']);
      await yieldToEventLoop();
      const conversion = otlpMetricsToInserts(request, db, options, lookup);
      const inserts = conversion.inserts;
      const metadata = metadataInsert(conversion.metadata, db);
      if (metadata) inserts.push(metadata);
      await yieldToEventLoop();
      await ingest.write(inserts, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'last_row' });
      return {
        rows: conversion.sampleRows,
        rejected: conversion.rejectedPoints,
        message: conversion.rejectionMessage,
      };
    }),
  ];
}
