/**
 * The shard side of PromQL pushdown: evaluates a series-local subtree (or the partial form of an
 * aggregation over one) with the same evaluator the router uses, over this shard's series only.
 *
 *   EvalPlan → tree from wire → Evaluator over LocalSampleSource (selectLocal over sliced scans)
 *     → 'step': the subtree's step series, packed
 *     → 'partial': fold states (sum, avg, ...), k selections, or count_values counts
 *
 * Native histograms are packed with the floats (step-pack.ts) and summed per group for sum and avg
 * (partial-histogram-fold.ts). A k selection or count_values that read any, or a histogram fold
 * with no exact partial form, is "unpushable": the router evaluates it from raw samples.
 *
 * A PromqlError becomes part of the answer (its type would not survive the thread boundary as an
 * error); anything else propagates as a shard error.
 */
import type { ScanSource } from '../../../shared/scan.js';
import type { AggregateExpr } from '../ast.js';
import { Annotations } from '../eval/annotations.js';
import { Evaluator, type QueryContext } from '../eval/evaluator.js';
import { Interrupter } from '../eval/interrupter.js';
import { SampleBudget } from '../eval/sample-budget.js';
import { PromqlError } from '../types.js';
import type { EvalAnswer, EvalPlan, EvalResult } from './eval-plan.js';
import { LocalSampleSource } from './local-source.js';
import { countValuesPartial } from './partial-count-values.js';
import { foldPartial } from './partial-fold.js';
import { HistogramFoldUnmergeable } from './partial-histogram-fold.js';
import { selectKPartial } from './partial-k.js';
import { FOLD_OPS, K_OPS } from './series-local.js';
import { packSeries } from './step-pack.js';
import { exprFromWire } from './wire-expr.js';

/** Histograms read by a k selection or count_values: the router evaluates the node itself. */
class HistogramsInAnswer extends Error {}

async function partialOf(ev: Evaluator, node: AggregateExpr, histogramsRead: () => boolean): Promise<EvalResult> {
  if (FOLD_OPS.has(node.op)) return { kind: 'fold', state: await foldPartial(ev, node, await ev.vector(node.expr)) };
  let result: EvalResult;
  if (K_OPS.has(node.op)) result = await selectKPartial(ev, node);
  else if (node.op === 'count_values') result = { kind: 'count_values', state: await countValuesPartial(ev, node) };
  else throw new PromqlError('internal', `aggregation ${node.op} has no partial form`);
  // k selections and count_values look at samples themselves: histograms read stay in the router.
  if (histogramsRead()) throw new HistogramsInAnswer();
  return result;
}

/** How a shard stops and paces an evaluation (implemented by the shard's QueryTurn). */
export interface EvalTurn {
  /** Throws once the router cancelled the query. */
  poll(): void;
  sliceMs: number;
  /** Pauses after a slice of `workedMs`. */
  rest(workedMs: number): Promise<void>;
  /** True while more urgent work waits for the thread: a slice then ends early. */
  writesWaiting(): boolean;
}

/** Runs one evaluation plan over this shard's data, in the shard's turn when given one. */
export async function runEvalPlan(plan: EvalPlan, scan: ScanSource, turn?: EvalTurn): Promise<EvalAnswer> {
  const source = new LocalSampleSource(scan, plan.selectors, {
    samplesMax: plan.samplesMax,
    seriesMax: plan.seriesMax,
  });
  const ctx: QueryContext = {
    source,
    lookbackMs: plan.query.lookbackMs,
    signal: undefined,
    annotations: new Annotations(plan.text),
    queryStartMs: plan.query.startMs,
    queryEndMs: plan.query.endMs,
    queryStepMs: plan.query.stepMs,
    defaultSubqueryStepMs: plan.query.defaultSubqueryStepMs,
    interrupt: turn
      ? new Interrupter(undefined, turn.poll, turn.sliceMs, turn.rest, turn.writesWaiting)
      : new Interrupter(undefined),
    // The router's bound: each shard's part of a query may hold as much as the whole query.
    samples: new SampleBudget(plan.samplesMax),
  };
  const ev = new Evaluator(ctx, plan.grid.startMs, plan.grid.endMs, plan.grid.intervalMs);
  const unpushable: EvalAnswer = {
    ok: false,
    errorType: 'internal',
    message: 'this evaluation over native histograms is done in the router',
    unpushable: true,
  };
  try {
    const expr = exprFromWire(plan.expr);
    let result: EvalResult;
    if (plan.kind === 'step') {
      result = { kind: 'step', series: packSeries(await ev.vector(expr), ev.steps) };
    } else if (expr.type === 'AggregateExpr') result = await partialOf(ev, expr, () => source.histogramsRead);
    else throw new PromqlError('internal', `a partial shard plan needs an aggregation, got ${expr.type}`);
    return {
      ok: true,
      result,
      warnings: [...ctx.annotations.warnings],
      infos: ctx.annotations.infos,
      seriesSelected: source.seriesSelected,
    };
  } catch (err) {
    if (err instanceof HistogramsInAnswer || err instanceof HistogramFoldUnmergeable) return unpushable;
    // An error after reading histograms stays as before histograms were pushable: the router
    // evaluates the node itself and raises its own error, in the unpushed wording.
    if (source.histogramsRead) return unpushable;
    if (err instanceof PromqlError) return { ok: false, errorType: err.errorType, message: err.message };
    throw err;
  }
}
