/**
 * Loki push (reference ingest §4): `POST /v1/logpush/api/v1/push`, protobuf+snappy or JSON, into
 * the log table named by `x-greptime-log-table-name` (default `loki_logs`), directly or through
 * the pipeline `x-greptime-pipeline-name` names (ingest/loki/to-records.ts). Answers 204 on success,
 * as Loki does (GreptimeDB answers 200 with a body; Promtail and Alloy accept any 2xx).
 *
 * Errors: a malformed request is 400 `{"error": ...}` (415 for a content type or encoding we do not
 * read, 413 past the body limit), decided before anything is written; a refusal of the write
 * itself (table conflicts, missing database) has the native body `{code, error, execution_time_ms}`
 * that GreptimeDB gives errors of its table-write stage.
 */
import { DbError, httpStatusOf } from '../../shared/errors.js';
import { decodePushJson } from '../../shared/ingest/loki/push-json.js';
import { decodePushProtobuf, LokiBodyTooLarge } from '../../shared/ingest/loki/push-protobuf.js';
import type { LokiStream } from '../../shared/ingest/loki/push-streams.js';
import { DEFAULT_TABLE } from '../../shared/ingest/loki/to-inserts.js';
import { mediaTypeOf } from '../../shared/media-type.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import { checkPermission } from '../auth/credentials.js';
import { ClientError } from '../errors/catalogue.js';
import { errorResponse } from '../errors/error-response.js';
import { empty, type HttpResponse, type Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import { lokiRecords } from '../ingest/loki/to-records.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';
import { ingestRecords } from '../pipelines/ingest-records.js';
import { versionOf } from '../pipelines/request.js';
import type { PipelineStore } from '../pipelines/store.js';

const PROTOCOL = 'loki';
/** Without a configured body limit, snappy decompression still stops here (as the HTTP server does). */
const DECOMPRESSED_BYTES_MAX = 1024 * 1024 * 1024;
/** Encodings the HTTP server has already undone; `snappy` is the protobuf body's own framing. */
const DECODED_ENCODINGS = new Set(['', 'identity', 'gzip', 'x-gzip', 'deflate', 'br', 'zstd']);
/** Longest table name accepted from the header. */
const TABLE_NAME_CHARS_MAX = 255;

export interface LokiDeps {
  ingest: IngestPipeline;
  /** Stored pipelines, for pushes that name one. */
  pipelines: PipelineStore;
  /** `http.body_limit` in bytes (0 = none): also the bound on the decompressed protobuf. */
  bodyLimitBytes: number;
}

function tableOf(header: string | undefined): string {
  if (header === undefined) return DEFAULT_TABLE;
  const name = header.trim();
  if (name === '' || name.length > TABLE_NAME_CHARS_MAX || /[\x00-\x1f\x7f]/.test(name)) {
    throw new ClientError('LokiBadTableHeader', `Invalid x-greptime-log-table-name: ${JSON.stringify(header)}`);
  }
  return name;
}

/** How the body is encoded, from its headers (415 for what Loki push does not define). */
function contentOf(ctx: { headers: Map<string, string> }): 'protobuf' | 'json' {
  const contentType = ctx.headers.get('content-type');
  const type = mediaTypeOf(contentType);
  const encoding = (ctx.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (type === 'application/x-protobuf') {
    if (!DECODED_ENCODINGS.has(encoding) && encoding !== 'snappy') {
      throw new ClientError('LokiUnsupportedContent', `Unsupported Content-Encoding: ${encoding}`);
    }
    return 'protobuf';
  }
  if (type === 'application/json') {
    if (!DECODED_ENCODINGS.has(encoding))
      throw new ClientError('LokiUnsupportedContent', `Unsupported Content-Encoding: ${encoding}`);
    return 'json';
  }
  if (contentType === undefined)
    throw new ClientError('LokiUnsupportedContent', 'Header of type `content-type` was missing');
  throw new ClientError(
    'LokiUnsupportedContent',
    `Unsupported content type: ${contentType}; expected application/json or application/x-protobuf`,
  );
}

/** Streams decoded here, for the pipeline path (which runs its records in the router). */
function decodeHere(body: Buffer, content: 'protobuf' | 'json', maxBytes: number): LokiStream[] {
  if (content === 'json') return decodePushJson(body);
  try {
    return decodePushProtobuf(body, maxBytes);
  } catch (err) {
    if (err instanceof LokiBodyTooLarge) throw new ClientError('BodyTooLarge', err.message);
    throw err;
  }
}

export function lokiRoutes(deps: LokiDeps, metrics: ServerMetrics): Route[] {
  const { ingest, bodyLimitBytes } = deps;
  return [
    {
      methods: ['POST'],
      pattern: '/v1/logpush/api/v1/push',
      errors: 'short',
      decompress: true,
      protocol: PROTOCOL,
      handler: async (ctx): Promise<HttpResponse> => {
        metrics.ingestBytes.inc({ protocol: PROTOCOL }, ctx.body.length);
        let writing = false;
        try {
          if (ctx.user) checkPermission(ctx.user, 'write');
          const db = databaseOf(ctx, ['db']);
          const table = tableOf(ctx.headers.get('x-greptime-log-table-name'));
          const content = contentOf(ctx);
          const maxBytes = bodyLimitBytes > 0 ? bodyLimitBytes : DECOMPRESSED_BYTES_MAX;
          const pipeline = ctx.headers.get('x-greptime-pipeline-name')?.trim();
          if (pipeline) {
            const streams = decodeHere(ctx.body, content, maxBytes);
            await yieldToEventLoop();
            const target = {
              db,
              pipeline,
              version: versionOf(ctx.headers.get('x-greptime-pipeline-version')),
              skipError: false,
            };
            const written = await ingestRecords(
              deps.pipelines,
              ingest,
              target,
              new Map([[table, lokiRecords(streams)]]),
              () => {
                writing = true;
              },
            );
            metrics.ingestRows.inc(
              { protocol: PROTOCOL },
              written.reduce((a, b) => a + b, 0),
            );
            metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: 'ok' });
            return empty(204);
          }
          // Decoding is most of the cost: a shard does it (src/shared/ingest/decode.ts).
          const { rows } = await ingest.writeDecodedTables(
            {
              protocol: 'loki',
              body: ctx.body,
              db,
              table,
              content,
              maxBytes,
              options: withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'append' }),
            },
            () => {
              writing = true;
            },
          );
          metrics.ingestRows.inc({ protocol: PROTOCOL }, rows);
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: 'ok' });
          return empty(204);
        } catch (err) {
          const rejected = err instanceof ClientError || (err instanceof DbError && httpStatusOf(err.code) < 500);
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: rejected ? 'rejected' : 'failed' });
          // The table-write stage answers in GreptimeDB's native family (module comment).
          if (writing && err instanceof DbError) {
            return errorResponse(err, 'greptime', Math.round(performance.now() - ctx.startMs));
          }
          throw err;
        }
      },
    },
  ];
}
