/**
 * A `LogQuery` → one SQL SELECT, so the log query is planned and pushed down to the shards like
 * any other SQL (docs/logs-query.md). The order is GreptimeDB's `LogQueryPlanner`: scan → time
 * window and filters (WHERE) → projection → LIMIT/OFFSET → each `exprs` step as an outer SELECT
 * over the previous one.
 *
 * Safety: every identifier is double-quoted (`"` doubled) and every literal single-quoted (`'`
 * doubled; our lexer has no backslash escapes), numbers are written from parsed JS numbers, and
 * function names come from our registry, so no request text can change the statement's shape.
 *
 * Every computed output column gets an explicit alias, so each step knows the names (and, for
 * passed-through columns, the types) of its input: `PositionalIdent` and literal type inference
 * need them.
 */
import { lookupFunction } from '../../query/sql/functions/registry.js';
import { DbError, ErrorCode, InvalidArgument, Unsupported } from '../../shared/errors.js';
import type { DataType, TableSchema } from '../../shared/types.js';
import type {
  AggregateCall,
  BinaryOperator,
  ColumnFilters,
  ContentFilter,
  EqualValue,
  Filters,
  LogExpr,
  LogQuery,
} from './log-query.js';
import { sqlTimestampText, type TimeWindow } from './time-filter.js';

/** Rows a log query returns when `limit.fetch` is absent (reference §10.2). */
export const LOG_QUERY_FETCH_DEFAULT = 1000;

/** One column of a step's input: its name and, when known, its type. */
interface StageColumn {
  name: string;
  type: DataType | null;
}

/** An expression as SQL text, the name of the column it yields, and its type when known. */
interface Rendered {
  sql: string;
  name: string;
  type: DataType | null;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A JS number as SQL numeric text; negative values in parentheses so they compose. */
function numberSql(value: number | bigint, float: boolean): string {
  let text = String(value);
  if (float && /^-?\d+$/.test(text)) text += '.0';
  return text.startsWith('-') ? `(${text})` : text;
}

/** DataFusion's name of a string literal: `Utf8("text")`. */
function literalName(value: string): string {
  return `Utf8(${JSON.stringify(value)})`;
}

/** GreptimeDB's `escape_like_pattern`: the LIKE wildcards and the escape character itself. */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const INTEGER_RANGES: Partial<Record<DataType, [bigint, bigint]>> = {
  Int8: [-(2n ** 7n), 2n ** 7n - 1n],
  Int16: [-(2n ** 15n), 2n ** 15n - 1n],
  Int32: [-(2n ** 31n), 2n ** 31n - 1n],
  Int64: [-(2n ** 63n), 2n ** 63n - 1n],
  UInt8: [0n, 2n ** 8n - 1n],
  UInt16: [0n, 2n ** 16n - 1n],
  UInt32: [0n, 2n ** 32n - 1n],
  UInt64: [0n, 2n ** 64n - 1n],
};
// The texts Arrow's string → boolean cast accepts (case-insensitively).
const BOOLEAN_TEXTS: Readonly<Record<string, boolean>> = {
  true: true,
  t: true,
  yes: true,
  '1': true,
  false: false,
  f: false,
  no: false,
  '0': false,
};
const FLOAT_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A string value typed after the expression it meets, as the planner's `cast_to(...)
 * .unwrap_or(utf8)`: numeric and boolean text becomes a number or boolean literal when it
 * converts, anything else stays a string (timestamps are then read by SQL coercion). The name is
 * DataFusion's for the resulting literal, e.g. `Float64(2)`.
 */
function inferredLiteral(value: string, type: DataType | null): { sql: string; name: string } {
  if (type !== null) {
    const range = INTEGER_RANGES[type];
    if (range && /^[+-]?\d+$/.test(value)) {
      const n = BigInt(value);
      if (n >= range[0] && n <= range[1]) return { sql: numberSql(n, false), name: `${type}(${n})` };
    }
    if ((type === 'Float64' || type === 'Float32') && FLOAT_RE.test(value)) {
      const n = Number(value);
      if (Number.isFinite(n)) return { sql: numberSql(n, true), name: `${type}(${n})` };
    }
    if (type === 'Boolean') {
      const b = BOOLEAN_TEXTS[value.toLowerCase()];
      if (b !== undefined) return { sql: b ? 'TRUE' : 'FALSE', name: `Boolean(${b})` };
    }
  }
  return { sql: quoteString(value), name: literalName(value) };
}

/** An unknown column: a DataFusion planning error in GreptimeDB, which answers 1007 (503). */
function noField(name: string, stage: StageColumn[]): DbError {
  const valid = stage.map((c) => quoteIdent(c.name)).join(', ');
  return new DbError(
    ErrorCode.External,
    `Schema error: No field named ${quoteIdent(name)}. Valid fields are ${valid}.`,
  );
}

function column(name: string, stage: StageColumn[]): Rendered {
  const found = stage.find((c) => c.name === name);
  if (!found) throw noField(name, stage);
  return { sql: quoteIdent(name), name, type: found.type };
}

function functionName(name: string, kind: 'scalar' | 'aggregate'): string {
  const lower = name.toLowerCase();
  if (lookupFunction(lower)?.kind !== kind) {
    throw new InvalidArgument(`Unknown ${kind} function: ${name}`);
  }
  // Registry names are plain words; quoting keeps names such as `left` from reading as keywords.
  return quoteIdent(lower);
}

const OPERATORS: Record<BinaryOperator, string> = {
  Eq: '=',
  Ne: '!=',
  Lt: '<',
  Le: '<=',
  Gt: '>',
  Ge: '>=',
  Plus: '+',
  Minus: '-',
  Multiply: '*',
  Divide: '/',
  Modulo: '%',
  And: 'AND',
  Or: 'OR',
};
const BOOLEAN_OPERATORS = new Set<BinaryOperator>(['Eq', 'Ne', 'Lt', 'Le', 'Gt', 'Ge', 'And', 'Or']);

/** A `LogExpr` in expression position (a filter's subject, a function argument, a step output). */
function renderExpr(expr: LogExpr, stage: StageColumn[]): Rendered {
  switch (expr.kind) {
    case 'NamedIdent':
      return column(expr.name, stage);
    case 'PositionalIdent': {
      const found = stage[expr.index];
      if (!found) {
        throw new InvalidArgument(
          `Positional identifier ${expr.index} is out of range: the input has ${stage.length} columns`,
        );
      }
      return { sql: quoteIdent(found.name), name: found.name, type: found.type };
    }
    case 'Literal':
      return { sql: quoteString(expr.value), name: literalName(expr.value), type: 'String' };
    case 'ScalarFunc': {
      const fn = functionName(expr.name, 'scalar');
      const args = expr.args.map((a) => renderExpr(a, stage));
      const name = expr.alias ?? `${expr.name.toLowerCase()}(${args.map((a) => a.name).join(',')})`;
      return { sql: `${fn}(${args.map((a) => a.sql).join(', ')})`, name, type: null };
    }
    case 'BinaryOp': {
      let left = renderExpr(expr.left, stage);
      let right = renderExpr(expr.right, stage);
      // A literal on one side takes the other side's type, as the planner infers it.
      if (expr.left.kind === 'Literal' && expr.right.kind !== 'Literal') {
        left = { ...left, ...inferredLiteral(expr.left.value, right.type) };
      } else if (expr.right.kind === 'Literal' && expr.left.kind !== 'Literal') {
        right = { ...right, ...inferredLiteral(expr.right.value, left.type) };
      }
      const op = OPERATORS[expr.op];
      return {
        sql: `(${left.sql} ${op} ${right.sql})`,
        name: `${left.name} ${op} ${right.name}`,
        type: BOOLEAN_OPERATORS.has(expr.op) ? 'Boolean' : null,
      };
    }
    case 'Alias':
      return { ...renderExpr(expr.expr, stage), name: expr.alias };
    case 'Decompose':
      throw decomposeUnsupported();
    default:
      throw new InvalidArgument(
        `Unexpected log expression ${expr.kind}: expected a column, literal, function or operator`,
      );
  }
}

function decomposeUnsupported(): Unsupported {
  return new Unsupported(
    'Unimplemented feature: Decompose log expression (no SQL form for schema-driven field extraction)',
  );
}

/** One content filter over an already rendered subject; null when it filters nothing. */
function contentFilterSql(subject: Rendered, filter: ContentFilter): string | null {
  const e = subject.sql;
  const literal = (value: string): string => inferredLiteral(value, subject.type).sql;
  const like = (pattern: string): string => `(${e} LIKE ${quoteString(pattern)} ESCAPE '\\')`;
  switch (filter.kind) {
    case 'Exact':
      return like(escapeLike(filter.value));
    case 'Prefix':
      return like(`${escapeLike(filter.value)}%`);
    case 'Postfix':
      return like(`%${escapeLike(filter.value)}`);
    case 'Contains':
      return like(`%${escapeLike(filter.value)}%`);
    case 'Regex':
      throw new Unsupported('Unimplemented feature: regex filter');
    case 'Exist':
      return `(${e} IS NOT NULL)`;
    case 'IsTrue':
      return `(${e} IS TRUE)`;
    case 'IsFalse':
      return `(${e} IS FALSE)`;
    case 'Between': {
      const lower = `${e} ${filter.startInclusive ? '>=' : '>'} ${literal(filter.start)}`;
      const upper = `${e} ${filter.endInclusive ? '<=' : '<'} ${literal(filter.end)}`;
      return `(${lower} AND ${upper})`;
    }
    case 'GreatThan':
      return `(${e} ${filter.inclusive ? '>=' : '>'} ${literal(filter.value)})`;
    case 'LessThan':
      return `(${e} ${filter.inclusive ? '<=' : '<'} ${literal(filter.value)})`;
    case 'In':
      // An empty IN list matches nothing (DataFusion simplifies it to false); SQL cannot spell it.
      return filter.values.length === 0 ? 'FALSE' : `(${e} IN (${filter.values.map(literal).join(', ')}))`;
    case 'Equal':
      return `(${e} = ${equalLiteral(filter.value)})`;
    case 'Compound': {
      const parts = filter.filters.map((f) => contentFilterSql(subject, f)).filter((p): p is string => p !== null);
      if (parts.length === 0) return null;
      return `(${parts.join(filter.op === 'And' ? ' AND ' : ' OR ')})`;
    }
  }
}

function equalLiteral(value: EqualValue): string {
  switch (value.kind) {
    case 'String':
      return quoteString(value.value);
    case 'Boolean':
      return value.value ? 'TRUE' : 'FALSE';
    case 'Int':
    case 'UInt':
      return numberSql(BigInt(value.value), false);
    case 'Float':
      return numberSql(value.value, true);
  }
}

/** `expr` with its content filters ANDed; with none (or only empty ones) "expr IS TRUE". */
function columnFiltersSql(filter: ColumnFilters, stage: StageColumn[]): string {
  const subject = renderExpr(filter.expr, stage);
  const parts = filter.filters.map((f) => contentFilterSql(subject, f)).filter((p): p is string => p !== null);
  if (parts.length === 0) return `(${subject.sql} IS TRUE)`;
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`;
}

/** The filter tree; null when it has nothing to filter (`{"And": []}`). */
function filtersSql(filters: Filters, stage: StageColumn[]): string | null {
  switch (filters.kind) {
    case 'Single':
      return columnFiltersSql(filters.filter, stage);
    case 'And':
    case 'Or': {
      const parts = filters.items.map((f) => filtersSql(f, stage)).filter((p): p is string => p !== null);
      if (parts.length === 0) return null;
      return `(${parts.join(filters.kind === 'And' ? ' AND ' : ' OR ')})`;
    }
    case 'Not': {
      const inner = filtersSql(filters.item, stage);
      return inner === null ? null : `(NOT ${inner})`;
    }
  }
}

function renderAggregate(call: AggregateCall, stage: StageColumn[]): Rendered {
  const fn = functionName(call.name, 'aggregate');
  const lower = call.name.toLowerCase();
  // `count` without arguments counts rows.
  if (call.args.length === 0 && lower === 'count') {
    return { sql: `${fn}(*)`, name: call.alias ?? 'count(*)', type: 'Int64' };
  }
  const args = call.args.map((a) => renderExpr(a, stage));
  const name = call.alias ?? `${lower}(${args.map((a) => a.name).join(',')})`;
  // Only count's type is fixed; a later step's literals are inferred from it.
  return { sql: `${fn}(${args.map((a) => a.sql).join(', ')})`, name, type: lower === 'count' ? 'Int64' : null };
}

function selectList(outputs: Rendered[]): string {
  return outputs.map((o) => `${o.sql} AS ${quoteIdent(o.name)}`).join(', ');
}

/**
 * SQL timestamp text has four-digit years, so a window reaching past them (a huge `span`) is cut
 * to years 0000..9999: no stored timestamp lies outside, except the very last nanosecond.
 */
const SQL_TIME_MIN = -62_167_219_200n * 1_000_000_000n;
const SQL_TIME_MAX = 253_402_300_800n * 1_000_000_000n - 1n;

/** The largest LIMIT / OFFSET we write: larger values mean "everything" in practice. */
const ROW_COUNT_MAX = Number.MAX_SAFE_INTEGER;

/**
 * The SELECT for a log query over `table` (already resolved from the catalog) and the time window
 * already checked by `canonicalTimeWindow`.
 */
export function logQuerySql(query: LogQuery, table: TableSchema, window: TimeWindow): string {
  const tableStage: StageColumn[] = table.columns.map((c) => ({ name: c.name, type: c.type }));
  const time = quoteIdent(table.timeIndex);
  const clamp = (nanos: bigint): string =>
    quoteString(sqlTimestampText(nanos < SQL_TIME_MIN ? SQL_TIME_MIN : nanos > SQL_TIME_MAX ? SQL_TIME_MAX : nanos));
  const conditions = [`${time} >= ${clamp(window.startNanos)}`, `${time} < ${clamp(window.endNanos)}`];
  const filter = filtersSql(query.filters, tableStage);
  if (filter !== null) conditions.push(filter);

  let stage = tableStage;
  let projection = '*';
  if (query.columns.length > 0) {
    stage = query.columns.map((name) => {
      const found = column(name, tableStage);
      return { name, type: found.type };
    });
    projection = query.columns.map(quoteIdent).join(', ');
  }
  const fetch = Math.min(query.limit.fetch ?? LOG_QUERY_FETCH_DEFAULT, ROW_COUNT_MAX);
  const skip = Math.min(query.limit.skip ?? 0, ROW_COUNT_MAX);
  let sql =
    `SELECT ${projection} FROM ${quoteIdent(table.db)}.${quoteIdent(table.name)}` +
    ` WHERE ${conditions.join(' AND ')} LIMIT ${fetch}${skip > 0 ? ` OFFSET ${skip}` : ''}`;

  query.exprs.forEach((expr, step) => {
    const from = `FROM (${sql}) AS ${quoteIdent(`_log_step_${step}`)}`;
    switch (expr.kind) {
      case 'NamedIdent':
      case 'PositionalIdent':
        // Naming a column selects nothing new; the planner skips these steps too.
        return;
      case 'Filter': {
        sql = `SELECT * ${from} WHERE ${columnFiltersSql(expr.filter, stage)}`;
        return;
      }
      case 'AggrFunc': {
        if (expr.aggregates.length === 0) throw new InvalidArgument('AggrFunc needs at least one aggregate in `expr`');
        const groups = expr.by.map((b) => renderExpr(b, stage));
        const aggregates = expr.aggregates.map((a) => renderAggregate(a, stage));
        const groupBy = groups.length > 0 ? ` GROUP BY ${groups.map((g) => g.sql).join(', ')}` : '';
        sql = `SELECT ${selectList([...groups, ...aggregates])} ${from}${groupBy}`;
        stage = [...groups, ...aggregates].map((o) => ({ name: o.name, type: o.type }));
        return;
      }
      case 'Decompose':
        throw decomposeUnsupported();
      case 'Literal':
        // The planner has no step for a bare literal either.
        throw new Unsupported('Unimplemented feature: log expression');
      default: {
        // ScalarFunc, BinaryOp, Alias: the step's output replaces the columns.
        const output = renderExpr(expr, stage);
        sql = `SELECT ${selectList([output])} ${from}`;
        stage = [{ name: output.name, type: output.type }];
      }
    }
  });
  return sql;
}
