/**
 * The OTLP/HTTP exchange shared by `/v1/otlp/v1/{metrics,traces,logs}`: pick the encoding from
 * `Content-Type`, decode the `Export*ServiceRequest` into the decoded shape of `shared/proto/otlp.ts`, and
 * answer in the request's encoding (OTLP/HTTP: "the server MUST use the same Content-Type in the
 * response as it receives in the request").
 *
 *   Content-Type application/x-protobuf (or application/protobuf, or absent, as GreptimeDB
 *     tolerates) → protobuf; application/json → OTLP/JSON (GreptimeDB refuses it; the spec and
 *     we serve it); anything else → 415.
 *   Content-Encoding: the HTTP layer has already decoded gzip/deflate/br/zstd; any other value
 *     (e.g. snappy, which it passes through) → 415 rather than a confusing decode error.
 *   Success → 200 with an Export*ServiceResponse, `partial_success` set only when records were
 *     rejected. Client errors → 4xx with a google.rpc.Status body (OTLP/HTTP's failure body).
 *
 * Usage from a route: `return handleOtlpExport(ctx, 'logs', async (request) => ... )`.
 */

import { decodeOtlpJson, encodeOtlpJson, OtlpJsonError } from '../../../shared/ingest/otlp/json.js';
import {
  decodeOtlp,
  type ExportLogsServiceRequest,
  type ExportMetricsServiceRequest,
  type ExportTraceServiceRequest,
  OtlpTypes,
} from '../../../shared/proto/otlp.js';
import { ClientError } from '../../errors/catalogue.js';
import type { HttpResponse, RequestContext } from '../../http/context.js';
import { decodeLogsRequest } from './logs-wire-decode.js';

export type OtlpSignal = 'metrics' | 'traces' | 'logs';

import type { OtlpEncoding } from '../../../shared/ingest/otlp/decode-metrics.js';
import { mediaTypeOf } from '../../../shared/media-type.js';

export type { OtlpEncoding };

/** The decoded request type of each signal. */
export interface OtlpRequestOf {
  metrics: ExportMetricsServiceRequest;
  traces: ExportTraceServiceRequest;
  logs: ExportLogsServiceRequest;
}

/** What a handler reports back: how many records it rejected and why (none → null). */
export interface PartialSuccess {
  rejected: number;
  message: string;
}

const PROTOBUF_CONTENT_TYPE = 'application/x-protobuf';
const JSON_CONTENT_TYPE = 'application/json';

/** Encodings the HTTP layer decodes before the handler runs (http/decompress.ts). */
const DECODED_CONTENT_ENCODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br', 'zstd', 'identity']);

const SIGNAL_TYPES = {
  metrics: {
    request: OtlpTypes.exportMetricsRequest,
    response: OtlpTypes.exportMetricsResponse,
    rejectedField: 'rejectedDataPoints',
  },
  traces: {
    request: OtlpTypes.exportTraceRequest,
    response: OtlpTypes.exportTraceResponse,
    rejectedField: 'rejectedSpans',
  },
  logs: {
    request: OtlpTypes.exportLogsRequest,
    response: OtlpTypes.exportLogsResponse,
    rejectedField: 'rejectedLogRecords',
  },
} as const;

/**
 * The encoding of a request from its `Content-Type`; throws an `UnsupportedMediaType` (415) for media
 * types OTLP/HTTP does not define and for content encodings the HTTP layer did not decode.
 */
export function otlpEncodingOf(headers: ReadonlyMap<string, string>): OtlpEncoding {
  const contentEncoding = headers.get('content-encoding')?.trim().toLowerCase();
  if (contentEncoding && !DECODED_CONTENT_ENCODINGS.has(contentEncoding)) {
    throw new ClientError(
      'UnsupportedMediaType',
      `Unsupported Content-Encoding '${contentEncoding}' for OTLP; supported: gzip, deflate, br, zstd`,
    );
  }
  const header = headers.get('content-type');
  const mediaType = mediaTypeOf(header);
  if (mediaType === '' || mediaType === PROTOBUF_CONTENT_TYPE || mediaType === 'application/protobuf') {
    return 'protobuf';
  }
  if (mediaType === JSON_CONTENT_TYPE) return 'json';
  throw new ClientError(
    'UnsupportedMediaType',
    `Unsupported content type '${header}'. OTLP endpoints accept 'application/x-protobuf' and 'application/json'`,
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes the body as the signal's Export*ServiceRequest; throws OtlpBadRequest when malformed. */
export function decodeExportRequest<S extends OtlpSignal>(
  signal: S,
  encoding: OtlpEncoding,
  body: Uint8Array,
): OtlpRequestOf[S] {
  const type = SIGNAL_TYPES[signal].request;
  try {
    if (encoding === 'protobuf') {
      // Logs have a hand-written decoder for speed; it yields the same shape as decodeOtlp.
      if (signal === 'logs') return decodeLogsRequest(body) as OtlpRequestOf[S];
      return decodeOtlp<OtlpRequestOf[S]>(type, body);
    }
    return decodeOtlpJson<OtlpRequestOf[S]>(type, utf8.decode(body));
  } catch (err) {
    const reason = err instanceof OtlpJsonError || err instanceof Error ? err.message : String(err);
    const what = encoding === 'protobuf' ? 'protobuf' : 'JSON';
    throw new ClientError('OtlpBadRequest', `Failed to decode OTLP ${signal} request (${what}): ${reason}`);
  }
}

/** The 200 answer: an Export*ServiceResponse, with `partial_success` when something was rejected. */
export function exportResponse(
  signal: OtlpSignal,
  encoding: OtlpEncoding,
  partial: PartialSuccess | null = null,
): HttpResponse {
  const { response, rejectedField } = SIGNAL_TYPES[signal];
  const value: Record<string, unknown> =
    partial && (partial.rejected > 0 || partial.message !== '')
      ? { partialSuccess: { [rejectedField]: BigInt(partial.rejected), errorMessage: partial.message } }
      : {};
  return encodeAnswer(200, encoding, response, value);
}

/** gRPC status codes carried in google.rpc.Status, by the HTTP status they go with. */
function grpcCodeOf(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
    case 413:
    case 415:
      return 3; // INVALID_ARGUMENT
    case 401:
      return 16; // UNAUTHENTICATED
    case 403:
      return 7; // PERMISSION_DENIED
    case 404:
      return 5; // NOT_FOUND
    case 429:
      return 8; // RESOURCE_EXHAUSTED
    case 503:
      return 14; // UNAVAILABLE
    case 504:
      return 4; // DEADLINE_EXCEEDED
    default:
      return 13; // INTERNAL
  }
}

/** A failure answer: google.rpc.Status{code, message} in the request's encoding. */
export function otlpErrorResponse(encoding: OtlpEncoding, httpStatus: number, message: string): HttpResponse {
  return encodeAnswer(httpStatus, encoding, OtlpTypes.rpcStatus, { code: grpcCodeOf(httpStatus), message });
}

function encodeAnswer(
  status: number,
  encoding: OtlpEncoding,
  type: (typeof OtlpTypes)[keyof typeof OtlpTypes],
  value: Record<string, unknown>,
): HttpResponse {
  if (encoding === 'json') {
    return { status, headers: { 'content-type': JSON_CONTENT_TYPE }, body: encodeOtlpJson(type, value) };
  }
  // protobufjs wants Long-compatible 64-bit values: a decimal string is one.
  const wire = JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  return {
    status,
    headers: { 'content-type': PROTOBUF_CONTENT_TYPE },
    body: type.encode(type.fromObject(wire)).finish(),
  };
}

/**
 * The whole exchange for one signal: negotiate the encoding, decode, run `ingest` on the decoded
 * request, answer. Errors are the HTTP layer's to answer: on the `otlp` family of the error
 * catalogue, client errors (OtlpBadRequest, DbErrors with a 4xx status such as a type conflict or a
 * permission error) become a google.rpc.Status in the request's encoding, and the rest the
 * route's `{error}` (internal ones masked).
 */
export async function handleOtlpExport<S extends OtlpSignal>(
  ctx: RequestContext,
  signal: S,
  ingest: (request: OtlpRequestOf[S], encoding: OtlpEncoding) => Promise<PartialSuccess | null>,
): Promise<HttpResponse> {
  return handleOtlpBody(ctx, signal, (encoding) => ingest(decodeExportRequest(signal, encoding, ctx.body), encoding));
}

/** The same exchange for a signal whose body is decoded elsewhere (metrics: in a shard). */
export async function handleOtlpBody(
  ctx: RequestContext,
  signal: OtlpSignal,
  ingest: (encoding: OtlpEncoding) => Promise<PartialSuccess | null>,
): Promise<HttpResponse> {
  const encoding = otlpEncodingOf(ctx.headers);
  const partial = await ingest(encoding);
  return exportResponse(signal, encoding, partial);
}
