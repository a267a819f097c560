/**
 * A response body written row by row on the router's event loop. Text accumulates into a string
 * that becomes a UTF-8 chunk every ROWS_PER_CHUNK rows, and the query's slice is checked then, so
 * a result of a million rows is encoded in turns of the loop. Chunks rather than one string:
 * joining and converting tens of megabytes at the end would hold the loop for a hundred
 * milliseconds and more. With a slice the chunks stay chunks, streamed to the socket as it drains
 * (BodyChunks): one `Buffer.concat` of a 14 MB answer held the loop for ~50 ms on a slow machine,
 * and uWS copying it again as much.
 */
import type { TimeSlice } from '../../shared/time-slice.js';
import { BodyChunks } from '../http/context.js';

/** Rows encoded into one chunk, between two checks of the slice. */
const ROWS_PER_CHUNK = 1024;

export class ChunkedBody {
  private readonly chunks: Buffer[] = [];
  private text = '';

  /** `slice` null: encode in one go (small answers, callers without a query context). */
  constructor(private readonly slice: TimeSlice | null) {}

  write(text: string): void {
    this.text += text;
  }

  /**
   * After row `r` of a loop: ends a chunk every ROWS_PER_CHUNK rows and then gives a promise for
   * the loop's turn, else nothing. Callers await only a promise: an `await` per row was a
   * microtask per row of every answer.
   */
  rowDone(r: number): Promise<void> | undefined {
    if (r % ROWS_PER_CHUNK !== ROWS_PER_CHUNK - 1) return undefined;
    this.cut();
    return this.slice === null ? undefined : this.slice.next();
  }

  /** The whole body: one buffer, or with a slice and more than one chunk, the chunks. */
  finish(): Buffer | BodyChunks {
    this.cut();
    if (this.chunks.length <= 1) return this.chunks[0] ?? Buffer.alloc(0);
    if (this.slice === null) return Buffer.concat(this.chunks);
    let size = 0;
    for (const chunk of this.chunks) size += chunk.length;
    return new BodyChunks(this.chunks, size);
  }

  private cut(): void {
    if (this.text === '') return;
    this.chunks.push(Buffer.from(this.text));
    this.text = '';
  }
}
