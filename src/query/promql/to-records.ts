/**
 * A PromQL answer as SQL-style records, the shape GreptimeDB gives `/v1/pql` and `TQL EVAL`:
 * one row per sample, with a time column, a value column and one String column per label.
 *
 * Column names and order follow GreptimeDB, which plans PromQL into SQL over the metric's table,
 * so its columns are named after that table's columns and the SQL expressions built on them:
 *
 *   selector              the table's time index, value field and tags in table order
 *   selector{__field__}   value, tags, time          (also every shape given `AS alias`)
 *   fn(selector[5m])      time, `prom_fn(<time>_range,<value>)`, tags
 *   sum by (a) (x)        a, time, `sum(<table>.<value>)`   (count is Int64)
 *   x / 4                 the value becomes `<value> / Float64(4)`
 *   a + b                 labels, time, `<table a>.<value a> + <table b>.<value b>`
 *   literals              `time`, `value`
 *
 * An expression whose metric table cannot be found has no columns of its own: a selector answers
 * the literal columns with no rows, a binary operation no columns at all (as GreptimeDB does).
 * Rows are ordered by series (label columns in column order) and then time.
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import type { ColumnSchema, DataType, TableSchema } from '../../shared/types.js';
import { physicalKindOf, timeUnitOf } from '../../shared/types.js';
import type { ResultColumn, StatementResult } from '../result.js';
import {
  type AggregateExpr,
  type BinaryExpr,
  type Call,
  type Expr,
  typeOf,
  unwrapParens,
  type VectorSelector,
} from './ast.js';
import { K_OPS } from './distribute/series-local.js';
import { compileMatcher } from './matchers.js';
import { exprToString } from './printer.js';
import type { Labels, QueryResult } from './types.js';

/** What naming reads of the catalog. */
export interface RecordsCatalog {
  getTable(db: string, name: string): TableSchema | undefined;
  listTables(db: string): TableSchema[];
}

export interface RecordsOptions {
  catalog: RecordsCatalog;
  /** The request's database; selectors may pick another with `__database__`/`__schema__`. */
  db: string;
  /** `TQL EVAL ... AS <alias>`: names the value column and puts it first. */
  alias?: string | null | undefined;
}

const METRIC_NAME = '__name__';
const FIELD_LABEL = '__field__';
const DATABASE_LABELS = ['x_greptime_database', '__database__', '__schema__'];
/** The value column remote write and OTLP create, preferred when a table has several fields. */
const DEFAULT_VALUE_COLUMN = 'greptime_value';
/** Range functions GreptimeDB plans with extrapolation, whose column names carry more arguments. */
const EXTRAPOLATED = new Set(['rate', 'increase', 'delta']);

type Layout = 'table' | 'value-labels-time' | 'time-value-labels' | 'labels-time-value';

/** The columns an expression's result has, before any alias. */
interface Shape {
  /** Always TimestampMillisecond: GreptimeDB's PromQL plans convert every time index to ms. */
  time: { name: string; type: DataType };
  value: { name: string; type: 'Float64' | 'Int64' };
  /** How the value is written when another expression refers to it (`metric.val`). */
  qualifier: string | null;
  /** The metric table the value comes from, for qualifying it in binary operations. */
  table: string | null;
  labels: string[];
  layout: Layout;
  /** For the `table` layout: column roles in table order. */
  tableOrder: Array<{ role: 'time' | 'value' } | { role: 'label'; name: string }>;
}

/** `null`: no table behind it; `none`: no columns at all. */
type Described = Shape | null | 'none';

const LITERAL_TIME = { name: 'time', type: 'TimestampMillisecond' as DataType };

function isNumeric(type: DataType): boolean {
  if (type === 'Date') return false;
  const kind = physicalKindOf(type);
  return kind === 'f64' || kind === 'i64' || kind === 'u64';
}

/** The table a selector reads, or null when none or several can match. */
function tableOf(selector: VectorSelector, options: RecordsOptions): TableSchema | null {
  let db = options.db;
  const nameMatchers = [];
  for (const m of selector.matchers) {
    if (DATABASE_LABELS.includes(m.name) && m.op === '=' && m.value !== '') db = m.value;
    else if (m.name === METRIC_NAME) nameMatchers.push(m);
  }
  if (db.startsWith('greptime-')) db = db.slice('greptime-'.length);
  const exact = nameMatchers.find((m) => m.op === '=');
  if (exact) return options.catalog.getTable(db, exact.value) ?? null;
  if (nameMatchers.length === 0) return null;
  const tests = nameMatchers.map(compileMatcher);
  const candidates = options.catalog.listTables(db).filter((t) => tests.every((test) => test.matches(t.name)));
  return candidates.length === 1 ? (candidates[0] as TableSchema) : null;
}

function selectorShape(selector: VectorSelector, options: RecordsOptions): Shape | null {
  const table = tableOf(selector, options);
  if (!table) return null;
  const timeColumn = table.columns.find((c) => c.name === table.timeIndex);
  if (!timeColumn || !timeUnitOf(timeColumn.type)) return null;
  const numeric = table.columns.filter((c) => c.semantic === 'FIELD' && isNumeric(c.type));
  const fieldMatchers = selector.matchers.filter((m) => m.name === FIELD_LABEL);
  let valueColumn: ColumnSchema | undefined = numeric.find((c) => c.name === DEFAULT_VALUE_COLUMN) ?? numeric[0];
  if (fieldMatchers.length > 0) {
    const exact = fieldMatchers.find((m) => m.op === '=');
    if (exact && !table.columns.some((c) => c.name === exact.value)) {
      throw new DbError(ErrorCode.InvalidArguments, `Cannot find column ${exact.value}`);
    }
    const tests = fieldMatchers.map(compileMatcher);
    valueColumn = numeric.find((c) => tests.every((test) => test.matches(c.name)));
  }
  if (!valueColumn) return null;
  const tags = table.columns.filter((c) => c.semantic === 'TAG').map((c) => c.name);
  const tableOrder: Shape['tableOrder'] = [];
  for (const c of table.columns) {
    if (c.name === table.timeIndex) tableOrder.push({ role: 'time' });
    else if (c === valueColumn) tableOrder.push({ role: 'value' });
    else if (c.semantic === 'TAG') tableOrder.push({ role: 'label', name: c.name });
  }
  return {
    time: { name: timeColumn.name, type: 'TimestampMillisecond' },
    value: { name: valueColumn.name, type: 'Float64' },
    qualifier: table.name,
    table: table.name,
    labels: tags,
    layout: fieldMatchers.length > 0 ? 'value-labels-time' : 'table',
    tableOrder,
  };
}

/** DataFusion's display of a Float64 literal: `Float64(4)`, `Float64(0.0015)`. */
/** DataFusion's display of a scalar operand: `Float64(4)` for literals, else the PromQL text. */
function literalText(expr: Expr): string {
  const inner = unwrapParens(expr);
  if (inner.type === 'NumberLiteral') return `Float64(${inner.value})`;
  return exprToString(inner);
}

function qualified(shape: Shape): string {
  return shape.qualifier ? `${shape.qualifier}.${shape.value.name}` : shape.value.name;
}

function callShape(call: Call, options: RecordsOptions): Described {
  const rangeArg = call.args.find((a) => {
    const inner = unwrapParens(a);
    return inner.type === 'MatrixSelector' || inner.type === 'SubqueryExpr';
  });
  if (rangeArg) {
    const inner = describe(rangeArg, options);
    if (inner === null || inner === 'none') return inner;
    const matrix = unwrapParens(rangeArg);
    const args = [`${inner.time.name}_range`, inner.value.name];
    if (EXTRAPOLATED.has(call.func.name) && matrix.type === 'MatrixSelector') {
      args.push(inner.time.name, `Int64(${matrix.rangeMs})`);
    }
    for (const a of call.args)
      if (a !== rangeArg && unwrapParens(a).type === 'NumberLiteral') args.push(literalText(a));
    return {
      ...inner,
      value: { name: `prom_${call.func.name}(${args.join(',')})`, type: 'Float64' },
      qualifier: null,
      layout: 'time-value-labels',
    };
  }
  const vectorArg = call.args.find((a) => {
    const t = unwrapParens(a).type;
    return t !== 'NumberLiteral' && t !== 'StringLiteral';
  });
  if (!vectorArg) return null;
  const inner = describe(vectorArg, options);
  if (inner === null || inner === 'none') return inner;
  return {
    ...inner,
    value: { name: `${call.func.name}(${inner.value.name})`, type: 'Float64' },
    qualifier: null,
    layout: inner.layout === 'table' ? 'time-value-labels' : inner.layout,
  };
}

function aggregateShape(node: AggregateExpr, options: RecordsOptions): Described {
  const inner = describe(node.expr, options);
  if (inner === null || inner === 'none') return inner;
  const labels = node.without
    ? inner.labels.filter((l) => !node.grouping.includes(l))
    : node.grouping.filter((l) => inner.labels.includes(l));
  const param = node.param ? `${literalText(node.param)},` : '';
  return {
    ...inner,
    value: { name: `${node.op}(${param}${qualified(inner)})`, type: node.op === 'count' ? 'Int64' : 'Float64' },
    qualifier: inner.table,
    labels: K_OPS.has(node.op) ? inner.labels : labels,
    layout: 'labels-time-value',
  };
}

function binaryShape(node: BinaryExpr, options: RecordsOptions): Described {
  const lhsScalar = typeOf(node.lhs) === 'scalar';
  const rhsScalar = typeOf(node.rhs) === 'scalar';
  if (lhsScalar || rhsScalar) {
    const vectorSide = lhsScalar ? node.rhs : node.lhs;
    const inner = describe(vectorSide, options);
    if (inner === null || inner === 'none') return inner;
    const filter = ['==', '!=', '>', '<', '>=', '<='].includes(node.op) && !node.returnBool;
    if (filter) return inner;
    const literal = literalText(lhsScalar ? node.lhs : node.rhs);
    const name =
      node.op === 'atan2'
        ? `atan2(${lhsScalar ? literal : inner.value.name},${lhsScalar ? inner.value.name : literal})`
        : lhsScalar
          ? `${literal} ${node.op} ${inner.value.name}`
          : `${inner.value.name} ${node.op} ${literal}`;
    return { ...inner, value: { name, type: 'Float64' }, qualifier: null };
  }
  const lhs = describe(node.lhs, options);
  const rhs = describe(node.rhs, options);
  if (lhs === null || lhs === 'none' || rhs === null || rhs === 'none') return 'none';
  if (node.op === 'and' || node.op === 'or' || node.op === 'unless') return lhs;
  const sameTable = lhs.table !== null && lhs.table === rhs.table;
  const side = (shape: Shape, name: string): string => {
    const qualifier = sameTable ? name : shape.table;
    return qualifier === null ? shape.value.name : `${qualifier}.${shape.value.name}`;
  };
  const left = side(lhs, 'lhs');
  const right = side(rhs, 'rhs');
  const name = node.op === 'atan2' ? `atan2(${left},${right})` : `${left} ${node.op} ${right}`;
  const matching = node.matching;
  let labels = lhs.labels;
  if (matching?.on && matching.card === 'one-to-one')
    labels = lhs.labels.filter((l) => matching.matchingLabels.includes(l));
  else if (matching && !matching.on) labels = lhs.labels.filter((l) => !matching.matchingLabels.includes(l));
  return {
    ...lhs,
    value: { name, type: 'Float64' },
    qualifier: null,
    table: null,
    labels,
    layout: 'labels-time-value',
  };
}

function describe(expr: Expr, options: RecordsOptions): Described {
  switch (expr.type) {
    case 'ParenExpr':
      return describe(expr.expr, options);
    case 'VectorSelector':
      return selectorShape(expr, options);
    case 'MatrixSelector':
      return selectorShape(expr.selector, options);
    case 'SubqueryExpr':
      return describe(expr.expr, options);
    case 'Call':
      return callShape(expr, options);
    case 'AggregateExpr':
      return aggregateShape(expr, options);
    case 'BinaryExpr':
      return binaryShape(expr, options);
    case 'UnaryExpr': {
      const inner = describe(expr.expr, options);
      if (inner === null || inner === 'none' || expr.op === '+') return inner;
      return { ...inner, value: { name: `(- ${inner.value.name})`, type: 'Float64' }, qualifier: null };
    }
    case 'NumberLiteral':
    case 'StringLiteral':
      return null;
  }
}

/** One column of the output and how to fill it from a sample. */
type ColumnRole = { role: 'time' } | { role: 'value' } | { role: 'label'; name: string };

/** Every sample of a result as (labels, t, v), series by series. */
function seriesOf(result: QueryResult): Array<{ labels: Labels; t: number[]; v: number[] }> {
  switch (result.resultType) {
    case 'vector':
      return result.samples.map((s) => ({ labels: s.labels, t: [s.t], v: [s.v] }));
    case 'matrix':
      return result.series.map((s) => ({ labels: s.labels, t: s.t, v: s.v }));
    default:
      return [];
  }
}

function compareNullable(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** Records of a scalar or string answer: `time`, `value`. */
function literalRecords(result: QueryResult, times: readonly number[]): StatementResult {
  const isString = result.resultType === 'string';
  const columns: ResultColumn[] = [
    { name: 'time', type: 'TimestampMillisecond' },
    { name: 'value', type: isString ? 'String' : 'Float64' },
  ];
  if (result.resultType === 'matrix') {
    // A scalar evaluated over a range comes back as one series without labels.
    const rows: unknown[][] = [];
    for (const s of result.series) for (let i = 0; i < s.t.length; i++) rows.push([BigInt(s.t[i] as number), s.v[i]]);
    return { kind: 'records', columns, rows };
  }
  if (result.resultType !== 'scalar' && result.resultType !== 'string') return { kind: 'records', columns, rows: [] };
  const at = times.length > 0 ? times : [result.t];
  return { kind: 'records', columns, rows: at.map((t) => [BigInt(Math.round(t)), result.v]) };
}

/**
 * Converts a PromQL result into records named after GreptimeDB's plan. `times` are the steps of
 * the evaluation; a scalar or string result is repeated at each of them.
 */
export function promqlToRecords(
  expr: Expr,
  result: QueryResult,
  options: RecordsOptions,
  times: readonly number[] = [],
): StatementResult {
  const type = typeOf(expr);
  if (result.resultType === 'scalar' || result.resultType === 'string' || type === 'scalar' || type === 'string') {
    return literalRecords(result, times);
  }
  const described = describe(expr, options);
  const series = seriesOf(result);
  // A binary operation with a side whose table is missing has no columns (GreptimeDB's `++`).
  if (described === 'none' && series.length === 0) return { kind: 'records', columns: [], rows: [] };
  let shape: Shape;
  if (described === null || described === 'none') {
    // Nothing names the columns: the literal layout, plus every label the answer carries.
    if (series.length === 0) return literalRecords({ resultType: 'vector', samples: [] }, []);
    const names = new Set<string>();
    for (const s of series) for (const l of s.labels) names.add(l.name);
    shape = {
      time: LITERAL_TIME,
      value: { name: 'value', type: 'Float64' },
      qualifier: null,
      table: null,
      labels: [...names].sort(),
      layout: 'time-value-labels',
      tableOrder: [],
    };
  } else {
    shape = described;
  }
  return shapeRecords(shape, series, options.alias ?? null);
}

function shapeRecords(
  shape: Shape,
  series: Array<{ labels: Labels; t: number[]; v: number[] }>,
  alias: string | null,
): StatementResult {
  // Labels the answer has beyond the shape's (label_replace, ...) become extra columns.
  const known = new Set(shape.labels);
  const extra = new Set<string>();
  for (const s of series) {
    for (const l of s.labels) if (l.name !== METRIC_NAME && !known.has(l.name)) extra.add(l.name);
  }
  const labels = [...shape.labels, ...[...extra].sort()];
  const labelRoles: ColumnRole[] = labels.map((name) => ({ role: 'label', name }));
  let roles: ColumnRole[];
  const layout = alias !== null ? 'value-labels-time' : shape.layout;
  switch (layout) {
    case 'table':
      roles = [...shape.tableOrder, ...[...extra].sort().map((name) => ({ role: 'label' as const, name }))];
      break;
    case 'value-labels-time':
      roles = [{ role: 'value' }, ...labelRoles, { role: 'time' }];
      break;
    case 'time-value-labels':
      roles = [{ role: 'time' }, { role: 'value' }, ...labelRoles];
      break;
    case 'labels-time-value':
      roles = [...labelRoles, { role: 'time' }, { role: 'value' }];
      break;
  }
  const columns: ResultColumn[] = roles.map((r) => {
    if (r.role === 'time') return { name: shape.time.name, type: shape.time.type };
    if (r.role === 'value') return { name: alias ?? shape.value.name, type: shape.value.type };
    return { name: r.name, type: 'String' };
  });

  const keyed = series.map((s) => {
    const byName = new Map(s.labels.map((l) => [l.name, l.value]));
    return { s, key: labels.map((name) => byName.get(name) ?? null) };
  });
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      const c = compareNullable(a.key[i] ?? null, b.key[i] ?? null);
      if (c !== 0) return c;
    }
    return 0;
  });
  const rows: unknown[][] = [];
  for (const { s, key } of keyed) {
    const order = s.t.map((_, i) => i).sort((a, b) => (s.t[a] as number) - (s.t[b] as number));
    for (const i of order) {
      const v = s.v[i] as number;
      rows.push(
        roles.map((r) => {
          if (r.role === 'time') return BigInt(Math.round(s.t[i] as number));
          if (r.role === 'value') {
            if (shape.value.type === 'Float64') return v;
            return Number.isFinite(v) ? BigInt(Math.trunc(v)) : null;
          }
          return key[labels.indexOf(r.name)] ?? null;
        }),
      );
    }
  }
  return { kind: 'records', columns, rows };
}
