/**
 * One request, stage by stage; each stage is its own module:
 *
 *   listener filter (listener-filter.ts) → CORS preflight, route lookup (respond.ts, route-table.ts)
 *   → limits: deadline and body limit (limits.ts) → auth (auth-stage.ts)
 *   → body, streamed and limited, then decompressed (body-reader.ts, decompress.ts)
 *   → admission: write bytes, query slots (admission.ts) → route handler
 *   → answer, or the error through the error catalogue (error-stage.ts, respond.ts)
 *
 * uWS rules that shaped it: a handler must answer or register onAborted before returning; `req`
 * dies at the first await (so everything is copied off it first); after an abort or an answer,
 * touching `res` throws (ResponseWriter guards it).
 */
import type { HttpRequest, HttpResponse as UwsResponse } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { Config } from '../../shared/config.js';
import { DbError, ErrorCode } from '../../shared/errors.js';
import { countRejection } from '../../shared/rejections.js';
import { withSpan } from '../../shared/tracing/active-tracer.js';
import type { UserProvider } from '../auth/user-provider.js';
import { ClientError } from '../errors/catalogue.js';
import { errorResponse } from '../errors/error-response.js';
import { type Admission, admit } from './admission.js';
import { authenticate } from './auth-stage.js';
import { hasBody, readBody } from './body-reader.js';
import type { Listener, RequestContext } from './context.js';
import { decompress } from './decompress.js';
import { answerError, type Stage } from './error-stage.js';
import { checkDeclaredLength, limitsOf } from './limits.js';
import { listenerRefusal } from './listener-filter.js';
import { endRequestSpan, startRequestSpan } from './request-span.js';
import { corsPreflight, ResponseWriter } from './respond.js';
import type { RouteTable } from './route-table.js';

/** How long a request past its deadline may go on sending its body before it is answered and cut. */
const TIMEOUT_LINGER_MS = 1000;

export interface LifecycleDeps extends Admission {
  config: Config;
  log: Logger;
  userProvider: UserProvider | null;
  /** Called once per answered request, for metrics. */
  onResponse?: ((method: string, status: number, durationMs: number) => void) | undefined;
}

export async function handleRequest(
  res: UwsResponse,
  req: HttpRequest,
  listener: Listener,
  table: RouteTable,
  deps: LifecycleDeps,
): Promise<void> {
  const startMs = performance.now();
  const controller = new AbortController();
  const method = req.getMethod().toUpperCase();
  const { config } = deps;
  const writer = new ResponseWriter(res, method, config.http.enableCors);
  res.onAborted(() => {
    writer.aborted();
    controller.abort(new DbError(ErrorCode.Cancelled, 'client went away'));
  });
  const send: ResponseWriter['send'] = (response, close) => {
    const sent = writer.send(response, close);
    if (sent) deps.onResponse?.(method, response.status, performance.now() - startMs);
    return sent;
  };

  // Copy everything from `req` now: it is invalid after the first await.
  const path = req.getUrl();
  const rawQuery = req.getQuery() ?? '';
  const headers = new Map<string, string>();
  req.forEach((k, v) => {
    headers.set(k, v);
  });

  const refusal = listenerRefusal(listener, path);
  if (refusal !== null) {
    send(errorResponse(refusal, 'text', 0));
    return;
  }
  const preflight = corsPreflight(method, config.http.enableCors);
  if (preflight !== null) {
    send(preflight);
    return;
  }
  const match = table.match(method, path);
  if (match.kind !== 'found') {
    const err =
      match.kind === 'not-found'
        ? new ClientError('RouteNotFound', '')
        : new ClientError('MethodNotAllowed', '', { headers: { allow: match.allow.join(',') } });
    send(errorResponse(err, 'text', 0));
    return;
  }
  const { route, params } = match;
  const span = startRequestSpan(method, route.pattern, path, headers);
  const limits = limitsOf(route, config, headers.get('x-greptime-timeout'));

  // The deadline covers reading the body and running the handler.
  const declaredLength = Number(headers.get('content-length') ?? '0');
  const expectsBody = hasBody(method, declaredLength, headers);
  let bodyEnded = !expectsBody;
  let onBodyEnd: (() => void) | null = null;
  let timedOut = false;
  let timer: NodeJS.Timeout | null = null;
  if (limits.deadlineMs > 0) {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DbError(ErrorCode.DeadlineExceeded, 'request timed out'));
      if (!writer.finished) countRejection('timeout');
      const answer = () => send(errorResponse(new ClientError('RequestTimeout', ''), route.errors, 0), !bodyEnded);
      if (bodyEnded) {
        answer();
        return;
      }
      // A client still sending its body can read the 408 only once it has sent it: wait for the
      // body's end a moment, then answer and close (the rest of a trickled body — slowloris —
      // must not stay on the connection, nor be parsed as the next request).
      const linger = setTimeout(answer, TIMEOUT_LINGER_MS);
      onBodyEnd = () => {
        clearTimeout(linger);
        answer();
      };
    }, limits.deadlineMs);
  }
  const bodyEnd = (): void => {
    bodyEnded = true;
    onBodyEnd?.();
  };

  let stage: Stage = 'before-handler';
  let release: (() => void) | null = null;
  try {
    const declared = declaredLength;
    checkDeclaredLength(declared, limits.bodyLimitBytes);
    const query = new URLSearchParams(rawQuery);
    const user = authenticate(deps.userProvider, route, path, headers, query);
    let body = expectsBody
      ? await readBody(res, declared, limits.bodyLimitBytes, controller.signal, bodyEnd)
      : Buffer.alloc(0);
    release = await admit(deps, route, body.length, controller);
    if (route.decompress) body = decompress(body, headers.get('content-encoding'), limits.bodyLimitBytes);

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
    stage = 'handler';
    // Only a traced request pays for a closure and a context: the rest call the handler directly.
    const response = span === null ? await route.handler(ctx) : await withSpan(span, () => route.handler(ctx));
    send(response);
  } catch (err) {
    // Past the deadline the timer answers (after the body, see above).
    if (!writer.finished && !timedOut) send(answerError(err, { route, stage, path, headers, startMs }, deps.log));
  } finally {
    if (timer) clearTimeout(timer);
    release?.();
    if (span !== null) endRequestSpan(span, writer.status);
  }
}
