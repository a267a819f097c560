/**
 * Keeps queries to a share of a shard's thread while writes are arriving. Slicing alone lets a
 * waiting write in at the next pause, but a query that always has more work still takes every
 * moment the writes leave, and on a small machine that is CPU the router needs to parse the next
 * writes: one query in flight cut ingest by more than half. While writes have arrived within the
 * last `busyWindowMs`, the queries of this shard together work at most `share` of the time: after
 * a slice of w ms the next slice (of any query) starts no earlier than w × (1 − share) / share
 * later, and the thread sleeps meanwhile. With no writes arriving, queries run flat out.
 */
import { yieldToEventLoop } from '../shared/yield.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Longest sleep between looks at whether the query was cancelled or the writes stopped: queries
 * held back behind others' long slices can owe seconds, and a cancelled one must let go of its
 * snapshot (and the next query's turn) soon after the router gave up on it.
 */
const WAKE_EVERY_MS = 50;

export class QueryPacer {
  private lastWriteMs = Number.NEGATIVE_INFINITY;
  private nextSliceAtMs = 0;

  /** `share` in (0, 1]; 1 = never hold queries back. */
  constructor(
    private readonly share: number,
    private readonly busyWindowMs = 250,
  ) {}

  /** Called for every write task. */
  noteWrite(): void {
    this.lastWriteMs = performance.now();
  }

  /**
   * Waits between a query's slices: a turn of the event loop, or longer while writes arrive; ends
   * early once `stopped()` (the query was cancelled: its next slice throws).
   */
  readonly rest = async (workedMs: number, stopped: () => boolean = () => false): Promise<void> => {
    const now = performance.now();
    if (this.share >= 1 || now - this.lastWriteMs > this.busyWindowMs) {
      await yieldToEventLoop();
      return;
    }
    this.nextSliceAtMs = Math.max(this.nextSliceAtMs, now) + (workedMs * (1 - this.share)) / this.share;
    // Other queries' slices push the shared clock on; wait until it is this query's turn.
    for (let wait = this.nextSliceAtMs - now; wait > 0; wait = this.nextSliceAtMs - performance.now()) {
      await sleep(Math.min(WAKE_EVERY_MS, Math.ceil(wait)));
      if (stopped() || performance.now() - this.lastWriteMs > this.busyWindowMs) return;
    }
  };
}
