/**
 * A query's turns on the shard's only thread. Writes for the shard arrive as Piscina tasks on the
 * same thread, so a query that ran to completion would hold every write behind it (a long scan
 * cut ingest to a twentieth). Instead the query works in slices of `sliceMs`: at the end of a
 * slice it yields to the event loop, where queued write tasks (and other queries' slices) run,
 * then continues. Messages are handled before `setImmediate` callbacks, so a waiting write always
 * gets in at the next pause.
 *
 * The scan's snapshot survives the pauses: segments stay pinned and memtable sources read only
 * the rows that existed when the scan started (see scan.ts and memtable-source.ts).
 *
 * The router cancels a query (deadline, client gone) by raising a flag in shared memory, which
 * every slice checks. It also counts the writes it has sent the shard that have not started
 * (another shared word): a slice ends early when one waits, so a write waits well under a slice
 * behind a query; with two writers in flight, every millisecond a write waits is ingest lost.
 */
import { DbError, ErrorCode } from '../shared/errors.js';
import type { ScanChunk, ScanRequest, ScanSource } from '../shared/scan.js';
import { TimeSlice } from '../shared/time-slice.js';

export class QueryTurn {
  private readonly flag: Int32Array | undefined;
  private readonly slice: TimeSlice;

  constructor(
    readonly sliceMs: number,
    cancel: SharedArrayBuffer | undefined,
    private readonly onCancelled: () => void,
    /**
     * How a slice ends: the shard's pacer, which holds queries back while writes arrive, and
     * lets go early once `stopped()`.
     */
    private readonly pace: (workedMs: number, stopped: () => boolean) => Promise<void>,
    /** True while writes wait for this thread: the slice then ends early (see WritesWaiting). */
    readonly writesWaiting: () => boolean = () => false,
  ) {
    this.flag = cancel ? new Int32Array(cancel) : undefined;
    this.slice = new TimeSlice(sliceMs, this.poll, this.rest, writesWaiting);
  }

  /**
   * Ends a slice of `workedMs`: waits for the query's next turn, or less once it is cancelled.
   * A slice's clock runs from its start, so when the code that sliced it awaited other sliced
   * work (PromQL's evaluator awaiting its scan, which rests between its own slices) the time
   * includes those rests, seconds that were not this query's work: the pacer is charged only the
   * time since this query's last rest ended, or one query would owe many times what it used and
   * hold every query back.
   */
  readonly rest = async (workedMs: number): Promise<void> => {
    const charged = Math.min(workedMs, performance.now() - this.restedAtMs);
    try {
      await this.pace(charged, this.cancelled);
    } finally {
      this.restedAtMs = performance.now();
    }
  };

  /** When the query's last rest ended (or it started). */
  private restedAtMs = performance.now();

  /** Whether the router cancelled the query. */
  private readonly cancelled = (): boolean => this.flag !== undefined && Atomics.load(this.flag, 0) !== 0;

  /** Throws once the router cancelled the query. */
  readonly poll = (): void => {
    if (!this.cancelled()) return;
    this.onCancelled();
    throw new DbError(ErrorCode.Cancelled, 'Query was cancelled');
  };

  /** True once this slice of work is used up. */
  readonly pauseWanted = (): boolean => this.slice.used();

  /** Ends the slice if it is used up: lets the thread's other work run, then checks for cancel. */
  pause(): Promise<void> {
    return this.slice.next();
  }

  /**
   * The store as the query code sees it: chunks come asynchronously, with pauses between slices.
   * Leaving the loop early (break, throw) ends the store's scan, which unpins its segments.
   */
  sliced(store: { scan(request: ScanRequest): Iterable<ScanChunk> }): ScanSource {
    return {
      scan: (request) => this.scanSliced(store.scan({ ...request, pauseWanted: this.pauseWanted })),
    };
  }

  private async *scanSliced(chunks: Iterable<ScanChunk>): AsyncGenerator<ScanChunk, void, void> {
    await this.pause();
    for (const chunk of chunks) {
      if (chunk.rowCount > 0 || chunk.summaries !== undefined) yield chunk;
      await this.pause();
    }
  }
}
