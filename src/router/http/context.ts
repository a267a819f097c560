/**
 * What a route handler sees of a request and what it gives back. uWS's `HttpRequest` dies at the
 * first await, so the server copies everything a handler may need into `RequestContext` first.
 */
import type { AuthedUser } from '../auth/user-provider.js';
import type { RouteErrorFamily } from '../errors/catalogue.js';

export type Listener = 'main' | 'api';

export interface RequestContext {
  method: string;
  path: string;
  /** Raw query string without `?`. */
  rawQuery: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Map<string, string>;
  /** The request body, already decompressed when the route allows it. */
  body: Buffer;
  /** Path parameters captured by the route pattern (`:name`), percent-decoded. */
  params: Record<string, string>;
  listener: Listener;
  /** Set when a user provider is configured and the path needs authentication. */
  user: AuthedUser | null;
  /** Fires when the request times out or the client goes away. */
  signal: AbortSignal;
  startMs: number;
}

/**
 * A long body kept as the chunks it was encoded in (respond/chunked-body.ts). The writer streams
 * them to the socket as it drains (respond.ts): joining a 14 MB answer into one buffer, and uWS
 * copying it again into its own, each held the event loop for ~50 ms on a slow machine.
 */
export class BodyChunks {
  constructor(
    readonly chunks: readonly Buffer[],
    readonly size: number,
  ) {}

  /** The chunks as one buffer, for the rare answer that cannot be streamed. */
  joined(): Buffer {
    return Buffer.concat(this.chunks as Buffer[], this.size);
  }
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string> | undefined;
  body?: string | Uint8Array | BodyChunks | undefined;
}

export type Handler = (ctx: RequestContext) => Promise<HttpResponse>;

export interface Route {
  methods: string[];
  /** `/v1/sql`, or with parameters `/v1/pipelines/:name`; a trailing `*` matches any rest. */
  pattern: string;
  handler: Handler;
  /** How the route answers errors: its family in the error catalogue (errors/catalogue.ts). */
  errors: RouteErrorFamily;
  /** Decode `Content-Encoding: gzip|deflate|br|zstd` bodies (ingest routes). */
  decompress?: boolean;
  /** Debug routes bypass the timeout and the configured body limit (they have their own cap). */
  debug?: boolean;
  /** The protocol name used for ingest metrics and the 504-vs-408 timeout choice. */
  protocol?: string;
  /** A query route: admitted by `max_concurrent_queries`. */
  query?: boolean;
}

export function text(status: number, body: string, contentType = 'text/plain; charset=utf-8'): HttpResponse {
  return { status, headers: { 'content-type': contentType }, body };
}

export function json(status: number, value: unknown, extraHeaders?: Record<string, string>): HttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...(extraHeaders ?? {}) },
    body: JSON.stringify(value),
  };
}

export function empty(status: number): HttpResponse {
  return { status };
}
