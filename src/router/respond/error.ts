/**
 * Error bodies, one function per shape of the reference (§8.2). The status always comes from
 * `httpStatusOf`; only the body differs between route families.
 */
import { asDbError, codeName, type DbError, httpStatusOf } from '../../shared/errors.js';
import type { ErrorShape, HttpResponse } from '../http/context.js';

/** Header-safe copy of a message: non-ASCII bytes as `\xNN`, as GreptimeDB writes them. */
function headerSafe(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

export function errorResponse(err: unknown, shape: ErrorShape, executionTimeMs: number): HttpResponse {
  const e: DbError = asDbError(err);
  const status = httpStatusOf(e.code);
  const message = e.publicMessage();
  switch (shape) {
    case 'native':
      return {
        status,
        headers: {
          'content-type': 'application/json',
          'x-greptime-err-code': String(e.code),
          'x-greptime-err-msg': headerSafe(`error: ${message}, execution_time_ms: ${executionTimeMs}`),
        },
        body: JSON.stringify({ code: e.code, error: message, execution_time_ms: executionTimeMs }),
      };
    case 'short':
      return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: message }) };
    case 'metricsapi':
      return {
        status,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'error', error: message, errorType: codeName(e.code) }),
      };
    case 'text':
      return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: message };
  }
}
