/**
 * Write tasks the router has sent one shard that have not started there, counted in shared
 * memory: the router counts a task up when it sends it, the shard down when it takes it. A shard
 * query's slice ends early while the count is above zero (src/shard/query-turn.ts), so a write
 * waits for a query well under a slice instead of a whole one.
 */
export class WritesWaiting {
  private readonly word: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.word = new Int32Array(buffer);
  }

  sent(): void {
    Atomics.add(this.word, 0, 1);
  }

  started(): void {
    Atomics.sub(this.word, 0, 1);
  }

  /**
   * Takes back a count for a task that never reached the shard's handler (the pool refused it, or
   * its thread died). Never below zero: had the task started after all, the shard counted it down.
   */
  withdrawn(): void {
    for (;;) {
      const n = Atomics.load(this.word, 0);
      if (n <= 0 || Atomics.compareExchange(this.word, 0, n, n - 1) === n) return;
    }
  }

  readonly any = (): boolean => Atomics.load(this.word, 0) > 0;

  count(): number {
    return Atomics.load(this.word, 0);
  }
}
