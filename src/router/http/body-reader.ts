/**
 * Stage 4 of a request (lifecycle.ts): the body, streamed from uWS under the body limit. uWS
 * detaches each chunk's ArrayBuffer when its callback returns, so every chunk is copied; `onData`
 * is registered synchronously, before the lifecycle's first await, as uWS requires.
 */
import type { HttpResponse as UwsResponse } from 'uWebSockets.js';
import { bodyTooLarge } from './limits.js';

/** Whether a request has a body to read. */
export function hasBody(method: string, declared: number, headers: ReadonlyMap<string, string>): boolean {
  return !(method === 'GET' || method === 'HEAD') || declared > 0 || headers.has('transfer-encoding');
}

/** The part of uWS' response the reader uses (a test passes its own). */
export type BodySource = Pick<UwsResponse, 'onData'>;

/**
 * Reads the whole body; rejects past `limitBytes` (0 = none) and with the signal's reason when it
 * aborts first.
 */
export function readBody(
  res: BodySource,
  declared: number,
  limitBytes: number,
  signal: AbortSignal,
  /** Called when the client has sent the whole body, even after a refusal or an abort. */
  onEnd?: () => void,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    // With a declared length, chunks are copied straight into one buffer of that size (one
    // copy, one allocation); past it, or without one, they are collected and joined.
    const sized = Number.isSafeInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
    let size = 0;
    let finished = false;
    signal.addEventListener('abort', () => {
      if (!finished) {
        finished = true;
        reject(signal.reason);
      }
    });
    res.onData((chunk, last) => {
      if (last) onEnd?.();
      if (finished) return;
      const from = size;
      size += chunk.byteLength;
      if (limitBytes > 0 && size > limitBytes) {
        finished = true;
        reject(bodyTooLarge());
        return;
      }
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
    });
  });
}
