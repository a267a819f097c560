/**
 * Renders an error as the catalogue says: the status and body shape come from the error's kind on
 * the family; the text is the DbError's public message (masked for internal codes) or the
 * ClientError's message.
 */
import { codeName } from '../../shared/errors.js';
import type { HttpResponse } from '../http/context.js';
import { hecResponse } from '../ingest/hec/status.js';
import { type OtlpEncoding, otlpEncodingOf, otlpErrorResponse } from '../ingest/otlp/request.js';
import { type BodyShape, describeError, type ErrorFamily } from './catalogue.js';

/**
 * The shapes that carry `Retry-After` for a refusal that passes once load drops: GreptimeDB's own.
 * The protocols with their own bodies (HEC, Prometheus, OTLP) have never sent it.
 */
const RETRY_AFTER_SHAPES: ReadonlySet<BodyShape> = new Set(['greptime', 'short', 'metricsapi', 'text']);

const JSON_TYPE = { 'content-type': 'application/json' };

/** Header-safe copy of a message: non-ASCII bytes as `\xNN`, as GreptimeDB writes them. */
function headerSafe(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** OTLP answers in the request's encoding; a request that got this far had a valid one. */
function otlpEncodingOrDefault(headers: ReadonlyMap<string, string> | undefined): OtlpEncoding {
  if (headers === undefined) return 'protobuf';
  try {
    return otlpEncodingOf(headers);
  } catch {
    return 'protobuf';
  }
}

export interface ErrorResponseOptions {
  /** Picks OTLP's encoding. */
  requestHeaders?: ReadonlyMap<string, string>;
}

/** The answer to `err` on `family`; `executionTimeMs` is what the GreptimeDB body reports. */
export function errorResponse(
  err: unknown,
  family: ErrorFamily,
  executionTimeMs: number,
  options: ErrorResponseOptions = {},
): HttpResponse {
  const { kind, dbError, clientError } = describeError(err);
  const { status, shape, errorType, hecCode } = kind.answers[family];
  const message = dbError !== null ? dbError.publicMessage() : (clientError?.message ?? '');
  const code = dbError !== null ? dbError.code : kind.code;
  const response = render(shape);
  if (clientError !== null && Object.keys(clientError.headers).length > 0) {
    response.headers = { ...response.headers, ...clientError.headers };
  }
  const retryAfter = dbError?.retryAfterSeconds;
  if (retryAfter !== undefined && RETRY_AFTER_SHAPES.has(shape)) {
    response.headers = { ...response.headers, 'retry-after': String(retryAfter) };
  }
  return response;

  function render(shape: BodyShape): HttpResponse {
    switch (shape) {
      case 'greptime':
        return {
          status,
          headers: {
            ...JSON_TYPE,
            'x-greptime-err-code': String(code),
            'x-greptime-err-msg': headerSafe(`error: ${message}, execution_time_ms: ${executionTimeMs}`),
          },
          body: JSON.stringify({ code, error: message, execution_time_ms: executionTimeMs }),
        };
      case 'short':
        return { status, headers: { ...JSON_TYPE }, body: JSON.stringify({ error: message }) };
      case 'metricsapi':
        return {
          status,
          headers: { ...JSON_TYPE },
          body: JSON.stringify({ status: 'error', error: message, errorType: codeName(code) }),
        };
      case 'prometheus':
        return {
          status,
          headers: { ...JSON_TYPE },
          body: JSON.stringify({ status: 'error', errorType, error: message }),
        };
      case 'hec':
        return hecResponse(status, hecCode ?? 0, message, clientError?.invalidEventNumber);
      case 'otlp':
        return otlpErrorResponse(otlpEncodingOrDefault(options.requestHeaders), status, message);
      case 'text':
        return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: message };
      case 'empty':
        return { status };
    }
  }
}
