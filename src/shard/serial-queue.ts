/**
 * Runs async tasks one at a time. The store has two: the write lock (WAL appends, memtable
 * freezes and WAL rotation) and the job queue (flush, compaction, drop: everything that edits the
 * manifest).
 *
 * Tasks run in the order queued, except that an `urgent` task goes ahead of the `deferrable`
 * ones still waiting at the end of the queue (never ahead of any other). The job queue marks
 * flushes urgent and compactions deferrable: a compaction only tidies segments (it picks its
 * inputs when it starts), while a flush is what frees the memtables writes are refused over.
 * With flushes in plain order, the overload test saw a flush wait 1.4 s behind compactions while
 * writes were refused at `memtable.reject_size`.
 */
interface Queued {
  start: () => Promise<void>;
  deferrable: boolean;
}

export type TaskPriority = 'normal' | 'urgent' | 'deferrable';

export class SerialQueue {
  private readonly waiting: Queued[] = [];
  private running = false;

  /** Queues `task`; its result (or error) comes back to this caller only. */
  run<T>(task: () => Promise<T> | T, priority: TaskPriority = 'normal'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Queued = {
        start: () => Promise.resolve().then(task).then(resolve, reject),
        deferrable: priority === 'deferrable',
      };
      let at = this.waiting.length;
      if (priority === 'urgent') while (at > 0 && (this.waiting[at - 1] as Queued).deferrable) at--;
      this.waiting.splice(at, 0, entry);
      this.next();
    });
  }

  private next(): void {
    if (this.running) return;
    const entry = this.waiting.shift();
    if (entry === undefined) return;
    this.running = true;
    void entry.start().then(() => {
      this.running = false;
      this.next();
    });
  }
}
