/**
 * A fixed-bucket duration histogram kept by a shard thread and read by the router on a /metrics
 * scrape. Worker threads cannot share prom-client's registry, so a shard counts into plain arrays
 * and hands out a snapshot (structured-clone friendly) that the router exposes as a histogram.
 */

/** Upper bounds in seconds, from a sub-millisecond fsync to a minute-long compaction. */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

export interface HistogramSnapshot {
  /** Observations per bucket (not cumulative); one more entry than the bounds, for +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class DurationHistogram {
  private readonly counts = new Array<number>(DURATION_BUCKETS_SECONDS.length + 1).fill(0);
  private sum = 0;
  private count = 0;

  observe(seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS_SECONDS.length && seconds > (DURATION_BUCKETS_SECONDS[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += seconds;
    this.count++;
  }

  snapshot(): HistogramSnapshot {
    return { counts: [...this.counts], sum: this.sum, count: this.count };
  }
}

/** Two snapshots as one (a shard's own fdatasyncs and the router's for it). */
export function addSnapshots(a: HistogramSnapshot, b: HistogramSnapshot): HistogramSnapshot {
  return { counts: a.counts.map((n, i) => n + (b.counts[i] ?? 0)), sum: a.sum + b.sum, count: a.count + b.count };
}

/** Prometheus' cumulative `le` buckets of a snapshot, +Inf last. */
export function cumulativeBuckets(snapshot: HistogramSnapshot): { le: string; count: number }[] {
  const out: { le: string; count: number }[] = [];
  let running = 0;
  for (let i = 0; i < snapshot.counts.length; i++) {
    running += snapshot.counts[i] as number;
    const bound = DURATION_BUCKETS_SECONDS[i];
    out.push({ le: bound === undefined ? '+Inf' : String(bound), count: running });
  }
  return out;
}
