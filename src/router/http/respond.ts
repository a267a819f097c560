/**
 * The last stage of a request (lifecycle.ts): writing the answer, once, to uWS. After an abort or
 * a first answer `res` must not be touched, so the writer remembers both. CORS (`http.enable_cors`)
 * is applied here to every answer, and its preflight answered before routing.
 */

import type { HttpResponse as UwsResponse } from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';
import { BodyChunks, type HttpResponse } from './context.js';

/** The part of uWS' response the writer uses (a test passes its own). */
export type ResponseSink = Pick<
  UwsResponse,
  'cork' | 'writeStatus' | 'writeHeader' | 'end' | 'tryEnd' | 'getWriteOffset' | 'onWritable'
>;

/** Body bytes a streamed answer writes per turn of the event loop (`ResponseWriter.stream`). */
const STREAM_TURN_BYTES = 1 << 20;

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
    this.gone = true;
  }

  /** Set by `aborted`: a body still streaming stops. */
  private gone = false;

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
      const body = response.body instanceof BodyChunks && close ? response.body.joined() : response.body;
      if (close) res.end(this.method === 'HEAD' ? '' : ((body as string | Uint8Array | undefined) ?? ''), true);
      else if (this.method === 'HEAD' || body === undefined) res.end();
      else if (body instanceof BodyChunks) this.stream(body);
      else res.end(body);
    });
    return true;
  }

  /**
   * Writes the chunks as the socket takes them (uWS `tryEnd` with the total size, then
   * `onWritable`): no chunk is copied into one body, nor buffered whole by uWS. At most
   * STREAM_TURN_BYTES go out per turn of the event loop: a loopback socket takes megabytes at
   * once, and writing 14 MB in one go held the loop for ~45 ms.
   */
  private stream(body: BodyChunks): void {
    const { res } = this;
    if (body.size === 0) {
      res.end();
      return;
    }
    let index = 0;
    // Body offset at which chunk `index` starts.
    let chunkStart = res.getWriteOffset();
    const pump = (): 'done' | 'blocked' | 'paused' => {
      let budget = STREAM_TURN_BYTES;
      while (index < body.chunks.length) {
        if (budget <= 0) return 'paused';
        const chunk = body.chunks[index] as Buffer;
        const written = res.getWriteOffset() - chunkStart;
        const [ok, done] = res.tryEnd(written === 0 ? chunk : chunk.subarray(written), body.size);
        if (done) return 'done';
        if (!ok) return 'blocked';
        budget -= chunk.length - written;
        chunkStart += chunk.length;
        index++;
      }
      return 'done';
    };
    const turn = (): boolean => {
      if (this.gone) return true;
      let state = 'done' as ReturnType<typeof pump>;
      res.cork(() => {
        state = pump();
      });
      if (state === 'paused') setImmediate(turn);
      return state !== 'blocked';
    };
    res.onWritable(turn);
    const state = pump();
    if (state === 'paused') setImmediate(turn);
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
