/**
 * Prometheus remote write and remote read (reference ingest §2, admin §7.5):
 * `POST /v1/metricsapi/write` and `POST /v1/metricsapi/read`. Errors use the short body
 * `{"error": "..."}`; malformed bodies are 400, bodies that expand beyond the body limit 413.
 *
 * The `physical_table` URL parameter (GreptimeDB's metric-engine physical table) is accepted and
 * has no effect: every metric is its own ordinary table here (docs/metrics-storage.md).
 */

import type { PromqlLimits } from '../../query/promql/limits.js';
import { DbError, InvalidArgument } from '../../shared/errors.js';
import { decompressRemoteBody, type WrittenCounts } from '../../shared/ingest/prom-remote/decode-write.js';
import { snappyCompress } from '../../shared/ingest/prom-remote/snappy-block.js';
import { ResponseType, STREAMED_CONTENT_TYPE } from '../../shared/proto/prometheus.js';
import { checkPermission } from '../auth/credentials.js';
import type { Catalog } from '../catalog.js';
import { ClientError } from '../errors/catalogue.js';
import { empty, type HttpResponse, type RequestContext, type Route, text } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import { encodeChunkedReadResponse, encodeReadResponse } from '../ingest/prom-remote/read-encode.js';
import { decodeReadRequest, negotiateResponseType } from '../ingest/prom-remote/read-request.js';
import { remoteWriteRecords } from '../ingest/prom-remote/to-records.js';
import type { ServerMetrics } from '../metrics.js';
import { ingestRecords } from '../pipelines/ingest-records.js';
import { versionOf } from '../pipelines/request.js';
import type { PipelineStore } from '../pipelines/store.js';
import { type ShardQuery, ShardSampleSource } from '../promql-source.js';

/** The protocol name of remote write in metrics and for the write timeout's 504. */
const WRITE_PROTOCOL = 'metricsapi-write';

export interface PromRemoteDeps {
  catalog: Catalog;
  cluster: ShardQuery & { readonly count: number };
  ingest: IngestPipeline;
  /** Stored pipelines, for writes that name one. */
  pipelines: PipelineStore;
  /** `http.body_limit` in bytes (0 = none): also the bound on the decompressed body. */
  bodyLimitBytes: number;
  /** `[query]` limits: remote read selects under `query.max_samples` and `query.max_series`. */
  promqlLimits: PromqlLimits;
}

/**
 * The remote write version of a request by its content type: 1.0 (`prometheus.WriteRequest`, the
 * default) or 2.0 (`proto=io.prometheus.write.v2.Request`). Anything else gets 415, which tells a
 * Prometheus to fall back to a version it shares with the receiver.
 */
function writeVersionOf(header: string | undefined): 1 | 2 {
  if (header === undefined || header.trim() === '') return 1;
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  const proto = params.find((p) => p.startsWith('proto='))?.slice('proto='.length);
  if (type === 'application/x-protobuf') {
    if (proto === undefined || proto === 'prometheus.writerequest') return 1;
    if (proto === 'io.prometheus.write.v2.request') return 2;
  }
  throw new ClientError('UnsupportedMediaType', `unsupported prometheus remote write content type: ${header}`);
}

/** Remote write 2.0's answer: what was written, by kind (the spec's response headers). */
function writtenHeaders(written: WrittenCounts | undefined): Record<string, string> {
  return {
    'x-prometheus-remote-write-samples-written': String(written?.samples ?? 0),
    'x-prometheus-remote-write-histograms-written': String(written?.histograms ?? 0),
    'x-prometheus-remote-write-exemplars-written': String(written?.exemplars ?? 0),
  };
}

/** Snappy is what Prometheus sends; zstd (vmagent) would need a codec Node 20 lacks. */
function checkContentEncoding(header: string | undefined): void {
  const encoding = (header ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'snappy') return;
  throw new ClientError('UnsupportedMediaType', `unsupported prometheus remote request content encoding: ${header}`);
}

function decompress(body: Buffer, bodyLimitBytes: number): Buffer {
  const raw = decompressRemoteBody(body, bodyLimitBytes);
  // Refused only for decompressing past the body limit.
  if ('refused' in raw) throw new ClientError('BodyTooLarge', raw.refused.message);
  return raw.bytes;
}

/**
 * Remote write through a pipeline (reference ingest §2.4): the samples of each metric as records
 * into that metric's table. Through greptime_identity every label is a tag and the time index is
 * `greptime_timestamp` in milliseconds, as in GreptimeDB's Prometheus channel.
 */
async function writeThroughPipeline(
  deps: PromRemoteDeps,
  db: string,
  pipeline: string,
  ctx: RequestContext,
  raw: Uint8Array,
): Promise<number> {
  const version = versionOf(ctx.headers.get('x-greptime-pipeline-version'));
  const identity = { customTimeIndex: 'greptime_timestamp;epoch;ms', tagsExcept: ['greptime_value'] };
  const target = { db, pipeline, version, skipError: false, identity };
  const written = await ingestRecords(deps.pipelines, deps.ingest, target, remoteWriteRecords(raw));
  return written.reduce((a, b) => a + b, 0);
}

export function promRemoteRoutes(deps: PromRemoteDeps, metrics: ServerMetrics): Route[] {
  const { catalog, cluster, ingest, bodyLimitBytes } = deps;
  return [
    {
      methods: ['POST'],
      pattern: '/v1/metricsapi/write',
      errors: 'remote-write',
      protocol: WRITE_PROTOCOL,
      handler: async (ctx) => {
        if (ctx.user) checkPermission(ctx.user, 'write');
        // VictoriaMetrics' agent asks which protocol version it may use before writing.
        if (ctx.query.has('get_vm_proto_version')) return text(200, '1');
        metrics.ingestBytes.inc({ protocol: WRITE_PROTOCOL }, ctx.body.length);
        try {
          const version = writeVersionOf(ctx.headers.get('content-type'));
          checkContentEncoding(ctx.headers.get('content-encoding'));
          const db = databaseOf(ctx, ['db']);
          if (ctx.body.length === 0) {
            return version === 2 ? { status: 204, headers: writtenHeaders(undefined) } : empty(204);
          }
          const pipeline = ctx.headers.get('x-greptime-pipeline-name')?.trim();
          if (pipeline) {
            if (version === 2) {
              throw new ClientError('UnsupportedMediaType', 'remote write 2.0 cannot be written through a pipeline');
            }
            const rows = await writeThroughPipeline(deps, db, pipeline, ctx, decompress(ctx.body, bodyLimitBytes));
            metrics.ingestRows.inc({ protocol: WRITE_PROTOCOL }, rows);
            metrics.ingestRequests.inc({ protocol: WRITE_PROTOCOL, outcome: 'ok' });
            return empty(204);
          }
          // Decompressing and decoding are most of the cost: a shard does them (IngestPipeline.writeDecoded).
          const done = await ingest.writeDecodedTables({
            protocol: 'prom-remote',
            body: ctx.body,
            db,
            bodyLimitBytes,
            version,
            options: withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'last_row' }),
          });
          metrics.ingestRows.inc({ protocol: WRITE_PROTOCOL }, done.rows);
          metrics.ingestRequests.inc({ protocol: WRITE_PROTOCOL, outcome: 'ok' });
          return version === 2 ? { status: 204, headers: writtenHeaders(done.written) } : empty(204);
        } catch (err) {
          const rejected = err instanceof ClientError || (err instanceof DbError && err.code < 5000);
          metrics.ingestRequests.inc({ protocol: WRITE_PROTOCOL, outcome: rejected ? 'rejected' : 'failed' });
          throw err;
        }
      },
    },
    {
      methods: ['POST'],
      pattern: '/v1/metricsapi/read',
      errors: 'short',
      query: true,
      handler: async (ctx): Promise<HttpResponse> => {
        if (ctx.user) checkPermission(ctx.user, 'read');
        try {
          checkContentEncoding(ctx.headers.get('content-encoding'));
          const db = databaseOf(ctx, ['db']);
          const raw = decompress(ctx.body, bodyLimitBytes);
          let request: ReturnType<typeof decodeReadRequest>;
          try {
            request = decodeReadRequest(raw);
          } catch (err) {
            if (err instanceof DbError) throw err;
            throw new InvalidArgument(`Failed to decode prometheus remote request: ${(err as Error).message}`);
          }
          const responseType = negotiateResponseType(request.acceptedResponseTypes);
          if (responseType === null) {
            throw new InvalidArgument(
              `server does not support any of the requested response types: [${request.acceptedResponseTypes.join(' ')}]; supported: [SAMPLES STREAMED_XOR_CHUNKS]`,
            );
          }
          const source = new ShardSampleSource(catalog, cluster, { db, user: ctx.user, limits: deps.promqlLimits });
          const results = [];
          // One query at a time bounds memory to the largest query, not the sum.
          for (const q of request.queries) {
            results.push(await source.selectRange(q.matchers, q.startMs, q.endMs, ctx.signal));
          }
          metrics.queryDone('remote_read', 'ok', ctx.startMs);
          if (responseType === ResponseType.STREAMED_XOR_CHUNKS) {
            return {
              status: 200,
              headers: { 'content-type': STREAMED_CONTENT_TYPE },
              body: encodeChunkedReadResponse(results),
            };
          }
          return {
            status: 200,
            headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
            body: snappyCompress(encodeReadResponse(results)),
          };
        } catch (err) {
          metrics.queryDone('remote_read', 'error', ctx.startMs);
          throw err;
        }
      },
    },
  ];
}
