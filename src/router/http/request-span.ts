/**
 * The span of one HTTP request, named `<METHOD> <route pattern>` (e.g. `POST /v1/sql`) so spans of
 * one endpoint group together whatever the URL's parameters. A client's `traceparent` header makes
 * it a child of the client's span; otherwise it starts a trace.
 */
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { contextOfTraceparent, isTracing, startSpan } from '../../shared/tracing/active-tracer.js';
import { SELF_EXPORT_HEADER } from '../../shared/tracing/tracer-provider.js';

/** Null when tracing is off, and for our own span exports: tracing those would trace forever. */
export function startRequestSpan(
  method: string,
  route: string,
  path: string,
  headers: Map<string, string>,
): Span | null {
  if (!isTracing() || headers.has(SELF_EXPORT_HEADER)) return null;
  const traceparent = headers.get('traceparent');
  const parent = traceparent === undefined ? null : contextOfTraceparent(traceparent);
  return startSpan(
    `${method} ${route}`,
    { 'http.request.method': method, 'http.route': route, 'url.path': path },
    parent === null ? { root: true, kind: SpanKind.SERVER } : { parent, kind: SpanKind.SERVER },
  );
}

/** Ends the request span with the status answered (0 = none: the client went away first). */
export function endRequestSpan(span: Span, status: number): void {
  if (status > 0) span.setAttribute('http.response.status_code', status);
  // As the HTTP semantic conventions say: only 5xx (or no answer) is the server's error.
  if (status === 0 || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
