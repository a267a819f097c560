/**
 * The last stage of a request (lifecycle.ts): writing the answer, once, to uWS. After an abort or
 * a first answer `res` must not be touched, so the writer remembers both. CORS (`http.enable_cors`)
 * is applied here to every answer, and its preflight answered before routing.
 */

import type { HttpResponse as UwsResponse } from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from './context.js';

/** The part of uWS' response the writer uses (a test passes its own). */
export type ResponseSink = Pick<UwsResponse, 'cork' | 'writeStatus' | 'writeHeader' | 'end'>;

export class ResponseWriter {
  private done = false;
  /** The status answered; 0 until then (and forever when the client went away first). */
  status = 0;

  constructor(
    private readonly res: ResponseSink,
    private readonly method: string,
    private readonly cors: boolean,
  ) {}

  /** True once answered or aborted: nothing may be written any more. */
  get finished(): boolean {
    return this.done;
  }

  /** The client went away: never touch `res` again. */
  aborted(): void {
    this.done = true;
  }

  /**
   * Writes the answer; false when one was already written or the client is gone. `close` ends
   * the connection after it: an answer given before the body was read (a timeout) would leave
   * the rest of the body to be parsed as the next request, and a slow client holding the socket.
   */
  send(response: HttpResponse, close = false): boolean {
    if (this.done) return false;
    this.done = true;
    this.status = response.status;
    const { res } = this;
    res.cork(() => {
      res.writeStatus(`${response.status} ${STATUS_CODES[response.status] ?? ''}`);
      if (this.cors) res.writeHeader('access-control-allow-origin', '*');
      for (const [k, v] of Object.entries(response.headers ?? {})) res.writeHeader(k, v);
      if (close) res.end(this.method === 'HEAD' ? '' : (response.body ?? ''), true);
      else if (this.method === 'HEAD' || response.body === undefined) res.end();
      else res.end(response.body);
    });
    return true;
  }
}

/** The CORS preflight answer, or null when CORS is off or this is not a preflight. */
export function corsPreflight(method: string, cors: boolean): HttpResponse | null {
  if (method !== 'OPTIONS' || !cors) return null;
  return {
    status: 200,
    headers: {
      'access-control-allow-methods': 'GET,POST,PUT,DELETE,HEAD',
      'access-control-allow-headers': '*',
    },
  };
}
