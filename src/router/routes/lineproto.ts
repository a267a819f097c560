/** InfluxDB line protocol (reference ingest §1): v1 and v2 write paths, ping and health. */

import { VERSION } from '../../shared/version.js';
import { checkPermission } from '../auth/credentials.js';
import { empty, type Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf, parsePrecision } from '../http/params.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';

/** `lineMaxBytes`: `ingest.line_max_bytes`, the longest line; a longer one fails the request with its line number. */
export function lineprotoRoutes(ingest: IngestPipeline, metrics: ServerMetrics, lineMaxBytes: number): Route[] {
  const write =
    (v2: boolean): Route['handler'] =>
    async (ctx) => {
      if (ctx.user) checkPermission(ctx.user, 'write');
      const db = databaseOf(ctx, v2 ? ['db', 'bucket'] : ['db']);
      const precision = parsePrecision(ctx.query.get('precision') ?? undefined);
      metrics.ingestBytes.inc({ protocol: 'lineproto' }, ctx.body.length);
      try {
        if (ctx.body.length === 0) return empty(204);
        // Parsing is most of the cost of a write: a shard does it (see IngestPipeline.writeDecoded).
        const rows = await ingest.writeDecoded({
          protocol: 'lineproto',
          body: ctx.body,
          db,
          precision,
          lineMaxBytes,
          nowNs: BigInt(Date.now()) * 1_000_000n,
          options: withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'last_non_null' }),
        });
        metrics.ingestRows.inc({ protocol: 'lineproto' }, rows);
        metrics.ingestRequests.inc({ protocol: 'lineproto', outcome: 'ok' });
        return empty(204);
      } catch (err) {
        metrics.ingestRequests.inc({ protocol: 'lineproto', outcome: 'rejected' });
        throw err;
      }
    };
  const influxHeaders = { 'x-influxdb-version': `shoaldb-${VERSION}`, 'x-influxdb-build': 'OSS' };
  return [
    {
      methods: ['POST'],
      pattern: '/v1/lineproto/write',
      errors: 'short',
      decompress: true,
      protocol: 'lineproto',
      handler: write(false),
    },
    {
      methods: ['POST'],
      pattern: '/v1/lineproto/api/v2/write',
      errors: 'short',
      decompress: true,
      protocol: 'lineproto',
      handler: write(true),
    },
    {
      methods: ['GET'],
      pattern: '/v1/lineproto/ping',
      errors: 'short',
      handler: async () => ({ status: 204, headers: influxHeaders }),
    },
    {
      methods: ['GET'],
      pattern: '/v1/lineproto/health',
      errors: 'short',
      handler: async () => ({ status: 200, headers: influxHeaders }),
    },
  ];
}
