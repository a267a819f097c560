/**
 * The router side of PromQL pushdown, hooked into the evaluator (`QueryContext.pushdown`). The
 * evaluator offers every node it is about to evaluate, top-down; the first series-local node on
 * each path (series-local.ts) is therefore a maximal one. It goes to every shard with the
 * evaluator's grid and the query's settings, and the answers are merged:
 *
 *   'step'     the shards' step series, sorted by label set (the unpushed order)
 *   'partial'  fold states → mergeFold;  k selections → mergeK;  counts → mergeCountValues
 *
 * The rest of the query is evaluated here as before, so results equal the unpushed evaluation
 * (floating sums across shards aside: partial-fold.ts). The shards' annotations are merged into
 * the query's, equal texts once.
 */
import type { AggregateExpr, Expr } from '../ast.js';
import type { EvalHost, Pushdown } from '../eval/eval-host.js';
import type { StepSeries, Value } from '../eval/values.js';
import { compareLabels } from '../labels.js';
import { PromqlError } from '../types.js';
import type { CountValuesState, EvalAnswer, EvalResult, FoldState, ShardEvaluation } from './eval-plan.js';
import { mergeCountValues } from './partial-count-values.js';
import { mergeFold } from './partial-fold.js';
import { HistogramFoldUnmergeable } from './partial-histogram-fold.js';
import { type KPartialWire, mergeK } from './partial-k.js';
import { pushdownKindOf, selectorsOf } from './series-local.js';
import { unpackSeries } from './step-pack.js';
import { exprToWire } from './wire-expr.js';

export class ShardPushdown implements Pushdown {
  /**
   * Set once a shard, or a merge, could not answer over native histograms exactly
   * (partial-histogram-fold.ts, shard-eval.ts): the rest of the query is evaluated here.
   */
  private histograms = false;

  constructor(
    private readonly target: ShardEvaluation,
    /** The query text (annotation positions); '' when the query came as a tree. */
    private readonly text: string,
  ) {}

  async evaluate(ev: EvalHost, expr: Expr): Promise<Value | null> {
    const kind = pushdownKindOf(expr);
    if (kind === null || ev.steps === 0 || this.histograms) return null;
    const selectorMatchers = selectorsOf(expr).map((s) => s.matchers);
    if (!this.target.seriesWhole(selectorMatchers)) return null;
    const ctx = ev.ctx;
    const answers = await this.target.evaluateInShards(
      {
        expr: exprToWire(expr),
        kind,
        text: this.text,
        grid: { startMs: ev.startMs, endMs: ev.endMs, intervalMs: ev.intervalMs },
        query: {
          startMs: ctx.queryStartMs,
          endMs: ctx.queryEndMs,
          stepMs: ctx.queryStepMs,
          lookbackMs: ctx.lookbackMs,
          defaultSubqueryStepMs: ctx.defaultSubqueryStepMs,
        },
        selectorMatchers,
      },
      ctx.signal,
    );
    await ev.checkpoint();
    if (answers.some((a) => !a.ok && a.unpushable === true)) {
      this.histograms = true;
      return null;
    }
    const results = this.resultsOf(ev, answers);
    if (kind === 'step') return { kind: 'vector', series: mergeSteps(ev, results) };
    try {
      return { kind: 'vector', series: await mergePartials(ev, expr as AggregateExpr, results) };
    } catch (err) {
      if (!(err instanceof HistogramFoldUnmergeable)) throw err;
      // Annotations already merged are ones the router's own evaluation gives again (a set).
      this.histograms = true;
      return null;
    }
  }

  /** The shards' results, or the first shard's PromQL error; annotations go to the query's. */
  private resultsOf(ev: EvalHost, answers: readonly EvalAnswer[]): EvalResult[] {
    const results: EvalResult[] = [];
    for (const answer of answers) {
      if (!answer.ok) throw new PromqlError(answer.errorType, answer.message);
      ev.ctx.annotations.addTexts(answer.warnings, answer.infos);
      results.push(answer.result);
    }
    return results;
  }
}

function mergeSteps(ev: EvalHost, results: readonly EvalResult[]): StepSeries[] {
  const series: StepSeries[] = [];
  for (const r of results) {
    if (r.kind !== 'step') throw new PromqlError('internal', `expected step series from a shard, got ${r.kind}`);
    for (const s of unpackSeries(r.series, ev.steps)) series.push(s);
  }
  return series.sort((a, b) => compareLabels(a.labels, b.labels));
}

function mergePartials(ev: EvalHost, node: AggregateExpr, results: readonly EvalResult[]): Promise<StepSeries[]> {
  const kinds = new Set(results.map((r) => r.kind));
  if (kinds.size > 1) throw new PromqlError('internal', 'shards answered different partial forms');
  switch (results[0]?.kind) {
    case undefined:
      return Promise.resolve([]);
    case 'fold':
      return mergeFold(
        ev,
        node,
        results.map((r) => (r as { state: FoldState }).state),
      );
    case 'k':
      return mergeK(ev, node, results as KPartialWire[]);
    case 'count_values':
      return mergeCountValues(
        ev,
        node,
        results.map((r) => (r as { state: CountValuesState }).state),
      );
    default:
      throw new PromqlError('internal', 'a shard answered step series for a partial aggregation');
  }
}
