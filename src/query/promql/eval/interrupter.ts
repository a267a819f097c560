/**
 * Lets a long evaluation be stopped. Evaluation is plain JavaScript on the thread that runs it, so
 * a timer that aborts the query's signal (the API's `timeout`, the server's `http.timeout`) could
 * never fire while it runs: the evaluator calls `checkpoint()` between units of work, which throws
 * once the query is cancelled and, every `sliceMs` of work, yields to the event loop so that
 * timers, sockets and other requests get their turn.
 *
 * In a shard there is no AbortSignal: the router raises a shared flag instead (`cancel` in
 * src/shared/messages.ts), which `poll` reads.
 */
import { TimeSlice } from '../../../shared/time-slice.js';
import { PromqlError } from '../types.js';

/** Work between two yields to the event loop. */
export const EVALUATION_SLICE_MS = 5;

/** Throws the PromqlError a cancelled or timed-out signal stands for. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof PromqlError) throw reason;
  const name = reason instanceof Error ? reason.name : typeof reason === 'string' ? reason : '';
  if (name === 'TimeoutError' || name === 'timeout')
    throw new PromqlError('timeout', 'query timed out in expression evaluation');
  throw new PromqlError('canceled', 'query was canceled in expression evaluation');
}

export class Interrupter {
  private readonly slice: TimeSlice;

  /**
   * @param signal aborted when the query is cancelled or times out (router side)
   * @param poll throws when the query was cancelled by other means (a shard's cancel flag)
   * @param rest how to pause after a slice of `workedMs` (a shard paces queries under writes)
   * @param waiting true while more urgent work waits for the thread (a shard's writes)
   */
  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly poll: (() => void) | undefined = undefined,
    sliceMs = EVALUATION_SLICE_MS,
    rest?: (workedMs: number) => Promise<void>,
    waiting?: () => boolean,
  ) {
    this.slice = new TimeSlice(sliceMs, () => this.check(), rest, waiting);
  }

  /** Throws if the query was cancelled; never yields. */
  check(): void {
    throwIfCancelled(this.signal);
    this.poll?.();
  }

  /** Throws if cancelled, and yields to the event loop when this slice of work is used up. */
  checkpoint(): Promise<void> {
    return this.slice.next();
  }
}
