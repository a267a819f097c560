/**
 * Prometheus' `--query.max-samples` for the evaluator's step grids. Every grid costs a slot per
 * step for each series evaluated on it, and a subquery's grid is set by its range and step alone
 * (`x[100y:1ms]` is 3·10¹² steps), so grids and the series selected onto them are counted before
 * their arrays are allocated. Past the bound the query fails as Prometheus fails it: errorType
 * `execution` (HTTP 422) with Prometheus' message.
 */
import { PromqlError } from '../types.js';

/** Prometheus' default `--query.max-samples`. */
export const QUERY_SAMPLES_MAX = 50_000_000;

/** Prometheus' `ErrTooManySamples` text for the `query execution` environment. */
export const TOO_MANY_SAMPLES = 'query processing would load too many samples into memory in query execution';

/** Step samples one query (or one shard's part of it) has allocated so far. */
export class SampleBudget {
  private used = 0;

  constructor(readonly max: number = QUERY_SAMPLES_MAX) {}

  /** Counts `samples` more; throws before the caller allocates them when past the bound. */
  charge(samples: number): void {
    this.used += samples;
    if (this.used > this.max) throw new PromqlError('execution', TOO_MANY_SAMPLES);
  }
}
