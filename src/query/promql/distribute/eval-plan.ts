/**
 * What the router sends a shard to evaluate a series-local subtree, and what comes back. Both
 * survive structured clone; answers keep their numbers in typed arrays whose buffers are
 * transferred, not copied (`transferOf`).
 *
 * Tuple layout of every per-step array below: row-major, one row per series (or group) of
 * `steps` slots, i.e. slot `row * steps + step`.
 */
import type { TableSelect } from '../store/plan.js';
import type { Labels, Matcher, PromqlErrorType } from '../types.js';
import type { PushdownKind } from './series-local.js';
import type { WireExpr } from './wire-expr.js';

/** The grid the subtree is evaluated on (the query's steps, or a subquery's). */
export interface EvalGrid {
  startMs: number;
  endMs: number;
  intervalMs: number;
}

/** The query-wide settings the evaluator reads (`@ start()`, `step()`, lookback, ...). */
export interface EvalQuerySettings {
  startMs: number;
  endMs: number;
  stepMs: number;
  lookbackMs: number;
  defaultSubqueryStepMs: number;
}

/** What the router's pushdown asks its shard evaluation target for. */
export interface EvalRequest {
  expr: WireExpr;
  kind: PushdownKind;
  /** The query text, for annotation positions ('' when evaluated from a tree). */
  text: string;
  grid: EvalGrid;
  query: EvalQuerySettings;
  /** Matchers of every selector of the subtree; the source resolves their tables. */
  selectorMatchers: Matcher[][];
}

/** One selector's tables, resolved in the router against the catalog. */
export interface SelectorTables {
  matchers: Matcher[];
  tables: TableSelect[];
}

/** The shard plan of an evaluation (`PromqlShardPlan` op 'eval'). */
export interface EvalPlan extends Omit<EvalRequest, 'selectorMatchers'> {
  selectors: SelectorTables[];
  /**
   * `query.max_samples`: most raw samples one shard may read for one selector, and most step
   * samples its evaluator may hold.
   */
  samplesMax: number;
  /** `query.max_series`: most series one selection may read in one shard (0 = unbounded). */
  seriesMax: number;
}

/**
 * Series with one value per step; `present` is 1 where a float exists, HISTOGRAM (2) where a
 * native histogram does: the histograms are the records of `histograms` (histogram-pack.ts), one
 * per such slot in slot order; absent when there are none.
 */
export interface PackedSeries {
  labels: Labels[];
  dropName: Uint8Array;
  values: Float64Array;
  present: Uint8Array;
  histograms?: Float64Array | undefined;
}

/** Groups of one shard: output labels and the first input series of each (the order key). */
export interface PartialGroups {
  labels: Labels[];
  first: Labels[];
}

/**
 * Fold state of sum, avg, count, min, max, group, stddev, stdvar per (group, step); `count` 0 means
 * the group had no sample at that step.
 *   value: sum (sum, avg), mean (avg once incremental), min, max, M2 (stddev, stdvar)
 *   compensation: Kahan compensation of `value` (sum, avg)
 *   mean: running mean (stddev, stdvar)
 */
export interface FoldState {
  groups: PartialGroups;
  count: Float64Array;
  value: Float64Array;
  compensation: Float64Array;
  mean: Float64Array;
  incremental: Uint8Array;
  dropName: Uint8Array;
  /** sum and avg over native histograms, when the shard's input held any. */
  histogram?: HistogramFoldState | undefined;
}

/**
 * The histogram half of a sum or avg fold, per (group, step):
 *   count: histograms added (0: none; `FoldState.count` counts the floats)
 *   sum: offset of their sum's record in `data` (histogram-pack.ts), when count > 0
 *   flags: HINT_RESET | HINT_NOT_RESET (some member had that counter-reset hint),
 *          BOUNDS_RECONCILED (adding them reconciled different custom bounds)
 *   dropName: some histogram member had its name marked for removal
 */
export interface HistogramFoldState {
  count: Float64Array;
  sum: Float64Array;
  flags: Uint8Array;
  dropName: Uint8Array;
  data: Float64Array;
}

/** count_values: per step, the count of each output label set and its first input series. */
export interface CountValuesState {
  keys: Labels[];
  firsts: Labels[];
  step: Int32Array;
  key: Int32Array;
  first: Int32Array;
  count: Float64Array;
}

export type EvalResult =
  | { kind: 'step'; series: PackedSeries }
  | { kind: 'fold'; state: FoldState }
  | { kind: 'k'; groups: PartialGroups; inputCount: number; series: PackedSeries }
  | { kind: 'count_values'; state: CountValuesState };

/** A shard's answer: a result with its annotations, or the PromQL error evaluation raised. */
export type EvalAnswer =
  | {
      ok: true;
      result: EvalResult;
      warnings: string[];
      infos: string[];
      /**
       * Per selector of the plan (same index), the most series one selection of it read in this
       * shard: the router sums them over the shards against `query.max_series`.
       */
      seriesSelected: number[];
    }
  | {
      ok: false;
      errorType: PromqlErrorType;
      message: string;
      /**
       * Set when the shard cannot answer in a form the router merges exactly: a k selection or
       * count_values read native histograms, a partial histogram sum mixed exponential and
       * custom buckets, or an avg's histogram sum overflowed. The router then evaluates the
       * subtree itself from raw samples (not an error for the query).
       */
      unpushable?: true | undefined;
    };

/** What the shard evaluation target does: run a request on every shard. */
export interface ShardEvaluation {
  /** False when the source was configured to leave every evaluation to the router. */
  readonly pushdownEnabled: boolean;
  evaluateInShards(request: EvalRequest, signal?: AbortSignal): Promise<EvalAnswer[]>;
  /**
   * Whether every series the selectors can match lives whole in one shard (tables whose rows are
   * spread over the shards hold series split between them: only the router sees those whole).
   */
  seriesWhole(selectorMatchers: ReadonlyArray<readonly Matcher[]>): boolean;
}

/** A source that evaluates in the shards, and is allowed to. */
export function isShardEvaluation(source: object): source is ShardEvaluation {
  const target = source as Partial<ShardEvaluation>;
  return typeof target.evaluateInShards === 'function' && target.pushdownEnabled === true;
}

/** Buffers of an answer's typed arrays, each once (for a transferring reply). */
export function transferOf(answer: EvalAnswer): ArrayBuffer[] {
  if (!answer.ok) return [];
  const arrays: ArrayBufferView[] = [];
  const r = answer.result;
  const series = (s: PackedSeries): void => {
    arrays.push(s.dropName, s.values, s.present);
    if (s.histograms !== undefined) arrays.push(s.histograms);
  };
  switch (r.kind) {
    case 'step':
      series(r.series);
      break;
    case 'k':
      series(r.series);
      break;
    case 'fold':
      arrays.push(
        r.state.count,
        r.state.value,
        r.state.compensation,
        r.state.mean,
        r.state.incremental,
        r.state.dropName,
      );
      if (r.state.histogram !== undefined) {
        const h = r.state.histogram;
        arrays.push(h.count, h.sum, h.flags, h.dropName, h.data);
      }
      break;
    case 'count_values':
      arrays.push(r.state.step, r.state.key, r.state.first, r.state.count);
      break;
  }
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** Bytes of the typed arrays of an answer (what the traffic counters report). */
export function answerBytes(answer: EvalAnswer): number {
  if (!answer.ok) return 0;
  let bytes = 0;
  for (const buffer of transferOf(answer)) bytes += buffer.byteLength;
  return bytes;
}
