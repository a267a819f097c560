/**
 * The shard worker's entry for PromQL plan fragments (`ShardTask` with `lang: 'promql'`). Returns
 * the answer and the buffers to transfer (not copy) back to the router.
 */
import { Internal } from '../../../shared/errors.js';
import type { ScanSource } from '../../../shared/scan.js';
import { transferOf } from '../distribute/eval-plan.js';
import { type EvalTurn, runEvalPlan } from '../distribute/shard-eval.js';
import type { PromqlShardPlan } from '../distribute/shard-plan.js';
import { selectLocal, selectLocalSeries } from './local-select.js';
import { PROMQL_SHARD_PLAN_VERSION } from './plan.js';

export interface PromqlShardAnswer {
  value: unknown;
  /** Buffers the value's typed arrays live in; each listed once. */
  transfer: ArrayBuffer[];
}

/**
 * Runs one plan fragment over this shard's data. `turn` (the shard's, see QueryTurn) stops the
 * evaluation once the router cancelled the query and paces it in slices; scans pause on their own.
 */
export async function runPromqlShardPlan(
  plan: PromqlShardPlan,
  source: ScanSource,
  turn?: EvalTurn,
): Promise<PromqlShardAnswer> {
  const p = plan;
  // The plan crossed a thread boundary as data: its version is checked, not assumed.
  if (p?.version !== PROMQL_SHARD_PLAN_VERSION) throw new Internal('unsupported PromQL shard plan');
  switch (p.op) {
    case 'select': {
      const series = await selectLocal(source, p.select);
      const buffers = new Set<ArrayBuffer>();
      for (const s of series) {
        buffers.add(s.t.buffer as ArrayBuffer);
        buffers.add(s.v.buffer as ArrayBuffer);
      }
      return { value: series, transfer: [...buffers] };
    }
    case 'series':
      return { value: await selectLocalSeries(source, p.select), transfer: [] };
    case 'eval': {
      const answer = await runEvalPlan(p.eval, source, turn);
      return { value: answer, transfer: transferOf(answer) };
    }
    default:
      throw new Internal(`unknown PromQL shard op ${(p as { op: string }).op}`);
  }
}
