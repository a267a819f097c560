/**
 * Requests' parts reach the shard queues in the order the requests arrived, not the order their
 * decodes finished. Several requests of one sender in flight are decoded on different shards at
 * once, and the later one often finishes first; its rows then reach a series before the earlier
 * request's older rows, and the memtable pays for a series out of time order on every later append
 * and again when it is flushed (mem-series.ts). A ticket is taken when the request arrives; its
 * parts are queued once every earlier ticket of the same stream has been released (its parts
 * queued, or nothing left to queue), so a request waits at most for the decodes ahead of it.
 */
export class ArrivalOrder {
  private issued = 0;
  /** The oldest ticket not yet released. */
  private head = 0;
  private readonly released = new Set<number>();
  private readonly waiting = new Map<number, () => void>();

  take(): number {
    return this.issued++;
  }

  /** Resolves once every ticket before `ticket` is released (at once for a released ticket). */
  turn(ticket: number): Promise<void> | null {
    if (ticket <= this.head) return null;
    return new Promise((resolve) => this.waiting.set(ticket, resolve));
  }

  /** Releases `ticket` (again: no effect). */
  release(ticket: number): void {
    if (ticket < this.head || this.released.has(ticket)) return;
    this.released.add(ticket);
    while (this.released.delete(this.head)) this.head++;
    // The new head's turn, and that of any ticket passed while it waited (released by its owner).
    for (const [waiter, resolve] of this.waiting) {
      if (waiter > this.head) continue;
      this.waiting.delete(waiter);
      resolve();
    }
  }

  /** No ticket outstanding: the stream may be forgotten. */
  get idle(): boolean {
    return this.head === this.issued;
  }
}

/** One `ArrivalOrder` per stream, dropped once idle. */
export class ArrivalOrders {
  private readonly streams = new Map<string, ArrivalOrder>();

  take(stream: string): { order: ArrivalOrder; ticket: number } {
    let order = this.streams.get(stream);
    if (order === undefined) this.streams.set(stream, (order = new ArrivalOrder()));
    return { order, ticket: order.take() };
  }

  release(stream: string, order: ArrivalOrder, ticket: number): void {
    order.release(ticket);
    if (order.idle && this.streams.get(stream) === order) this.streams.delete(stream);
  }
}
