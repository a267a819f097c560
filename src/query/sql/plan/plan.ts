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

import type { ScanColumn } from '../../../shared/scan.js';
import type { DataType } from '../../../shared/types.js';
import type { Column } from '../../columns.js';
import type { AggregateOrder } from '../functions/types.js';
import type { ArithmeticOperator, ComparisonOperator } from '../types/operators.js';
import type { Value } from '../types/values.js';
import type { RangeBounds } from './range-bounds.js';

export type { ArithmeticOperator, ComparisonOperator };

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
  /** `timestamp ± INTERVAL`: calendar months first, then days and nanoseconds (Arrow's order). */
  | { kind: 'add_interval'; arg: PlanExpr; months: number; days: number; nanos: bigint; type: DataType }
  /**
   * A correlated subquery's answers, computed in the router per distinct value of the outer
   * columns it reads (`keys`): scalar value, EXISTS flag, or IN membership of `arg`. Router only.
   */
  | {
      kind: 'lookup';
      /** Distinguishes subqueries in `planExprKey` (answers do not serialise). */
      id: number;
      mode: 'scalar' | 'exists' | 'in';
      keys: PlanExpr[];
      arg: PlanExpr | null;
      negated: boolean;
      /** Key text (`groupKeyOf` of the key values) → answer rows (first column). */
      answers: Map<string, Value[]>;
      type: DataType;
    }
  /**
   * A window function call. Router only: window.ts computes it over the merged rows and the
   * planner replaces it with a column reference before anything is evaluated.
   */
  | { kind: 'window'; call: WindowCall; type: DataType }
  /** Only between binding and the planner's aggregate rewrite; never evaluated or shipped. */
  | {
      kind: 'aggregate';
      name: string;
      args: PlanExpr[];
      distinct: boolean;
      type: DataType;
      /** Ordering inside the call (`first_value(x ORDER BY y)`): sort keys over `args[1..]`. */
      order?: AggregateOrder[] | undefined;
      /** Range query: the call's RANGE duration and FILL. */
      range?: RangeAggregate | undefined;
      /** Display name of the call (DataFusion's), for plan errors and output naming. */
      display?: string | undefined;
    };

/** A window frame bound in rows (ROWS) or in order-key units (RANGE); null offset: unbounded. */
export type WindowBound =
  | { kind: 'current_row' }
  | { kind: 'preceding'; offset: Value | null }
  | { kind: 'following'; offset: Value | null };

/** One window function call, bound. */
export interface WindowCall {
  /** A window function (`row_number`, `lag`, ...) or an aggregate's registry name. */
  name: string;
  aggregate: boolean;
  args: PlanExpr[];
  distinct: boolean;
  partitionBy: PlanExpr[];
  orderBy: Array<{ expr: PlanExpr; descending: boolean; nullsFirst: boolean }>;
  frame: { units: 'ROWS' | 'RANGE'; start: WindowBound; end: WindowBound };
}

/** Direction of one ORDER BY key inside an aggregate call. */
export type { AggregateOrder } from '../functions/types.js';

/** How a range query fills a slot: nothing, NULL, the previous value, interpolation, or a constant. */
export type RangeFill =
  | { kind: 'none' }
  | { kind: 'null' }
  | { kind: 'prev' }
  | { kind: 'linear' }
  | { kind: 'constant'; value: Value; type: DataType };

/** The RANGE of one aggregate in a range query. */
export interface RangeAggregate {
  rangeNanos: bigint;
  fill: RangeFill;
}

/** One aggregate computed per group: partial states in shards, merged and finished in the router. */
export interface AggregateCall {
  name: string;
  /** The aggregated value(s), then the ORDER BY keys of `order` (first_value, last_value). */
  args: PlanExpr[];
  distinct: boolean;
  /** Result type (count → Int64, avg → Float64, ...). */
  type: DataType;
  /** Ordering keys inside the call; their values are the trailing `args`. */
  order?: AggregateOrder[] | undefined;
  /** Range queries: only rows inside this many nanoseconds from the slot start count. */
  rangeNanos?: bigint | undefined;
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
  /**
   * Per slot, a value that replaces NULL: NOT NULL columns added by ALTER TABLE read their default
   * for rows written before the column existed (storage returns NULL for those).
   */
  fills?: Array<Value | undefined> | undefined;
  /**
   * Columns whose type changed kind (MODIFY COLUMN): rows written before hold the value in slot
   * `source` (an extra scan column of the old kind), cast into slot `target`.
   */
  casts?: Array<{ target: number; source: number; from: DataType; to: DataType }> | undefined;
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
      /**
       * The scan already yields rows in `sort` order (a table without primary key sorted by its
       * time index ascending: one series, read in time order), so the first `limit` rows that
       * pass the filter are the shard's answer and the scan can stop there.
       */
      scanOrdered?: boolean | undefined;
      /**
       * How many of `exprs` the answer shows (the rest are sort keys only), when the router's merge
       * needs nothing past them but the sort. A shard that answers alone (`ShardPlan.sole`) sends
       * only these, in final order.
       */
      visible?: number | undefined;
    }
  | {
      kind: 'aggregate';
      groupBy: PlanExpr[];
      aggregates: AggregateCall[];
      /**
       * ROLLUP / CUBE / GROUPING SETS: each set lists the `groupBy` positions it groups by. A
       * row counts once per set, keyed `[...groupBy values (NULL where not in the set), set
       * position]`; the hidden last key keeps equal keys of different sets apart, so the router
       * merges them like any other key.
       */
      groupingSets?: number[][] | undefined;
    }
  /**
   * Range query: rows grouped by `by` and by time slot. A row at time t (nanoseconds, from `time`
   * times `timeUnitNanos`) counts toward every slot s = origin + k·align with s ≤ t < s + range of
   * each aggregate. Group keys are `[...by, slot start in nanoseconds]`.
   */
  | {
      kind: 'range';
      by: PlanExpr[];
      time: PlanExpr;
      timeUnitNanos: bigint;
      alignNanos: bigint;
      originNanos: bigint;
      aggregates: AggregateCall[];
      /** Limits on the (BY key, slot) groups this shard may create. */
      bounds: RangeBounds;
    };

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
  /** Per-query memory bound in each shard (see memory-budget.ts); unset = unbounded. */
  memoryLimitBytes?: number | undefined;
  /** Set by the router when this shard alone answers (the others hold none of the rows). */
  sole?: boolean | undefined;
}

/**
 * A shard's answer: columnar rows (plain scan columns as typed vectors, others as values), or one
 * key row and state row per group. `final` rows are a sole shard's: in the merge's order, cut to
 * the query's offset + limit and to the visible columns, so the merge only applies the offset.
 */
export type ShardResult = { kind: 'rows'; rowCount: number; columns: Column[]; final?: true } | GroupsResult;

/**
 * One aggregate's states, group by group (src/query/sql/exec/group-wire.ts). `fields`: every
 * state a plain object with the same properties in the same order, each a number or null
 * (`nulls[f][g] === 1`); else `objects`.
 */
export type PackedStates =
  | { kind: 'objects'; states: unknown[] }
  | { kind: 'fields'; names: string[]; numbers: Float64Array[]; nulls: Array<Uint8Array | undefined> };

/**
 * One key column, group by group: as values, or (all numbers, or all int64 bigints, with NULLs
 * where `nulls[g] === 1`) as a typed array.
 */
export type PackedKeys =
  | { kind: 'values'; values: Value[] }
  | { kind: 'f64'; values: Float64Array; nulls: Uint8Array | undefined }
  | { kind: 'i64'; values: BigInt64Array; nulls: Uint8Array | undefined };

/** A shard's groups: `count` of them, key column c of group g at `keys[c]`'s g. */
export interface GroupsResult {
  kind: 'groups';
  count: number;
  keys: PackedKeys[];
  states: PackedStates[];
}

/** How the router combines shard results into the statement result. */
export type MergePlan =
  | {
      kind: 'rows';
      sort: SortKey[];
      offset: number;
      limit: number | null;
      /** The first `visible` columns are the result; the rest were sort keys. */
      visible: number;
      /**
       * With window functions, shards return their scan columns unchanged: the router computes
       * the windows over them, then these outputs (result columns, then sort keys) over
       * `[scan columns..., window results...]`.
       */
      windowed?: { windows: WindowCall[]; outputs: PlanExpr[] } | undefined;
      /** DISTINCT ON: after sorting, only the first row of each value of these columns is kept. */
      distinctOn?: number[] | undefined;
      /**
       * `unnest(list)` result columns: before sorting, each row becomes one row per item of its
       * longest such list (shorter ones padded with NULL, other columns repeated); a row whose
       * lists are all NULL or empty goes away.
       */
      unnest?: number[] | undefined;
    }
  | {
      kind: 'aggregate';
      groupCount: number;
      aggregates: AggregateCall[];
      /** Without GROUP BY an empty input still yields one row (count 0, sum NULL, ...). */
      grouped: boolean;
      /**
       * Grouping sets: the positions of empty sets (grand totals), each of which yields its row
       * even from an empty input; the last group key is the set position.
       */
      grandTotalSets?: number[] | undefined;
      /** Over `[group keys..., aggregate results...]`. */
      having: PlanExpr | null;
      /** Over the same row; result columns followed by hidden sort keys. */
      outputs: PlanExpr[];
      /** Range query: slot filling between finishing the groups and HAVING/outputs. */
      range?: RangeMerge | undefined;
      /** Window functions over the groups (after HAVING); results follow the aggregates. */
      windows?: WindowCall[] | undefined;
      distinct: boolean;
      sort: SortKey[];
      offset: number;
      limit: number | null;
      visible: number;
    };

/**
 * How the router completes a range query's groups: keys are `[...by, slot nanos]`. When any
 * aggregate fills, every by-group gets all slots between its first and last; then each
 * aggregate's own fill applies. The slot column is converted to `slotType` at the end.
 */
export interface RangeMerge {
  byCount: number;
  alignNanos: bigint;
  slotType: DataType;
  timeUnitNanos: bigint;
  fills: RangeFill[];
  /** Limits on the FILL grid, checked before it is generated. */
  bounds: RangeBounds;
}

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
    case 'add_interval':
      return { ...expr, arg: fn(expr.arg) } as PlanExpr;
    case 'lookup':
      return { ...expr, keys: expr.keys.map(fn), arg: expr.arg ? fn(expr.arg) : null };
    case 'window':
      return {
        ...expr,
        call: {
          ...expr.call,
          args: expr.call.args.map(fn),
          partitionBy: expr.call.partitionBy.map(fn),
          orderBy: expr.call.orderBy.map((o) => ({ ...o, expr: fn(o.expr) })),
        },
      };
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
