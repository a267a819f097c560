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
 * every slice checks.
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
    /** How a slice ends: the shard's pacer, which holds queries back while writes arrive. */
    readonly rest: (workedMs: number) => Promise<void>,
  ) {
    this.flag = cancel ? new Int32Array(cancel) : undefined;
    this.slice = new TimeSlice(sliceMs, this.poll, rest);
  }

  /** Throws once the router cancelled the query. */
  readonly poll = (): void => {
    if (this.flag === undefined || Atomics.load(this.flag, 0) === 0) return;
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
