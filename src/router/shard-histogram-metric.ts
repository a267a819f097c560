/**
 * A histogram on /metrics whose observations were made in the shard threads. prom-client's own
 * Histogram can only be fed one observation at a time in this thread, so this metric renders the
 * shards' bucket snapshots (src/shared/duration-histogram.ts) itself, labelled by shard. The
 * registry accepts any object with prom-client's `get()` contract.
 */
import type client from 'prom-client';
import { cumulativeBuckets, type HistogramSnapshot } from '../shared/duration-histogram.js';

interface MetricValue {
  value: number;
  labels: Record<string, string>;
  metricName: string;
}

export class ShardHistogramMetric {
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly snapshots: () => Promise<{ shardId: number; snapshot: HistogramSnapshot }[]>,
  ) {}

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }> {
    const values: MetricValue[] = [];
    for (const { shardId, snapshot } of await this.snapshots()) {
      const shard = String(shardId);
      for (const { le, count } of cumulativeBuckets(snapshot)) {
        values.push({ value: count, labels: { le, shard }, metricName: `${this.name}_bucket` });
      }
      values.push({ value: snapshot.sum, labels: { shard }, metricName: `${this.name}_sum` });
      values.push({ value: snapshot.count, labels: { shard }, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Nothing to reset: the shards own the counts. */
  reset(): void {}

  register(registry: client.Registry): void {
    // prom-client's types list its own metric classes only; its registry calls `get()` alone.
    registry.registerMetric(this as unknown as client.Metric);
  }
}
