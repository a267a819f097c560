/**
 * Bounds the queries running at once (`max_concurrent_queries`). A query holds memory in the
 * router and a share of every shard's thread until it ends; past the bound a new one is refused
 * at once with 503 and `Retry-After`, rather than queued: a queue in front of slow queries only
 * grows, and the client (a dashboard, an alert rule) is better placed to back off and retry.
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import { countRejection } from '../../shared/rejections.js';

/** The refusal; the server adds `Retry-After` to whatever error body the route uses. */
export class TooManyQueries extends DbError {
  constructor(max: number) {
    super(
      ErrorCode.RegionBusy,
      `Too many concurrent queries: ${max} are running (max_concurrent_queries); retry later`,
      {
        retryAfterSeconds: 1,
      },
    );
  }
}

export class QueryGate {
  /** The running queries, by the controller that cancels each (in the router and the shards). */
  private readonly running = new Set<AbortController>();

  /** `max` 0 = unbounded. */
  constructor(private readonly max: number) {}

  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Admits one query, cancelled through `controller`, and returns its release (call it exactly
   * once); throws TooManyQueries when `max` run already.
   */
  admit(controller: AbortController): () => void {
    if (this.max > 0 && this.running.size >= this.max) {
      countRejection('query_concurrency');
      throw new TooManyQueries(this.max);
    }
    this.running.add(controller);
    return () => {
      this.running.delete(controller);
    };
  }

  /** Cancels every running query (shutdown): each answers 1005 and its shards stop at once. */
  cancelAll(reason: string): void {
    for (const controller of this.running) controller.abort(new DbError(ErrorCode.Cancelled, reason));
  }
}
