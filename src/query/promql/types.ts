/**
 * The PromQL layer's shared vocabulary: label sets, matchers, the sample source the engine reads
 * from, and the values a query answers with. The engine, the function library, the storage
 * adapters and the HTTP routes meet only here.
 *
 * Times are Unix milliseconds as plain numbers (Prometheus' own resolution); the HTTP layer turns
 * them into float seconds.
 */

import type { FloatHistogram } from './histogram/float-histogram.js';

/** One label; a label set is sorted by name and has no empty values. */
export interface Label {
  readonly name: string;
  readonly value: string;
}
export type Labels = readonly Label[];

export type MatchOp = '=' | '!=' | '=~' | '!~';

/** A label matcher; regexes are fully anchored as in Prometheus. `__name__` selects the metric. */
export interface Matcher {
  readonly name: string;
  readonly op: MatchOp;
  readonly value: string;
}

/** Raw samples of one series in time order, as read from storage. */
export interface SeriesSamples {
  readonly labels: Labels;
  readonly t: Float64Array;
  readonly v: Float64Array;
  /**
   * Native histogram samples: where `h[i]` is set, sample i is that histogram and `v[i]` means
   * nothing. Absent for float-only series (every source but the in-memory one, for now).
   */
  readonly h?: readonly (FloatHistogram | undefined)[] | undefined;
  /**
   * With `h`, from storage: where `hInteger[i]` is true, histogram i was written as an integer
   * histogram. The engine computes with floats either way; remote read sends it back as written.
   */
  readonly hInteger?: readonly boolean[] | undefined;
}

/** What a selector asks storage for: series matching all matchers with samples in (start, end]. */
export interface SelectRequest {
  matchers: readonly Matcher[];
  /** Exclusive lower bound (the lookback window is left-open in Prometheus). */
  startMs: number;
  /** Inclusive upper bound. */
  endMs: number;
}

/**
 * Where the engine reads series from: an in-memory store in the conformance runner, the shards
 * behind the router in the server. Series come back with `__name__` among their labels.
 */
export interface SampleSource {
  select(request: SelectRequest, signal?: AbortSignal): Promise<SeriesSamples[]>;
  /** Label sets (no samples) of series matching any of the matcher sets, with a sample in [start, end]. */
  series(matcherSets: readonly (readonly Matcher[])[], startMs: number, endMs: number): Promise<Labels[]>;
  /** Label names / values over series matching any matcher set (all series when the list is empty). */
  labelNames(matcherSets: readonly (readonly Matcher[])[], startMs: number, endMs: number): Promise<string[]>;
  labelValues(
    name: string,
    matcherSets: readonly (readonly Matcher[])[],
    startMs: number,
    endMs: number,
  ): Promise<string[]>;
}

export interface InstantSample {
  labels: Labels;
  t: number;
  v: number;
  /** Set when the sample is a native histogram (then `v` means nothing). */
  h?: FloatHistogram | undefined;
}

export interface RangeSeries {
  labels: Labels;
  /** Float points. */
  t: number[];
  v: number[];
  /** Native histogram points, when the series has any (Prometheus' `histograms`). */
  histograms?: { t: number[]; h: FloatHistogram[] } | undefined;
}

/** A query's answer, as Prometheus' `resultType` names it. */
export type QueryResult =
  | { resultType: 'scalar'; t: number; v: number }
  | { resultType: 'string'; t: number; v: string }
  | { resultType: 'vector'; samples: InstantSample[] }
  | { resultType: 'matrix'; series: RangeSeries[] };

export interface QueryOptions {
  source: SampleSource;
  /** Lookback delta in ms; Prometheus' default is 5 minutes. */
  lookbackDeltaMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Evaluate series-local subtrees and partial aggregations in the shards when the source can
   * (src/query/promql/distribute); default true. False evaluates everything in the router.
   */
  pushdown?: boolean;
  /**
   * `[query]` bounds on points, samples and series (limits.ts); default PROMQL_LIMITS_DEFAULT. The
   * source applies its own copy to what it selects (ShardSampleSource takes the same object).
   */
  limits?: PromqlLimits | undefined;
}

/** Prometheus' API `errorType` values the engine can raise. */
export type PromqlErrorType = 'bad_data' | 'execution' | 'timeout' | 'canceled' | 'internal';

export class PromqlError extends Error {
  constructor(
    readonly errorType: PromqlErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'PromqlError';
  }
}

/** The staleness marker Prometheus writes when a series disappears (a NaN with this payload). */
export const STALE_NAN_BITS = 0x7ff0000000000002n;

const staleProbe = new Float64Array(1);
const staleProbeBits = new BigUint64Array(staleProbe.buffer);

export function isStaleNaN(v: number): boolean {
  if (!Number.isNaN(v)) return false;
  staleProbe[0] = v;
  return staleProbeBits[0] === STALE_NAN_BITS;
}

export function staleNaN(): number {
  staleProbeBits[0] = STALE_NAN_BITS;
  return staleProbe[0] as number;
}

/**
 * Warnings and infos a query raised, as Prometheus returns them next to the data (`warnings`,
 * `infos`): texts such as `PromQL warning: quantile value should be between 0 and 1, got 2 (1:20)`.
 */
export interface QueryAnnotations {
  warnings: string[];
  infos: string[];
}

/** The bounds a query runs under (src/query/promql/limits.ts enforces them). */
export interface PromqlLimits {
  /** Most steps of a range query's grid (`query.max_points_per_series`). */
  maxPointsPerSeries: number;
  /** Most samples one query (or one shard's part of it) may hold (`query.max_samples`). */
  maxSamples: number;
  /** Most series one selection may match over all shards (`query.max_series`); 0 = unbounded. */
  maxSeries: number;
}
