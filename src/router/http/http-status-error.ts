import type { HttpResponse } from './context.js';

/**
 * A framework-level rejection (reference §1.5): answered as plain text with its status, not as a
 * GreptimeDB error body.
 */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra response headers, e.g. `retry-after` on 429 and 503. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toResponse(): HttpResponse {
    return {
      status: this.status,
      headers: { 'content-type': 'text/plain; charset=utf-8', ...this.headers },
      body: this.message,
    };
  }
}
