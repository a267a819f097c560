/** Request parameters shared by several routes: database selection and form bodies. */

import { InvalidArgument } from '../../shared/errors.js';
import type { Precision } from '../../shared/ingest/lineproto/types.js';
import { mediaTypeOf } from '../../shared/media-type.js';
import { ClientError } from '../errors/catalogue.js';
import type { RequestContext } from './context.js';

/**
 * The database of a request (reference ingest §0.2 / admin §1.3): the `x-greptime-db-name` header,
 * else the given parameter names in order, else `public`. `catalog-schema` names are split at the
 * first `-` when the prefix is our only catalog, `greptime`.
 */
export function databaseOf(
  ctx: RequestContext,
  paramNames: string[],
  headerWins = true,
  form?: URLSearchParams,
): string {
  const header = ctx.headers.get('x-greptime-db-name');
  let fromParams: string | undefined;
  for (const name of paramNames) {
    const v = ctx.query.get(name) ?? form?.get(name);
    if (v) {
      fromParams = v;
      break;
    }
  }
  const raw = headerWins ? header || fromParams : fromParams || header;
  if (!raw) return 'public';
  return raw.startsWith('greptime-') ? raw.slice('greptime-'.length) : raw;
}

/**
 * The form body of a POST. Routes that read parameters from a form require its content type, as
 * GreptimeDB does (415 otherwise); GET requests have no form.
 */
export function formOf(ctx: RequestContext): URLSearchParams {
  if (ctx.method !== 'POST') return new URLSearchParams();
  const type = mediaTypeOf(ctx.headers.get('content-type'));
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ClientError(
      'UnsupportedMediaType',
      'Form requests must have `Content-Type: application/x-www-form-urlencoded`',
    );
  }
  return new URLSearchParams(ctx.body.toString('utf8'));
}

/**
 * The `precision` query parameter → unit. Absent means nanoseconds; the accepted spellings are
 * those of GreptimeDB (n, ns, u, us, µ, ms, s, m, h).
 */
export function parsePrecision(s: string | undefined): Precision {
  switch (s) {
    case undefined:
    case 'n':
    case 'ns':
      return 'ns';
    case 'u':
    case 'us':
    case 'µ':
      return 'us';
    case 'ms':
      return 'ms';
    case 's':
      return 's';
    case 'm':
      return 'm';
    case 'h':
      return 'h';
    default:
      throw new InvalidArgument(`Failed to convert time precision, name: ${s}`);
  }
}
