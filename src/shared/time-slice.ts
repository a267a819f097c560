/**
 * Cooperative time slicing for long computations on a thread that also serves others (the
 * router's event loop, a shard's thread). The computation calls `next()` between units of work;
 * once `sliceMs` of work has passed it yields to the event loop, so timers, sockets and queued
 * tasks run, and then goes on. `check` runs at every call and throws to stop the work (a
 * cancelled query).
 */
import { yieldToEventLoop } from './yield.js';

/** Longest stretch of query work on the router's event loop between two turns of it. */
export const ROUTER_SLICE_MS = 5;

/** Units of work (rows, pairs, values) between two looks at the clock by `tick`. */
export const SLICE_UNITS = 4096;

/** Work a slice does before `waiting` may end it early, so the work always moves on. */
const SLICE_MIN_MS = 0.5;

export class TimeSlice {
  private startMs = performance.now();
  private units = 0;

  /**
   * @param check throws to stop the work
   * @param rest how to pause after a slice of `workedMs`; a turn of the event loop by default
   * @param waiting true when more urgent work waits for the thread (a shard's writes): the slice
   *   then ends early, after SLICE_MIN_MS
   */
  constructor(
    private readonly sliceMs: number,
    private readonly check: () => void = () => {},
    private readonly rest: (workedMs: number) => Promise<void> = yieldToEventLoop,
    private readonly waiting: () => boolean = () => false,
  ) {}

  /** Whether a slice that has run `workedMs` should end. */
  private over(workedMs: number): boolean {
    return workedMs >= this.sliceMs || (workedMs >= SLICE_MIN_MS && this.waiting());
  }

  /** True once this slice of work is used up. */
  readonly used = (): boolean => this.over(performance.now() - this.startMs);

  /**
   * Counts `units` of work done; true once every SLICE_UNITS, when the caller should `await
   * next()`. Loops over rows call it per row (or per step of any size), so they neither await
   * nor read the clock on every row: `if (slice.tick()) await slice.next();`.
   */
  tick(units = 1): boolean {
    this.units += units;
    if (this.units < SLICE_UNITS) return false;
    this.units = 0;
    return true;
  }

  /** Throws if the work was stopped; yields to the event loop when the slice is used up. */
  async next(): Promise<void> {
    this.check();
    const workedMs = performance.now() - this.startMs;
    if (!this.over(workedMs)) return;
    await this.rest(workedMs);
    this.startMs = performance.now();
    this.check();
  }
}
