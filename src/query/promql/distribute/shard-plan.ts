/**
 * What the router sends a shard for PromQL: a selection (store/plan.ts) or an evaluation
 * (eval-plan.ts). Its own module, so that the two plans do not import each other.
 */
import type { LocalSelect, PROMQL_SHARD_PLAN_VERSION } from '../store/plan.js';
import type { EvalPlan } from './eval-plan.js';

/**
 * - `select`: series with their samples (`SeriesSamples[]`).
 * - `series`: label sets of series with at least one sample in range (`Labels[]`).
 * - `eval`: a series-local subtree or a partial aggregation evaluated over this shard's series
 *   (`EvalAnswer`, src/query/promql/distribute).
 */
export type PromqlShardPlan =
  | { version: typeof PROMQL_SHARD_PLAN_VERSION; op: 'select'; select: LocalSelect }
  | { version: typeof PROMQL_SHARD_PLAN_VERSION; op: 'series'; select: LocalSelect }
  | { version: typeof PROMQL_SHARD_PLAN_VERSION; op: 'eval'; eval: EvalPlan };
