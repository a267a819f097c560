/**
 * Which requests need credentials, how to read them off a request, and the read/write permission
 * check made after login. Wire behaviour follows GreptimeDB's `servers/src/http/authorize.rs`:
 *
 *   every /v1/* path            x-greptime-auth or Authorization: `Basic base64(user:pass)`
 *   path containing /lineproto/ also `Token user:pass`; without a header, URL `u=` + `p=`
 *   /v1/eventcollector/*        also `Splunk user:pass`
 *   any of them                 `Bearer <token>` is recognised first and refused (7002)
 *
 * All failures are DbErrors with the codes of the reference (7003 missing, 7004 malformed, 1004 half
 * of u/p); the HTTP layer sends them as 401, or in the event collector's own shape.
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import type { AuthedUser } from './user-provider.js';

/** A user name and plain-text password as the client sent them. */
export interface Credentials {
  username: string;
  password: string;
}

/** Header values as received (`undefined` when absent). */
export interface AuthHeaders {
  authorization?: string | undefined;
  xGreptimeAuth?: string | undefined;
}

/** `/v1/` paths that are never authenticated (prefix match, as GreptimeDB's PUBLIC_APIS). */
const PUBLIC_PREFIXES = [
  '/v1/lineproto/ping',
  '/v1/lineproto/health',
  '/v1/health',
  '/v1/eventcollector/services/collector/health',
] as const;

/**
 * Whether a path skips authentication: everything outside `/v1/` (admin, dashboard, debug) and the
 * health and ping endpoints above. The main listener must therefore stay private.
 */
export function isAuthExempt(path: string): boolean {
  if (!path.startsWith('/v1/')) return true;
  return PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix));
}

const invalidHeader = (): DbError => new DbError(ErrorCode.InvalidAuthHeader, 'Invalid http authorization header');

/** hyper's `HeaderValue::to_str`: visible ASCII and tab only. */
function checkVisibleAscii(value: string): void {
  if (!/^[\t\x20-\x7e]*$/.test(value)) {
    throw new DbError(ErrorCode.InvalidAuthHeader, 'Invalid visibility ASCII chars');
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes `base64(user:pass)` strictly (standard alphabet, canonical padding, as Rust's
 * `BASE64_STANDARD`), then splits at the first `:` so that passwords may contain colons.
 */
function decodeBasic(encoded: string): Credentials {
  const wellFormed = encoded.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(encoded);
  const bytes = wellFormed ? Buffer.from(encoded, 'base64') : undefined;
  // Re-encoding catches non-zero trailing bits, which a strict decoder rejects.
  if (bytes === undefined || bytes.toString('base64') !== encoded) {
    throw new DbError(ErrorCode.InvalidAuthHeader, 'Invalid base64 value');
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new DbError(ErrorCode.InvalidAuthHeader, 'Invalid utf-8 value');
  }
  return splitUserPassword(text);
}

function splitUserPassword(text: string): Credentials {
  const colon = text.indexOf(':');
  if (colon < 0) throw invalidHeader();
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** `scheme credentials` split at the first space. */
function splitScheme(value: string): { scheme: string; credentials: string } {
  const space = value.indexOf(' ');
  if (space < 0) throw invalidHeader();
  return { scheme: value.slice(0, space), credentials: value.slice(space + 1) };
}

function isBearer(value: string | undefined): boolean {
  return value !== undefined && /^bearer /i.test(value);
}

/** Line protocol: Token or Basic in a header, else `u` and `p` in the URL. */
function lineprotoCredentials(header: string | undefined, query: URLSearchParams): Credentials {
  if (header !== undefined) {
    checkVisibleAscii(header);
    const { scheme, credentials } = splitScheme(header);
    switch (scheme.toLowerCase()) {
      case 'token':
        return splitUserPassword(credentials);
      case 'basic':
        return decodeBasic(credentials);
      default:
        throw new DbError(ErrorCode.InvalidAuthHeader, `Unsupported http auth scheme, name: ${scheme}`);
    }
  }
  // An empty `u=` counts as absent, as in GreptimeDB.
  const username = query.get('u') || undefined;
  const password = query.get('p') || undefined;
  if (username === undefined && password === undefined) {
    throw new DbError(ErrorCode.AuthHeaderNotFound, 'Not found influx http authorization info');
  }
  if (username === undefined || password === undefined) {
    throw new DbError(
      ErrorCode.InvalidArguments,
      'Invalid request parameter: influxdb auth: username and password must be provided together',
    );
  }
  return { username, password };
}

/** Every other `/v1/` path: Basic, plus Splunk on the event collector. Exactly one space. */
function headerCredentials(header: string | undefined, allowSplunk: boolean): Credentials {
  if (header === undefined) {
    throw new DbError(ErrorCode.AuthHeaderNotFound, 'Not found http or grpc authorization header');
  }
  checkVisibleAscii(header);
  const { scheme, credentials } = splitScheme(header);
  if (credentials.includes(' ')) throw invalidHeader();
  const lower = scheme.toLowerCase();
  if (lower === 'basic') return decodeBasic(credentials);
  if (lower === 'splunk' && allowSplunk) return splitUserPassword(credentials);
  // GreptimeDB names the lower-cased scheme here (and the original one on line-protocol paths).
  throw new DbError(ErrorCode.InvalidAuthHeader, `Unsupported http auth scheme, name: ${lower}`);
}

/**
 * Reads the credentials of a request to `path` (which must not be exempt, see `isAuthExempt`).
 * `x-greptime-auth` is consulted before `Authorization`. Throws a DbError with code 7002 (Bearer),
 * 7003 (nothing sent), 7004 (malformed) or 1004 (only one of `u`/`p` on line protocol).
 */
export function extractCredentials(path: string, headers: AuthHeaders, query: URLSearchParams): Credentials {
  if (isBearer(headers.xGreptimeAuth) || isBearer(headers.authorization)) {
    throw new DbError(ErrorCode.UserPasswordMismatch, 'Unsupported authentication method: bearer token');
  }
  const header = headers.xGreptimeAuth ?? headers.authorization;
  if (path.includes('/lineproto/')) return lineprotoCredentials(header, query);
  return headerCredentials(header, path.startsWith('/v1/eventcollector/'));
}

/**
 * Read-only users may not write (DDL, DML, ingest) and write-only users may not read (SELECT, PromQL,
 * metricsapi, remote read). Throws DbError 7006, which maps to 403.
 */
export function checkPermission(user: AuthedUser, access: 'read' | 'write'): void {
  const denied = (access === 'write' && user.mode === 'ro') || (access === 'read' && user.mode === 'wo');
  if (denied) {
    throw new DbError(ErrorCode.PermissionDenied, 'User is not authorized to perform this action');
  }
}
