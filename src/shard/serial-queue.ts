/**
 * Runs async tasks one at a time, in the order they were queued. The store has two: the write
 * lock (WAL appends, memtable freezes and WAL rotation) and the job queue (flush, compaction,
 * drop: everything that edits the manifest).
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  /** Queues `task`; its result (or error) comes back to this caller only. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
