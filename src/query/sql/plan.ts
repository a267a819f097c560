/**
 * Plan data: bound expressions, the fragment every shard runs, and the router's merge step.
 *
 * Everything here must survive structured clone (the shard fragment crosses a worker boundary):
 * plain objects, arrays, strings, numbers, bigints. No functions, no class instances. Functions are
 * referred to by name and looked up in the registry on each side.
 *
 * Data flow of a SELECT over a table:
 *   router: parse → plan (planner.ts) → env.scatter(ShardPlan)
 *   shard:  scan → filter → project | partial aggregate (shard-exec.ts) → ShardResult
 *   router: merge results (merge.ts): final aggregate, HAVING, projection, DISTINCT, ORDER BY, LIMIT
 */

import type { ScanColumn } from '../../shared/scan.js';
import type { DataType } from '../../shared/types.js';
import type { Value } from './values.js';

/** Operators of `arithmetic` nodes (`||` concatenates strings). */
export type ArithmeticOperator = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '||';
/** Operators of `compare` nodes. */
export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * A bound, typed expression. Column indexes point into the batch the expression is evaluated
 * over: the scan columns in a shard, the `[group keys..., aggregate results...]` row in the merge.
 * Operands of `arithmetic` and `compare` already have one common type (the binder inserts casts).
 */
export type PlanExpr =
  | { kind: 'column'; index: number; type: DataType }
  | { kind: 'literal'; value: Value; type: DataType }
  | { kind: 'arithmetic'; op: ArithmeticOperator; left: PlanExpr; right: PlanExpr; type: DataType }
  | { kind: 'compare'; op: ComparisonOperator; left: PlanExpr; right: PlanExpr; type: 'Boolean' }
  | { kind: 'and' | 'or'; left: PlanExpr; right: PlanExpr; type: 'Boolean' }
  | { kind: 'not'; arg: PlanExpr; type: 'Boolean' }
  | { kind: 'negate'; arg: PlanExpr; type: DataType }
  | { kind: 'is'; arg: PlanExpr; test: 'NULL' | 'TRUE' | 'FALSE' | 'UNKNOWN'; negated: boolean; type: 'Boolean' }
  | { kind: 'in'; arg: PlanExpr; list: PlanExpr[]; negated: boolean; type: 'Boolean' }
  | {
      kind: 'like';
      arg: PlanExpr;
      pattern: PlanExpr;
      negated: boolean;
      caseInsensitive: boolean;
      escape: string | null;
      type: 'Boolean';
    }
  | { kind: 'cast'; arg: PlanExpr; safe: boolean; type: DataType }
  | { kind: 'call'; name: string; args: PlanExpr[]; type: DataType }
  | {
      kind: 'case';
      operand: PlanExpr | null;
      whens: Array<{ when: PlanExpr; result: PlanExpr }>;
      elseResult: PlanExpr | null;
      type: DataType;
    }
  /** Only between binding and the planner's aggregate rewrite; never evaluated or shipped. */
  | { kind: 'aggregate'; name: string; args: PlanExpr[]; distinct: boolean; type: DataType };

/** One aggregate computed per group: partial states in shards, merged and finished in the router. */
export interface AggregateCall {
  name: string;
  args: PlanExpr[];
  distinct: boolean;
  /** Result type (count → Int64, avg → Float64, ...). */
  type: DataType;
}

/** One ORDER BY key over a batch column. */
export interface SortKey {
  /** Column of the batch being sorted. */
  index: number;
  descending: boolean;
  nullsFirst: boolean;
}

/** Tag pruning the shard turns into `ScanRequest.seriesFilter`: a series must match every entry. */
export interface SeriesFilterSpec {
  columnId: number;
  /** The series' tag value must be one of these (a missing tag never matches). */
  values: string[];
}

/** What a shard reads: the table's columns by scan slot, with pruning hints. */
export interface ShardScan {
  tableId: number;
  columns: ScanColumn[];
  /** Logical type of each scan column (tags come back as strings and are converted to this). */
  types: DataType[];
  timeMin?: bigint | undefined;
  timeMax?: bigint | undefined;
  seriesFilter: SeriesFilterSpec[];
}

/** What a shard returns: projected rows, or partial aggregates per group. */
export type ShardOutput =
  | {
      kind: 'rows';
      exprs: PlanExpr[];
      /** Sort the shard's rows by these output columns (empty: keep scan order). */
      sort: SortKey[];
      /** Keep at most this many rows after sorting (OFFSET + LIMIT of the query), or null. */
      limit: number | null;
    }
  | { kind: 'aggregate'; groupBy: PlanExpr[]; aggregates: AggregateCall[] };

/** The fragment `runShardPlan` executes. `scan: null` evaluates over one empty row (`SELECT 1`). */
export interface ShardPlan {
  version: 1;
  scan: ShardScan | null;
  filter: PlanExpr | null;
  /** Statement start time: `now()` is the same in every shard. */
  nowNanos: bigint;
  /** Session time zone, for functions that read zone-less timestamp text. */
  timezone: string;
  output: ShardOutput;
}

/** A shard's answer: columnar rows, or one key row and state row per group. */
export type ShardResult =
  | { kind: 'rows'; rowCount: number; columns: Value[][] }
  | { kind: 'groups'; keys: Value[][]; states: unknown[][] };

/** How the router combines shard results into the statement result. */
export type MergePlan =
  | {
      kind: 'rows';
      sort: SortKey[];
      offset: number;
      limit: number | null;
      /** The first `visible` columns are the result; the rest were sort keys. */
      visible: number;
    }
  | {
      kind: 'aggregate';
      groupCount: number;
      aggregates: AggregateCall[];
      /** Without GROUP BY an empty input still yields one row (count 0, sum NULL, ...). */
      grouped: boolean;
      /** Over `[group keys..., aggregate results...]`. */
      having: PlanExpr | null;
      /** Over the same row; result columns followed by hidden sort keys. */
      outputs: PlanExpr[];
      distinct: boolean;
      sort: SortKey[];
      offset: number;
      limit: number | null;
      visible: number;
    };

/** A stable text key of a bound expression, for matching GROUP BY and ORDER BY to SELECT items. */
export function planExprKey(expr: PlanExpr): string {
  return JSON.stringify(expr, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** Rebuilds a node with `fn` applied to each child expression. */
export function mapChildren(expr: PlanExpr, fn: (e: PlanExpr) => PlanExpr): PlanExpr {
  switch (expr.kind) {
    case 'column':
    case 'literal':
      return expr;
    case 'arithmetic':
    case 'compare':
    case 'and':
    case 'or':
      return { ...expr, left: fn(expr.left), right: fn(expr.right) } as PlanExpr;
    case 'not':
    case 'negate':
    case 'is':
    case 'cast':
      return { ...expr, arg: fn(expr.arg) } as PlanExpr;
    case 'in':
      return { ...expr, arg: fn(expr.arg), list: expr.list.map(fn) };
    case 'like':
      return { ...expr, arg: fn(expr.arg), pattern: fn(expr.pattern) };
    case 'call':
    case 'aggregate':
      return { ...expr, args: expr.args.map(fn) };
    case 'case':
      return {
        ...expr,
        operand: expr.operand ? fn(expr.operand) : null,
        whens: expr.whens.map((w) => ({ when: fn(w.when), result: fn(w.result) })),
        elseResult: expr.elseResult ? fn(expr.elseResult) : null,
      };
  }
}
