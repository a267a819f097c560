/**
 * The configured bounds of one PromQL query and the errors past them. The router builds one
 * `PromqlLimits` from `[query]` at start (`promqlLimitsOf`) and hands it to the engine
 * (`QueryOptions.limits`, `RangeRecordsRequest.limits`) and to its `ShardSampleSource`, which
 * carries the sample and series bounds to the shards inside their plans (`LocalSelect`,
 * `EvalPlan`): a shard has no config of its own for queries.
 *
 *   max_points_per_series  range grids (API, TQL, /v1/pql), before anything runs: 400 bad_data
 *   max_samples            step grids (SampleBudget) and raw samples per shard (SampleArena): 422
 *   max_series             series of one selection, in each shard and summed in the router: 422
 *
 * Each refusal is counted (`countRejection`) where it is detected, in whichever thread.
 */
import { defaultConfig, type QueryConfig } from '../../shared/config.js';
import { DbError, ErrorCode } from '../../shared/errors.js';
import { countRejection } from '../../shared/rejections.js';
import { PromqlError, type PromqlLimits } from './types.js';

export type { PromqlLimits };

/** The limits of `[query]`. */
export function promqlLimitsOf(query: QueryConfig): PromqlLimits {
  return { maxPointsPerSeries: query.maxPointsPerSeries, maxSamples: query.maxSamples, maxSeries: query.maxSeries };
}

/**
 * The configuration's defaults (Prometheus' own for points and samples), for callers without a
 * config: unit tests and tools. The server always passes its configured limits.
 */
export const PROMQL_LIMITS_DEFAULT: Readonly<PromqlLimits> = Object.freeze(promqlLimitsOf(defaultConfig().query));

/** Prometheus' `ErrTooManySamples` text for the `query execution` environment. */
export const TOO_MANY_SAMPLES = 'query processing would load too many samples into memory in query execution';

/**
 * An integer with a comma every three digits. Prometheus' message carries the literal "11,000";
 * other configured values are written the same way (50 → "50", 1234 → "1,234").
 */
export function withThousandsSeparators(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Prometheus' check on a range query's resolution, with the configured bound. Go divides the
 * durations as integers, so the steps past the first are counted whole.
 */
export function checkPointsPerSeries(startMs: number, endMs: number, stepMs: number, max: number): void {
  if (Math.floor((endMs - startMs) / stepMs) <= max) return;
  countRejection('max_points');
  throw new PromqlError(
    'bad_data',
    `exceeded maximum resolution of ${withThousandsSeparators(max)} points per timeseries. Try decreasing the query resolution (?step=XX)`,
  );
}

/**
 * The error past `query.max_samples` outside the evaluator (raw samples of a selection). A
 * DbError, unlike the evaluator's PromqlError, because it must cross the shard boundary; both
 * answer Prometheus' 422 `execution` with Prometheus' text (prom-api/errors.ts, sql/exec/tql.ts).
 */
export function tooManySamples(): DbError {
  countRejection('max_samples');
  return new DbError(ErrorCode.RuntimeResourcesExhausted, TOO_MANY_SAMPLES);
}

/** True when `count` series pass `max` (0 = unbounded). */
export function seriesOverLimit(count: number, max: number): boolean {
  return max > 0 && count > max;
}

/**
 * The error past `query.max_series`: 422 `execution` on the Prometheus API and 6000 in SQL, as
 * too many samples are. Prometheus has no such bound; the text names the key to raise.
 */
export function tooManySeries(max: number): DbError {
  countRejection('max_series');
  return new DbError(
    ErrorCode.RuntimeResourcesExhausted,
    `query selects more than ${max} series (query.max_series); narrow its selectors`,
  );
}
