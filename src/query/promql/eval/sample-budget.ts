/**
 * Prometheus' `--query.max-samples` (`query.max_samples`) for the evaluator's step grids. Every
 * grid costs a slot per step for each series evaluated on it, and a subquery's grid is set by its
 * range and step alone (`x[100y:1ms]` is 3·10¹² steps), so grids and the series selected onto
 * them are counted before their arrays are allocated. Past the bound the query fails as
 * Prometheus fails it: errorType `execution` (HTTP 422) with Prometheus' message.
 */
import { countRejection } from '../../../shared/rejections.js';
import { TOO_MANY_SAMPLES } from '../limits.js';
import { PromqlError } from '../types.js';

/** Step samples one query (or one shard's part of it) has allocated so far. */
export class SampleBudget {
  private used = 0;

  /** `max`: the configured `query.max_samples` (router), or the one its plan carries (shard). */
  constructor(readonly max: number) {}

  /** Counts `samples` more; throws before the caller allocates them when past the bound. */
  charge(samples: number): void {
    this.used += samples;
    if (this.used <= this.max) return;
    countRejection('max_samples');
    throw new PromqlError('execution', TOO_MANY_SAMPLES);
  }
}
