/**
 * The switch every traced code path reads, on both sides of the thread boundary (each thread has
 * its own copy of this module). It imports only `@opentelemetry/api`: the SDK is loaded by
 * tracer-provider.ts when tracing is switched on, so a server that never traces never loads it.
 *
 * Overhead when off: `startSpan` is one null check that returns null, and call sites write
 * `span?.setAttribute(...)` / `span?.end()`, whose arguments are not even evaluated then. Nothing
 * allocates a closure or a context unless a span exists.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

let tracer: Tracer | null = null;

/** True while this thread has a tracer provider running. */
export function isTracing(): boolean {
  return tracer !== null;
}

/** Installs (or with null removes) this thread's tracer; only tracer-provider users call it. */
export function setActiveTracer(next: Tracer | null): void {
  tracer = next;
}

/**
 * The active context when it holds a span (a traced request or task), else null. Work done for an
 * untraced request (our own span exports) must not start traces of its own.
 */
export function activeTraceContext(): Context | null {
  if (tracer === null) return null;
  const active = context.active();
  return trace.getSpan(active) === undefined ? null : active;
}

export interface SpanOptions {
  /**
   * Parent context; default: the active one (AsyncLocalStorage while tracing is on). Without
   * `root`, a parent without a span means "not traced" and no span starts.
   */
  parent?: Context | undefined;
  /** Start a new trace: background jobs are not part of the request that happened to wake them. */
  root?: boolean;
  kind?: SpanKind;
  links?: Link[];
}

/** Options of a background job's span (flush, compaction): a root, allocated once. */
export const BACKGROUND_SPAN: SpanOptions = { root: true };

/**
 * Starts a span, or returns null when tracing is off or (unless `root`) no traced work is active.
 * Pass attributes only from a branch that already knows tracing is on: an object literal argument
 * allocates even when this returns null.
 */
export function startSpan(name: string, attributes?: Attributes, options?: SpanOptions): Span | null {
  if (tracer === null) return null;
  let parent: Context = ROOT_CONTEXT;
  if (!options?.root) {
    parent = options?.parent ?? context.active();
    if (trace.getSpan(parent) === undefined) return null;
  }
  return tracer.startSpan(
    name,
    {
      kind: options?.kind ?? SpanKind.INTERNAL,
      ...(attributes ? { attributes } : {}),
      ...(options?.links ? { links: options.links } : {}),
      ...(options?.root ? { root: true } : {}),
    },
    parent,
  );
}

/** Runs `fn` with `span` as the active span, so spans started inside (even after awaits) are its children. */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/**
 * Runs `fn` in a new span `name` (a child of the active one unless `options` say otherwise),
 * active while `fn` runs and ended (failed on a throw) when it settles; with tracing off, just
 * runs `fn`. `attributes` is only called when there is a span, so it allocates nothing otherwise.
 */
export async function inSpan<T>(
  name: string,
  fn: () => Promise<T> | T,
  options?: SpanOptions,
  attributes?: () => Attributes,
): Promise<T> {
  const span = startSpan(name, undefined, options);
  if (span === null) return fn();
  if (attributes) span.setAttributes(attributes());
  try {
    const value = await withSpan(span, fn);
    endSpan(span);
    return value;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
}

/** Ends a span, marking it failed when `err` is given. Null-safe so `finally` blocks stay one line. */
export function endSpan(span: Span | null, err?: unknown): void {
  if (span === null) return;
  if (err !== undefined) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}

/** The W3C `traceparent` of a span: how a span's identity crosses to a shard thread or another process. */
export function traceparentOf(span: Span): string {
  const sc = span.spanContext();
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A context whose parent is the span named by a `traceparent` (W3C version 00 layout), or null
 * when the text is malformed or names the all-zero ids the standard calls invalid.
 */
export function contextOfTraceparent(text: string): Context | null {
  const m = TRACEPARENT.exec(text.trim().toLowerCase());
  if (m === null || m[1] === 'ff') return null;
  const traceId = m[2] as string;
  const spanId = m[3] as string;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(m[4] as string, 16) & 0x01,
    isRemote: true,
  });
}
