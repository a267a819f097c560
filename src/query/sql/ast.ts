/**
 * The SQL syntax tree. Plain data (no classes, no positions) so that trees compare with deep
 * equality, which the printer's round-trip test relies on, and so `/v1/sql/parse` can serialise them.
 *
 * Shapes are chosen to grow: `QueryBody` and `TableFactor` are unions that will gain set operations,
 * joins and subqueries; `FunctionCall` will gain `over` (window) and `filter`; `Query` will gain
 * `with` (CTEs). Code that switches on `kind` must keep an exhaustive default.
 */

/** An identifier as written. `quote` is null for a bare word, whose case folds to lower. */
export interface Ident {
  value: string;
  quote: '"' | '`' | "'" | null;
}

/** A dotted name: `t`, `db.t`, `greptime.db.t`. */
export type ObjectName = Ident[];

/** A SQL type as written: `TIMESTAMP(3)`, `INT UNSIGNED`, `VARCHAR(20)`. `name` is upper case. */
export interface SqlType {
  name: string;
  args: number[];
  unsigned: boolean;
}

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
  | '^';

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
  | { kind: 'cast'; expr: Expr; dataType: SqlType; style: 'cast' | 'try_cast' | 'double_colon' }
  | FunctionCall
  | { kind: 'case'; operand: Expr | null; whens: Array<{ when: Expr; result: Expr }>; elseResult: Expr | null }
  /** Parentheses, kept so printing reproduces the grouping the author wrote. */
  | { kind: 'nested'; expr: Expr }
  /** The `DEFAULT` keyword inside `INSERT ... VALUES`. */
  | { kind: 'default' };

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
}

/** One item of the SELECT list: an expression with optional alias, or `*` / `t.*`. */
export type SelectItem = { kind: 'expr'; expr: Expr; alias: Ident | null } | { kind: 'wildcard'; qualifier: Ident[] };

/** What FROM names. Joins and subqueries will be further variants. */
export type TableFactor = { kind: 'table'; name: ObjectName; alias: Ident | null };

/** The body of one SELECT. */
export interface Select {
  kind: 'select';
  distinct: boolean;
  projection: SelectItem[];
  from: TableFactor | null;
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
}

/** What a query computes before ORDER BY/LIMIT; set operations will join this union. */
export type QueryBody = Select;

/** One ORDER BY item. */
export interface OrderByItem {
  expr: Expr;
  /** null when neither ASC nor DESC was written (means ascending). */
  asc: boolean | null;
  nullsFirst: boolean | null;
}

/** A complete query: body plus ordering and row limits. */
export interface Query {
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
  | { kind: 'comment'; text: string };

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
  | { kind: 'show_columns'; full: boolean; table: ObjectName; db: ObjectName | null; filter: ShowFilter | null }
  | { kind: 'describe'; name: ObjectName }
  | { kind: 'use'; db: Ident }
  | { kind: 'set'; variable: string; value: Expr };

/** The discriminant of `Statement`. */
export type StatementKind = Statement['kind'];
