/**
 * The `/v1/logs` request as a typed tree (reference §11). The shapes follow GreptimeDB's
 * `log_query` crate one to one, so that the parser can check serde's rules and the SQL writer can
 * follow the planner's; only the JSON spelling (external tagging) is left behind in the parser.
 */

/** A fully qualified table; the catalog must be `greptime`. */
export interface LogTableName {
  catalog: string;
  schema: string;
  table: string;
}

/** The raw time filter; `time-filter.ts` turns it into a window. */
export interface RawTimeFilter {
  start: string | null;
  end: string | null;
  span: string | null;
}

/** Rows to skip and to return after filtering and projection; null means the default. */
export interface LogLimit {
  skip: number | null;
  fetch: number | null;
}

/** Surrounding lines or seconds; accepted and ignored, as the planner does. */
export type LogContext =
  | { kind: 'None' }
  | { kind: 'Lines'; before: number; after: number }
  | { kind: 'Seconds'; before: number; after: number };

export type Filters =
  | { kind: 'Single'; filter: ColumnFilters }
  | { kind: 'And'; items: Filters[] }
  | { kind: 'Or'; items: Filters[] }
  | { kind: 'Not'; item: Filters };

/** An expression and the content filters it must pass, all ANDed (none = "expr is true"). */
export interface ColumnFilters {
  expr: LogExpr;
  filters: ContentFilter[];
}

export type EqualValue =
  | { kind: 'String'; value: string }
  | { kind: 'Boolean'; value: boolean }
  | { kind: 'Int'; value: number }
  | { kind: 'UInt'; value: number }
  | { kind: 'Float'; value: number };

export type ContentFilter =
  | { kind: 'Exact' | 'Prefix' | 'Postfix' | 'Contains' | 'Regex'; value: string }
  | { kind: 'Exist' | 'IsTrue' | 'IsFalse' }
  | { kind: 'Between'; start: string; end: string; startInclusive: boolean; endInclusive: boolean }
  | { kind: 'GreatThan' | 'LessThan'; value: string; inclusive: boolean }
  | { kind: 'In'; values: string[] }
  | { kind: 'Equal'; value: EqualValue }
  | { kind: 'Compound'; filters: ContentFilter[]; op: 'And' | 'Or' };

export const BINARY_OPERATORS = [
  'Eq',
  'Ne',
  'Lt',
  'Le',
  'Gt',
  'Ge',
  'Plus',
  'Minus',
  'Multiply',
  'Divide',
  'Modulo',
  'And',
  'Or',
] as const;

export type BinaryOperator = (typeof BINARY_OPERATORS)[number];

/** One aggregate of an `AggrFunc` step. */
export interface AggregateCall {
  name: string;
  args: LogExpr[];
  alias: string | null;
}

export type LogExpr =
  | { kind: 'NamedIdent'; name: string }
  | { kind: 'PositionalIdent'; index: number }
  | { kind: 'Literal'; value: string }
  | { kind: 'ScalarFunc'; name: string; args: LogExpr[]; alias: string | null }
  | { kind: 'AggrFunc'; aggregates: AggregateCall[]; by: LogExpr[] }
  | { kind: 'Decompose'; expr: LogExpr; schema: string; fields: Array<[string, string]> }
  | { kind: 'BinaryOp'; left: LogExpr; op: BinaryOperator; right: LogExpr }
  | { kind: 'Alias'; expr: LogExpr; alias: string }
  | { kind: 'Filter'; filter: ColumnFilters };

/** The whole request; every top-level key is required. */
export interface LogQuery {
  table: LogTableName;
  timeFilter: RawTimeFilter;
  limit: LogLimit;
  /** Projection; empty means all columns. */
  columns: string[];
  filters: Filters;
  context: LogContext;
  /** Steps applied in order after filtering, projection and limit. */
  exprs: LogExpr[];
}
