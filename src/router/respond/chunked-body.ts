/**
 * A response body written row by row on the router's event loop. Text accumulates into a string
 * that becomes a UTF-8 chunk every ROWS_PER_CHUNK rows, and the query's slice is checked then, so
 * a result of a million rows is encoded in turns of the loop. Chunks rather than one string:
 * joining and converting tens of megabytes at the end would hold the loop for a hundred
 * milliseconds and more, where many small buffers are copied once, by `finish`.
 */
import type { TimeSlice } from '../../shared/time-slice.js';

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

  /** The whole body. */
  finish(): Buffer {
    this.cut();
    return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
  }

  private cut(): void {
    if (this.text === '') return;
    this.chunks.push(Buffer.from(this.text));
    this.text = '';
  }
}
