/**
 * The two HTTP listeners on uWebSockets.js and the one request pipeline every route goes through:
 * API-server filter → route lookup → timeout → declared body size → auth → body (streamed, limited,
 * decompressed) → handler → error mapping. uWS rules that shaped this file: a handler must answer
 * or register onAborted before returning; `req` dies at the first await; onData chunks are
 * detached after the callback; after abort or end, touching `res` throws.
 */

import type { HttpRequest, TemplatedApp, HttpResponse as UwsResponse } from 'uWebSockets.js';
import uWS from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';
import zlib from 'node:zlib';
import type { Logger } from 'pino';
import type { Config } from '../../shared/config.js';
import { DbError } from '../../shared/errors.js';
import { countRejection } from '../../shared/rejections.js';
import { parseDurationMs } from '../../shared/size-duration.js';
import { withSpan } from '../../shared/tracing/active-tracer.js';
import { ZstdError, zstdDecompress } from '../../shared/zstd.js';
import { checkPermission, extractCredentials, isAuthExempt } from '../auth/credentials.js';
import type { UserProvider } from '../auth/user-provider.js';
import { errorResponse } from '../respond/error.js';
import type { HttpResponse, Listener, RequestContext, Route } from './context.js';
import { HttpStatusError } from './http-status-error.js';
import type { QueryGate } from './query-gate.js';
import { endRequestSpan, startRequestSpan } from './request-span.js';
import { allowedOnApiServer, RouteTable } from './route-table.js';
import type { WriteBytesLimiter } from './write-bytes-limiter.js';

/** Debug routes are outside the configured limit, as in GreptimeDB; they keep a fixed cap. */
const DEBUG_BODY_LIMIT_BYTES = 2 * 1024 * 1024;
/** Without a configured limit, decompression still stops here so a small bomb cannot exhaust memory. */
const DECOMPRESSED_BYTES_MAX = 1024 * 1024 * 1024;

class HttpError extends Error {
  constructor(readonly response: HttpResponse) {
    super(typeof response.body === 'string' ? response.body : `HTTP ${response.status}`);
  }
}

/** `http.body_limit` crossed (declared, streamed, or once decompressed). */
function bodyTooLarge(): HttpStatusError {
  countRejection('body_limit');
  return new HttpStatusError(413, 'Failed to buffer the request body: length limit exceeded');
}

export interface ServerDeps {
  config: Config;
  log: Logger;
  routes: Route[];
  userProvider: UserProvider | null;
  /** Bounds the summed body size of concurrent write (ingest) requests; null = unbounded. */
  writeLimiter?: WriteBytesLimiter | null;
  /** Bounds the queries running at once; null = unbounded. */
  queryGate?: QueryGate | null;
  /** Called once per answered request, for metrics. */
  onResponse?: (method: string, status: number, durationMs: number) => void;
}

export interface RunningServer {
  mainPort: number;
  apiPort: number | null;
  /** Stops accepting (new connections and new requests on open ones); in-flight requests finish. */
  close(): void;
  /** Requests currently being handled. */
  inFlight(): number;
}

function splitAddr(addr: string): { host: string; port: number } {
  const at = addr.lastIndexOf(':');
  return { host: addr.slice(0, at), port: Number(addr.slice(at + 1)) };
}

export async function startHttpServer(deps: ServerDeps): Promise<RunningServer> {
  if (typeof uWS.getParts !== 'function') {
    throw new Error('uWebSockets.js native binary is missing: run on Node.js 20 with the pinned package');
  }
  const table = new RouteTable(deps.routes);
  let inFlight = 0;
  let closed = false;
  const listenSockets: unknown[] = [];

  const makeApp = (listener: Listener): TemplatedApp => {
    const app = uWS.App();
    app.any('/*', (res, req) => {
      if (closed) {
        // Keep-alive connections outlive the listen socket: refuse what they send once closing.
        countRejection('shutting_down');
        res.cork(() => {
          res.writeStatus('503 Service Unavailable').writeHeader('connection', 'close').end('server is shutting down');
        });
        return;
      }
      inFlight++;
      handleRequest(res, req, listener, table, deps).finally(() => {
        inFlight--;
      });
    });
    return app;
  };

  const listen = (app: TemplatedApp, addr: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const { host, port } = splitAddr(addr);
      // Literal 1 = LIBUS_LISTEN_EXCLUSIVE_PORT: without it a second server on the port also "succeeds".
      (app as unknown as { listen: (h: string, p: number, o: number, cb: (t: unknown) => void) => void }).listen(
        host,
        port,
        1,
        (token) => {
          if (!token) {
            reject(new Error(`cannot listen on ${addr}`));
            return;
          }
          listenSockets.push(token);
          resolve(uWS.us_socket_local_port(token as never));
        },
      );
    });

  const mainPort = await listen(makeApp('main'), deps.config.http.addr);
  let apiPort: number | null = null;
  if (deps.config.http.enableApiServer) apiPort = await listen(makeApp('api'), deps.config.http.apiServerAddr);

  return {
    mainPort,
    apiPort,
    close() {
      closed = true;
      for (const s of listenSockets) uWS.us_listen_socket_close(s as never);
      listenSockets.length = 0;
    },
    inFlight: () => inFlight,
  };
}

async function handleRequest(
  res: UwsResponse,
  req: HttpRequest,
  listener: Listener,
  table: RouteTable,
  deps: ServerDeps,
): Promise<void> {
  const startMs = performance.now();
  const controller = new AbortController();
  let done = false;
  let bodyHandlers: { onChunk: (chunk: ArrayBuffer, last: boolean) => void } | null = null;
  res.onAborted(() => {
    done = true;
    controller.abort(new DbError(1005, 'client went away'));
  });

  // Copy everything from `req` now: it is invalid after the first await.
  const method = req.getMethod().toUpperCase();
  const path = req.getUrl();
  const rawQuery = req.getQuery() ?? '';
  const headers = new Map<string, string>();
  req.forEach((k, v) => {
    headers.set(k, v);
  });
  const { config } = deps;
  let answeredStatus = 0;

  const send = (response: HttpResponse): void => {
    if (done) return;
    done = true;
    answeredStatus = response.status;
    res.cork(() => {
      res.writeStatus(`${response.status} ${STATUS_CODES[response.status] ?? ''}`);
      if (config.http.enableCors) res.writeHeader('access-control-allow-origin', '*');
      for (const [k, v] of Object.entries(response.headers ?? {})) res.writeHeader(k, v);
      if (method === 'HEAD' || response.body === undefined) res.end();
      else res.end(response.body);
    });
    deps.onResponse?.(method, response.status, performance.now() - startMs);
  };

  if (listener === 'api' && !allowedOnApiServer(path)) {
    send({ status: 404 });
    return;
  }
  if (method === 'OPTIONS' && config.http.enableCors) {
    send({
      status: 200,
      headers: {
        'access-control-allow-methods': 'GET,POST,PUT,DELETE,HEAD',
        'access-control-allow-headers': '*',
      },
    });
    return;
  }
  const match = table.match(method, path);
  if (match.kind === 'not-found') {
    send({ status: 404 });
    return;
  }
  if (match.kind === 'method-not-allowed') {
    send({ status: 405, headers: { allow: match.allow.join(',') } });
    return;
  }
  const { route, params } = match;
  const span = startRequestSpan(method, route.pattern, path, headers);

  let release: (() => void) | null = null;
  // The timeout covers reading the body and running the handler; debug routes have none.
  let timer: NodeJS.Timeout | null = null;
  const timeoutMs = route.debug ? 0 : requestDeadlineMs(route, config, headers.get('x-greptime-timeout'));
  if (timeoutMs > 0) {
    timer = setTimeout(() => {
      controller.abort(new DbError(1008, 'request timed out'));
      if (!done) countRejection('timeout');
      send({ status: route.protocol === 'metricsapi-write' ? 504 : 408 });
    }, timeoutMs);
  }

  try {
    const limit = route.debug ? DEBUG_BODY_LIMIT_BYTES : config.http.bodyLimitBytes;
    const declared = Number(headers.get('content-length') ?? '0');
    if (limit > 0 && declared > limit) throw bodyTooLarge();

    const query = new URLSearchParams(rawQuery);
    let user = null;
    if (deps.userProvider && !isAuthExempt(path)) {
      try {
        const creds = extractCredentials(
          path,
          { authorization: headers.get('authorization'), xGreptimeAuth: headers.get('x-greptime-auth') },
          query,
        );
        user = deps.userProvider.authenticate(creds.username, creds.password);
      } catch (err) {
        countRejection('auth');
        throw new HttpError(authErrorResponse(path, err));
      }
    }

    const hasBody = !(method === 'GET' || method === 'HEAD') || declared > 0 || headers.has('transfer-encoding');
    let body: Buffer = Buffer.alloc(0);
    if (hasBody) {
      body = await new Promise<Buffer>((resolve, reject) => {
        const parts: Buffer[] = [];
        // With a declared length, chunks are copied straight into one buffer of that size (one
        // copy, one allocation); past it, or without one, they are collected and joined.
        const sized = Number.isSafeInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
        let size = 0;
        let finished = false;
        bodyHandlers = {
          onChunk(chunk, last) {
            if (finished) return;
            const from = size;
            size += chunk.byteLength;
            if (limit > 0 && size > limit) {
              finished = true;
              reject(bodyTooLarge());
              return;
            }
            // Copy: uWS detaches the ArrayBuffer when this callback returns.
            if (sized !== null && size <= sized.length && parts.length === 0) sized.set(new Uint8Array(chunk), from);
            else {
              if (sized !== null && parts.length === 0) parts.push(sized.subarray(0, from));
              parts.push(Buffer.from(new Uint8Array(chunk)));
            }
            if (last) {
              finished = true;
              if (parts.length === 0 && sized !== null) resolve(sized.subarray(0, size));
              else resolve(Buffer.concat(parts, size));
            }
          },
        };
        controller.signal.addEventListener('abort', () => {
          if (!finished) {
            finished = true;
            reject(controller.signal.reason);
          }
        });
        res.onData((chunk, last) => bodyHandlers?.onChunk(chunk, last));
      });
    }
    // Admission counts the body as received: it bounds the work (parsing, shard queues) that
    // concurrent writes hold, which is many times the raw size.
    if (route.protocol && deps.writeLimiter) release = await deps.writeLimiter.acquire(body.length, controller.signal);
    if (route.query && deps.queryGate) release = deps.queryGate.admit(controller);
    if (route.decompress) body = decompress(body, headers.get('content-encoding'), limit);

    const ctx: RequestContext = {
      method,
      path,
      rawQuery,
      query,
      headers,
      body,
      params,
      listener,
      user,
      signal: controller.signal,
      startMs,
    };
    // Only a traced request pays for a closure and a context: the rest call the handler directly.
    const response = span === null ? await route.handler(ctx) : await withSpan(span, () => route.handler(ctx));
    send(response);
  } catch (err) {
    if (done) return;
    if (err instanceof HttpError) {
      send(err.response);
      return;
    }
    if (err instanceof HttpStatusError) {
      send(err.toResponse());
      return;
    }
    if (!(err instanceof DbError)) deps.log.error({ err, path }, 'request failed');
    const response = errorResponse(err, route.errorShape, Math.round(performance.now() - startMs));
    // Refusals that pass once load drops say when to come back (DbError.retryAfterSeconds).
    const retryAfter = err instanceof DbError ? err.retryAfterSeconds : undefined;
    if (retryAfter !== undefined) response.headers = { ...response.headers, 'retry-after': String(retryAfter) };
    send(response);
  } finally {
    if (timer) clearTimeout(timer);
    release?.();
    if (span !== null) endRequestSpan(span, answeredStatus);
  }
}

/** `x-greptime-timeout` overrides the configured timeout, but only when one is configured. */
/**
 * A request's deadline: `http.timeout` (or the client's `x-greptime-timeout` within it), and for
 * queries also `query.timeout`, whichever is sooner (0 = none). The Prometheus API answers its
 * own timeout error instead (it caps its `timeout` parameter with `query.timeout`).
 */
function requestDeadlineMs(route: Route, config: Config, header: string | undefined): number {
  const http = effectiveTimeoutMs(config.http.timeoutMs, header);
  const query = route.query && route.errorShape !== 'metricsapi' ? config.query.timeoutMs : 0;
  if (http > 0 && query > 0) return Math.min(http, query);
  return Math.max(http, query);
}

function effectiveTimeoutMs(configuredMs: number, header: string | undefined): number {
  if (configuredMs <= 0) return 0;
  if (header === undefined || header.trim() === '') return configuredMs;
  try {
    return parseDurationMs(header.trim());
  } catch {
    return configuredMs;
  }
}

/** Auth failures: 401 native bodies, except the event collector's own Splunk-style answers. */
function authErrorResponse(path: string, err: unknown): HttpResponse {
  if (path.startsWith('/v1/eventcollector/')) {
    const missing = err instanceof DbError && err.code === 7003;
    return {
      status: missing ? 401 : 403,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(missing ? { text: 'Token is required', code: 2 } : { text: 'Invalid token', code: 4 }),
    };
  }
  const response = errorResponse(err, 'native', 0);
  return { ...response, status: 401 };
}

function decompress(body: Buffer, encoding: string | undefined, limit: number): Buffer {
  if (!encoding || body.length === 0) return body;
  const maxOutputLength = limit > 0 ? limit : DECOMPRESSED_BYTES_MAX;
  const enc = encoding.trim().toLowerCase();
  try {
    switch (enc) {
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, { maxOutputLength });
      case 'deflate':
        // HTTP "deflate" is zlib-wrapped, but some clients send raw deflate; accept both.
        try {
          return zlib.inflateSync(body, { maxOutputLength });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw err;
          return zlib.inflateRawSync(body, { maxOutputLength });
        }
      case 'br':
        return zlib.brotliDecompressSync(body, { maxOutputLength });
      case 'zstd':
        return Buffer.from(zstdDecompress(body, maxOutputLength));
      case 'identity':
        return body;
      default:
        // As GreptimeDB: unknown encodings pass through untouched (remote write decodes snappy itself).
        return body;
    }
  } catch (err) {
    const tooLarge = err instanceof ZstdError && err.tooLarge;
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError || tooLarge) {
      throw bodyTooLarge();
    }
    throw new HttpStatusError(400, `Failed to decompress the request body (${enc}): ${(err as Error).message}`);
  }
}

export { checkPermission };
