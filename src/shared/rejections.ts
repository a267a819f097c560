/**
 * Requests (or their parts) refused because a limit was crossed, counted by reason for
 * `shoaldb_requests_rejected_total`. Each thread counts its own refusals where the limit is
 * enforced; a shard reports its counts in its stats and the router adds them up at scrape time.
 */

export const REJECTION_REASONS = [
  /** `http.body_limit` (413). */
  'body_limit',
  /** `http.timeout` or `x-greptime-timeout` (408, 504 on remote write). */
  'timeout',
  /** Credentials missing or wrong (401/403). */
  'auth',
  /** `max_in_flight_write_bytes` under the `fail` policy or past the wait (429). */
  'write_bytes',
  /** `max_concurrent_queries` (503). */
  'query_concurrency',
  /** `ingest.shard_queue_size`: a shard's write queue is full (429). */
  'shard_queue',
  /** `memtable.reject_size`: a shard's memtables wait for a flush (503). */
  'memtable',
  /** `ingest.line_max_bytes`: one line-protocol line too long (400). */
  'line_length',
  /** `query.max_points_per_series`: too many steps in a range query (400). */
  'max_points',
  /** `query.max_samples`: too many samples in memory (422). */
  'max_samples',
  /** `query.max_series`: a selector matched too many series (422). */
  'max_series',
  /** `query.memory_limit`, `query.range_max_rows` and string-size bounds (500, code 6000). */
  'query_memory',
  /** A request that arrived while the server was shutting down (503). */
  'shutting_down',
  /** The data directory's file system is full: a shard's write (507, code 5002). */
  'disk_full',
] as const;

export type RejectionReason = (typeof REJECTION_REASONS)[number];

const counts = new Map<RejectionReason, number>();

export function countRejection(reason: RejectionReason): void {
  counts.set(reason, (counts.get(reason) ?? 0) + 1);
}

/** This thread's counts so far (reasons never hit are left out). */
export function rejectionCounts(): Partial<Record<RejectionReason, number>> {
  return Object.fromEntries(counts) as Partial<Record<RejectionReason, number>>;
}
