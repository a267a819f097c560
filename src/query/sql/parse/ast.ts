/**
 * The SQL syntax tree. Plain data (no classes, no positions) so that trees compare with deep
 * equality, which the printer's round-trip test relies on, and so `/v1/sql/parse` can serialise them.
 *
 * `QueryBody` covers SELECT, set operations and parenthesised queries; `TableFactor` covers tables,
 * derived tables and joins; `FunctionCall` carries aggregate ORDER BY, window (`OVER`) and
 * GreptimeDB's range (`RANGE ... FILL ...`) clauses. Code that switches on `kind` must keep an
 * exhaustive default.
 */

import type { SqlType } from '../types/type-names.js';

/** An identifier as written. `quote` is null for a bare word, whose case folds to lower. */
export interface Ident {
  value: string;
  quote: '"' | '`' | "'" | null;
}

/** A dotted name: `t`, `db.t`, `greptime.db.t`. */
export type ObjectName = Ident[];

// Declared with the type names, which sit below the parser and read it; the tree still exports it.
export type { SqlType };

/** Binary operators as the parser normalises them (`<>` and `==` become `!=` and `=`). */
export type BinaryOperator =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'AND'
  | 'OR'
  | '||'
  | '&'
  | '|'
  | '^'
  /** PostgreSQL regex match operators (`~` matches, `~*` case-insensitively, `!` negates). */
  | '~'
  | '~*'
  | '!~'
  | '!~*';

/** An expression as written. */
export type Expr =
  | { kind: 'identifier'; parts: Ident[] }
  | { kind: 'number'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  /** `TIMESTAMP '2023-01-01 00:00:00'`, `DATE '2023-01-01'`. */
  | { kind: 'typed_string'; dataType: SqlType; value: string }
  | { kind: 'unary'; op: '-' | '+' | 'NOT'; expr: Expr }
  | { kind: 'binary'; op: BinaryOperator; left: Expr; right: Expr }
  | { kind: 'between'; expr: Expr; low: Expr; high: Expr; negated: boolean }
  | { kind: 'in_list'; expr: Expr; list: Expr[]; negated: boolean }
  | { kind: 'like'; expr: Expr; pattern: Expr; negated: boolean; caseInsensitive: boolean; escape: string | null }
  | { kind: 'is'; expr: Expr; test: 'NULL' | 'TRUE' | 'FALSE' | 'UNKNOWN'; negated: boolean }
  /** `left IS [NOT] DISTINCT FROM right`: equality where two NULLs are equal, never NULL itself. */
  | { kind: 'is_distinct'; left: Expr; right: Expr; negated: boolean }
  | { kind: 'cast'; expr: Expr; dataType: SqlType; style: 'cast' | 'try_cast' | 'double_colon' }
  | FunctionCall
  | { kind: 'case'; operand: Expr | null; whens: Array<{ when: Expr; result: Expr }>; elseResult: Expr | null }
  /** Parentheses, kept so printing reproduces the grouping the author wrote. */
  | { kind: 'nested'; expr: Expr }
  /** The `DEFAULT` keyword inside `INSERT ... VALUES`. */
  | { kind: 'default' }
  /** `INTERVAL '1 day'` or `INTERVAL '1' DAY` (`unit` upper case, null when not written). */
  | { kind: 'interval'; value: Expr; unit: string | null }
  /** `(SELECT ...)` used as a value. */
  | { kind: 'subquery'; query: Query }
  /** `[NOT] EXISTS (SELECT ...)`. */
  | { kind: 'exists'; query: Query; negated: boolean }
  /** `x [NOT] IN (SELECT ...)`. */
  | { kind: 'in_subquery'; expr: Expr; query: Query; negated: boolean }
  | GroupingSetExpr;

/**
 * `ROLLUP (a, b)`, `CUBE (a, b)` or `GROUPING SETS ((a, b), (a), ())`: valid only as a GROUP BY
 * item. `sets` holds the elements as written: one expression each for ROLLUP and CUBE, the
 * expressions of each set for GROUPING SETS.
 */
export interface GroupingSetExpr {
  kind: 'grouping_set';
  form: 'ROLLUP' | 'CUBE' | 'GROUPING SETS';
  sets: Expr[][];
}

/** A call `name(args)`; aggregates and scalar functions alike (the binder tells them apart). */
export interface FunctionCall {
  kind: 'function';
  name: ObjectName;
  args: Expr[];
  /** `count(*)`. */
  star: boolean;
  distinct: boolean;
  /** False for `CURRENT_TIMESTAMP` written without parentheses. */
  parens: boolean;
  /** `first_value(x ORDER BY y DESC)`: ordering inside an aggregate's parentheses. */
  orderBy?: OrderByItem[] | undefined;
  /** `OVER (...)`: the call is a window function. */
  over?: WindowSpec | undefined;
  /** GreptimeDB's `agg(x) RANGE '5m' [FILL ...]`, valid in a query with ALIGN. */
  range?: RangeSpec | undefined;
  /**
   * How it was written when not as a call: `[a, b]` (make_array) or `list[i]` (array_element),
   * which print and name themselves that way.
   */
  syntax?: 'array_literal' | 'subscript' | undefined;
}

/** `OVER (PARTITION BY ... ORDER BY ... [ROWS|RANGE frame])`. */
export interface WindowSpec {
  partitionBy: Expr[];
  orderBy: OrderByItem[];
  frame: WindowFrame | null;
}

/** A window frame: `ROWS BETWEEN 1 PRECEDING AND CURRENT ROW`. `offset` null means UNBOUNDED. */
export interface WindowFrame {
  units: 'ROWS' | 'RANGE';
  start: FrameBound;
  end: FrameBound;
}

/** One end of a window frame. */
export type FrameBound =
  | { kind: 'current_row' }
  | { kind: 'preceding'; offset: Expr | null }
  | { kind: 'following'; offset: Expr | null };

/** How a range query fills time slots without a value: `FILL NULL | PREV | LINEAR | <constant>`. */
export type FillSpec = { kind: 'null' } | { kind: 'prev' } | { kind: 'linear' } | { kind: 'constant'; value: Expr };

/**
 * `RANGE <duration> [FILL ...]` after an aggregate call. `inherited` marks a range written after
 * a parenthesised expression (`(avg(a) / 4) RANGE '5m'`), which applies to the aggregates inside
 * and is ignored on scalar functions.
 */
export interface RangeSpec {
  duration: Expr;
  fill: FillSpec | null;
  inherited?: boolean | undefined;
}

/** `ALIGN <duration> [TO <origin>] [BY (...)] [FILL ...]` of a range query. */
export interface AlignClause {
  duration: Expr;
  /** null: the session time zone's epoch; `NOW`, `CALENDAR` and timestamps are words or strings. */
  to: Expr | null;
  /** null: the table's primary key; an empty list groups everything together. */
  by: Expr[] | null;
  fill: FillSpec | null;
}

/** One item of the SELECT list: an expression with optional alias, or `*` / `t.*`. */
export type SelectItem = { kind: 'expr'; expr: Expr; alias: Ident | null } | { kind: 'wildcard'; qualifier: Ident[] };

/** The join kinds; `cross` has no condition. */
export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'cross';

/**
 * What FROM names: a table, a parenthesised query, or a join of two factors (`FROM a, b` is a
 * cross join). `columnAliases` renames the factor's columns (`FROM cte t(x, y)`).
 */
export type TableFactor =
  | { kind: 'table'; name: ObjectName; alias: Ident | null; columnAliases?: Ident[] | undefined }
  | { kind: 'derived'; query: Query; alias: Ident | null; columnAliases?: Ident[] | undefined }
  | {
      kind: 'join';
      joinType: JoinType;
      left: TableFactor;
      right: TableFactor;
      on: Expr | null;
      using: Ident[] | null;
    };

/** The body of one SELECT. */
export interface Select {
  kind: 'select';
  distinct: boolean;
  projection: SelectItem[];
  from: TableFactor | null;
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
  /** GreptimeDB's range query clause; the projection then holds `agg(...) RANGE ...` calls. */
  align?: AlignClause | null | undefined;
  /** `SELECT DISTINCT ON (exprs)`: the first row (in ORDER BY order) of each distinct key. */
  distinctOn?: Expr[] | undefined;
}

/** A set operation between two query bodies. */
export interface SetOperation {
  kind: 'set_operation';
  op: 'UNION' | 'EXCEPT' | 'INTERSECT';
  all: boolean;
  left: QueryBody;
  right: QueryBody;
}

/** What a query computes before ORDER BY/LIMIT. `nested_query` is a parenthesised query. */
export type QueryBody = Select | SetOperation | { kind: 'nested_query'; query: Query };

/** One `name [(columns)] AS (query)` of a WITH clause. */
export interface CommonTableExpr {
  name: Ident;
  columns: Ident[];
  query: Query;
}

/** One ORDER BY item. */
export interface OrderByItem {
  expr: Expr;
  /** null when neither ASC nor DESC was written (means ascending). */
  asc: boolean | null;
  nullsFirst: boolean | null;
}

/** A complete query: optional WITH, body, ordering and row limits. */
export interface Query {
  with?: { recursive: boolean; ctes: CommonTableExpr[] } | null | undefined;
  body: QueryBody;
  orderBy: OrderByItem[];
  limit: Expr | null;
  offset: Expr | null;
}

/** Options after a column type in CREATE TABLE, in written order. */
export type ColumnOption =
  | { kind: 'null' }
  | { kind: 'not_null' }
  | { kind: 'default'; expr: Expr }
  | { kind: 'time_index' }
  | { kind: 'primary_key' }
  | { kind: 'comment'; text: string }
  /** `FULLTEXT INDEX [WITH(...)]`, `INVERTED INDEX`, `SKIPPING INDEX [WITH(...)]`. */
  | { kind: 'index'; index: IndexKind; options: OptionEntry[] };

/** The column index kinds of GreptimeDB's DDL. */
export type IndexKind = 'fulltext' | 'inverted' | 'skipping';

/** One column of CREATE TABLE. */
export interface ColumnDef {
  name: Ident;
  dataType: SqlType;
  options: ColumnOption[];
}

/** Table-level `TIME INDEX (...)` and `PRIMARY KEY (...)`. */
export type TableConstraint = { kind: 'time_index'; columns: Ident[] } | { kind: 'primary_key'; columns: Ident[] };

/** `WITH (key = value, ...)`; values keep their SQL spelling kind for printing. */
export interface OptionEntry {
  key: string;
  value: string;
  quoted: boolean;
}

/** The `LIKE` or `WHERE` filter of SHOW statements. */
export type ShowFilter = { kind: 'like'; pattern: string } | { kind: 'where'; expr: Expr };

/** One operation of ALTER TABLE. */
export type AlterOperation =
  | {
      kind: 'add_column';
      column: ColumnDef;
      ifNotExists: boolean;
      location: { kind: 'first' } | { kind: 'after'; column: Ident } | null;
    }
  | { kind: 'drop_column'; name: Ident }
  | { kind: 'rename_table'; newName: Ident }
  | { kind: 'modify_column_type'; name: Ident; dataType: SqlType }
  | { kind: 'set_default'; name: Ident; expr: Expr }
  | { kind: 'drop_default'; name: Ident }
  | { kind: 'set_index'; name: Ident; index: IndexKind; options: OptionEntry[] }
  | { kind: 'unset_index'; name: Ident; index: IndexKind }
  | { kind: 'set_options'; options: OptionEntry[] }
  | { kind: 'unset_options'; keys: string[] };

/** Every statement form this engine parses. */
export type Statement =
  | { kind: 'query'; query: Query }
  | {
      kind: 'insert';
      table: ObjectName;
      columns: Ident[];
      source: { kind: 'values'; rows: Expr[][] } | { kind: 'query'; query: Query };
      replace: boolean;
    }
  | { kind: 'delete'; table: ObjectName; where: Expr | null }
  | { kind: 'create_database'; name: ObjectName; ifNotExists: boolean; options: OptionEntry[] }
  | {
      kind: 'create_table';
      name: ObjectName;
      ifNotExists: boolean;
      columns: ColumnDef[];
      constraints: TableConstraint[];
      engine: string | null;
      options: OptionEntry[];
      /** Raw text of `PARTITION ON COLUMNS (...) (...)`; accepted and ignored (one region per shard). */
      partition: string | null;
    }
  | { kind: 'create_table_like'; name: ObjectName; source: ObjectName; ifNotExists: boolean }
  | { kind: 'drop_table'; names: ObjectName[]; ifExists: boolean }
  | { kind: 'drop_database'; name: ObjectName; ifExists: boolean }
  | { kind: 'show_databases'; full: boolean; filter: ShowFilter | null }
  | { kind: 'show_tables'; full: boolean; db: ObjectName | null; filter: ShowFilter | null }
  | { kind: 'show_create_table'; name: ObjectName }
  | { kind: 'show_create_database'; name: ObjectName }
  | { kind: 'show_columns'; full: boolean; table: ObjectName; db: ObjectName | null; filter: ShowFilter | null }
  | { kind: 'describe'; name: ObjectName }
  | { kind: 'use'; db: Ident }
  | { kind: 'set'; variable: string; value: Expr }
  | { kind: 'alter_table'; name: ObjectName; operations: AlterOperation[] }
  /** `ALTER DATABASE db SET 'k'='v', ...` or `... UNSET 'k', ...`. */
  | {
      kind: 'alter_database';
      name: ObjectName;
      operation: Extract<AlterOperation, { kind: 'set_options' | 'unset_options' }>;
    }
  | { kind: 'truncate_table'; name: ObjectName }
  | { kind: 'explain'; analyze: boolean; verbose: boolean; statement: Statement }
  | { kind: 'show_collation'; filter: ShowFilter | null }
  | { kind: 'show_charset'; filter: ShowFilter | null }
  /** `ADMIN fn(args)`: a maintenance call (`flush_table`, `compact_table`, ...). */
  | { kind: 'admin'; call: FunctionCall }
  /** `TQL EVAL|EXPLAIN|ANALYZE (start, end, step [, lookback]) <promql> [AS alias]` (parse-tql.ts). */
  | {
      kind: 'tql';
      mode: 'eval' | 'explain' | 'analyze';
      verbose: boolean;
      format: string | null;
      start: TqlParameter;
      end: TqlParameter;
      step: TqlParameter;
      lookback: TqlParameter | null;
      query: string;
      alias: Ident | null;
    };

/** A TQL time or duration parameter: literal text, or an SQL expression evaluated when run. */
export type TqlParameter = { kind: 'text'; text: string } | { kind: 'expr'; expr: Expr };

/** The discriminant of `Statement`. */
export type StatementKind = Statement['kind'];
