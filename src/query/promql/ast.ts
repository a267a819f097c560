/**
 * The typed PromQL syntax tree, shaped after Prometheus' `promql/parser/ast.go` so the printer,
 * the `parse_query` JSON and the evaluator can follow Prometheus node by node. Every node keeps
 * its source range (`pos`, UTF-16 offsets into the query) for error and annotation positions.
 */

import type { FunctionDef } from './functions/registry.js';
import type { Matcher } from './types.js';

/** Half-open source range [start, end) in the query text. */
export interface PositionRange {
  start: number;
  end: number;
}

/** Prometheus' value types as the type checker names them. */
export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

/** PromQL's aggregation operators: the one list the lexer, the parser and the types read. */
export const AGGREGATE_OPS = [
  'sum',
  'avg',
  'count',
  'min',
  'max',
  'group',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'limitk',
  'limit_ratio',
] as const;

export type AggregateOp = (typeof AGGREGATE_OPS)[number];

const AGGREGATE_OP_SET: ReadonlySet<string> = new Set(AGGREGATE_OPS);

export function isAggregateOp(name: string): name is AggregateOp {
  return AGGREGATE_OP_SET.has(name);
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^' | 'atan2';
export type ComparisonOp = '==' | '!=' | '>' | '<' | '>=' | '<=';
export type SetOp = 'and' | 'or' | 'unless';
/** Native histogram trims: `</` keeps observations below the float, `>/` those above. */
export type TrimOp = '</' | '>/';
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp | TrimOp;

export type MatchCardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';

/** `on`/`ignoring`/`group_*` and the experimental `fill*` of a vector-vector operation. */
export interface VectorMatching {
  card: MatchCardinality;
  matchingLabels: string[];
  on: boolean;
  include: string[];
  fillLeft: number | null;
  fillRight: number | null;
}

export interface NumberLiteral {
  type: 'NumberLiteral';
  value: number;
  /** Written as a duration (`5m`): printed back as one. */
  duration: boolean;
  pos: PositionRange;
}

export interface StringLiteral {
  type: 'StringLiteral';
  value: string;
  pos: PositionRange;
}

/**
 * Arithmetic on durations (`[5m + 1m]`, `offset -(1h)`), plus `step()`, `range()`,
 * `min_of(a, b)`, `max_of(a, b)`. A unary operator has `lhs` null. Evaluated at query start.
 */
export interface DurationExpr {
  type: 'DurationExpr';
  op: '+' | '-' | '*' | '/' | '%' | '^' | 'step' | 'range' | 'min_of' | 'max_of';
  lhs: DurationNode | null;
  rhs: DurationNode | null;
  /** Written in parentheses; printed back with them. */
  wrapped: boolean;
  pos: PositionRange;
}

export type DurationNode = DurationExpr | NumberLiteral;

/** `@ <time>` / `@ start()` / `@ end()` and `offset`, shared by selectors and subqueries. */
export interface TimeModifiers {
  /** Offset in ms when written as a plain duration (negative allowed). */
  offsetMs: number;
  /** Offset written as an expression (only when not a plain literal). */
  offsetExpr: DurationExpr | null;
  /** `@ <seconds>` as ms. */
  atMs: number | null;
  startOrEnd: 'start' | 'end' | null;
}

export interface VectorSelector extends TimeModifiers {
  type: 'VectorSelector';
  /** Metric name written before the braces ('' when absent). */
  name: string;
  /** Matchers as written, then the name matcher appended when `name` is set (as Prometheus). */
  matchers: Matcher[];
  pos: PositionRange;
  /**
   * Set by `markStatsSelectors` when only histogram_count/_sum/_avg read this selector's
   * histograms: their reset hints are then worked out against the previous sample.
   */
  statsOnly?: boolean;
}

export interface MatrixSelector {
  type: 'MatrixSelector';
  selector: VectorSelector;
  rangeMs: number;
  rangeExpr: DurationExpr | null;
  pos: PositionRange;
}

export interface SubqueryExpr extends TimeModifiers {
  type: 'SubqueryExpr';
  expr: Expr;
  rangeMs: number;
  rangeExpr: DurationExpr | null;
  /** 0 = not written: the engine's default subquery step. */
  stepMs: number;
  stepExpr: DurationExpr | null;
  pos: PositionRange;
}

export interface AggregateExpr {
  type: 'AggregateExpr';
  op: AggregateOp;
  expr: Expr;
  param: Expr | null;
  grouping: string[];
  without: boolean;
  pos: PositionRange;
}

export interface BinaryExpr {
  type: 'BinaryExpr';
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
  /** Null unless both sides are instant vectors (set by the type checker, as Prometheus). */
  matching: VectorMatching | null;
  returnBool: boolean;
  pos: PositionRange;
}

export interface UnaryExpr {
  type: 'UnaryExpr';
  op: '+' | '-';
  expr: Expr;
  pos: PositionRange;
}

export interface ParenExpr {
  type: 'ParenExpr';
  expr: Expr;
  pos: PositionRange;
}

export interface Call {
  type: 'Call';
  func: FunctionDef;
  args: Expr[];
  pos: PositionRange;
}

export type Expr =
  | AggregateExpr
  | BinaryExpr
  | Call
  | MatrixSelector
  | NumberLiteral
  | ParenExpr
  | StringLiteral
  | SubqueryExpr
  | UnaryExpr
  | VectorSelector;

/** The type an expression evaluates to (Prometheus' `Expr.Type()`). */
export function typeOf(expr: Expr): ValueType {
  switch (expr.type) {
    case 'NumberLiteral':
      return 'scalar';
    case 'StringLiteral':
      return 'string';
    case 'VectorSelector':
    case 'AggregateExpr':
      return 'vector';
    case 'MatrixSelector':
    case 'SubqueryExpr':
      return 'matrix';
    case 'ParenExpr':
    case 'UnaryExpr':
      return typeOf(expr.expr);
    case 'Call':
      return expr.func.returnType;
    case 'BinaryExpr':
      return typeOf(expr.lhs) === 'scalar' && typeOf(expr.rhs) === 'scalar' ? 'scalar' : 'vector';
  }
}

/** Prometheus' `DocumentedType`: the names used in type error messages. */
export function documentedType(type: ValueType | 'none'): string {
  switch (type) {
    case 'vector':
      return 'instant vector';
    case 'matrix':
      return 'range vector';
    default:
      return type;
  }
}

export function isComparisonOp(op: BinaryOp): op is ComparisonOp {
  return op === '==' || op === '!=' || op === '>' || op === '<' || op === '>=' || op === '<=';
}

export function isTrimOp(op: BinaryOp): op is TrimOp {
  return op === '</' || op === '>/';
}

export function isSetOp(op: BinaryOp): op is SetOp {
  return op === 'and' || op === 'or' || op === 'unless';
}

/** Aggregations that take a parameter before the vector. */
export function takesParam(op: AggregateOp): boolean {
  return (
    op === 'topk' ||
    op === 'bottomk' ||
    op === 'quantile' ||
    op === 'count_values' ||
    op === 'limitk' ||
    op === 'limit_ratio'
  );
}

/** Strips any number of parentheses (Prometheus does this for function and aggregation args). */
export function unwrapParens(expr: Expr): Expr {
  let e = expr;
  while (e.type === 'ParenExpr') e = e.expr;
  return e;
}

/** Child expressions in Prometheus' walk order. */
export function childrenOf(expr: Expr): Expr[] {
  switch (expr.type) {
    case 'AggregateExpr':
      return expr.param ? [expr.param, expr.expr] : [expr.expr];
    case 'BinaryExpr':
      return [expr.lhs, expr.rhs];
    case 'Call':
      return expr.args;
    case 'MatrixSelector':
      return [expr.selector];
    case 'SubqueryExpr':
    case 'ParenExpr':
    case 'UnaryExpr':
      return [expr.expr];
    default:
      return [];
  }
}
