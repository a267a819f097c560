/**
 * Write tasks the router has sent one shard that have not started there, counted in shared
 * memory: the router counts a task up when it sends it, the shard down when it takes it. A shard
 * query's slice ends early while the count is above zero (src/shard/query-turn.ts), so a write
 * waits for a query well under a slice instead of a whole one.
 */
export class WritesWaiting {
  private readonly count: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.count = new Int32Array(buffer);
  }

  sent(): void {
    Atomics.add(this.count, 0, 1);
  }

  started(): void {
    Atomics.sub(this.count, 0, 1);
  }

  readonly any = (): boolean => Atomics.load(this.count, 0) > 0;
}
