/**
 * What the evaluator's helpers (aggregate, binary, calls, special functions) and a pushdown see
 * of it: evaluation of subexpressions on its grid, its selectors and its cancellation checks.
 * Evaluator implements it; the helpers import this, not the evaluator, which imports them.
 */
import type { Expr, MatrixSelector, SubqueryExpr, TimeModifiers, VectorSelector } from '../ast.js';
import type { SampleSource } from '../types.js';
import type { Annotations } from './annotations.js';
import type { Interrupter } from './interrupter.js';
import type { SampleBudget } from './sample-budget.js';
import type { RawSeries, StepSeries, Value } from './values.js';

/** What every evaluator of one query shares. */
export interface QueryContext {
  source: SampleSource;
  lookbackMs: number;
  signal: AbortSignal | undefined;
  annotations: Annotations;
  /** The query's own range, for `@ start()`/`@ end()`, `step()` and `range()`. */
  queryStartMs: number;
  queryEndMs: number;
  /** 0 for an instant query. */
  queryStepMs: number;
  /** Step of a subquery written without one (`x[10m:]`). */
  defaultSubqueryStepMs: number;
  /** Cancellation checks and yields to the event loop (see interrupter.ts). */
  interrupt: Interrupter;
  /** Evaluates series-local subtrees where the series live (router only; src/query/promql/distribute). */
  pushdown?: Pushdown | undefined;
  /** Step samples of the whole query (see sample-budget.ts), shared by all its evaluators. */
  samples: SampleBudget;
}

/**
 * Evaluation in the shards: answers the value of `expr` on `ev`'s grid when the subtree can be
 * evaluated there, or null when the evaluator must evaluate it itself.
 */
export interface Pushdown {
  evaluate(ev: EvalHost, expr: Expr): Promise<Value | null>;
}

/** `offset` and `@` of one selector or subquery, resolved for this query. */
export interface ResolvedModifiers {
  offsetMs: number;
  atMs: number | null;
}

/** A range vector ready for windowing: raw samples plus the window geometry. */
export interface RangeInput {
  series: RawSeries[];
  rangeMs: number;
  modifiers: ResolvedModifiers;
}

export interface EvalHost {
  readonly ctx: QueryContext;
  readonly startMs: number;
  readonly endMs: number;
  readonly intervalMs: number;
  /** Steps of the grid, and their times. */
  readonly steps: number;
  readonly times: Float64Array;
  /** Throws if the query was cancelled (no yield: for synchronous loops). */
  checkCancelled(): void;
  /** Throws if cancelled; yields to the event loop once a slice of work is used up. */
  checkpoint(): Promise<void>;
  eval(expr: Expr): Promise<Value>;
  scalar(expr: Expr): Promise<Float64Array>;
  vector(expr: Expr): Promise<StepSeries[]>;
  resolveModifiers(m: TimeModifiers): ResolvedModifiers;
  referenceTime(m: ResolvedModifiers, step: number): number;
  selectVector(node: VectorSelector, withTimestamps: boolean): Promise<StepSeries[]>;
  selectRange(node: MatrixSelector): Promise<RangeInput>;
  evalSubquery(node: SubqueryExpr): Promise<RangeInput>;
}
