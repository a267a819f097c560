/**
 * Vectorised evaluation of bound expressions: one call per expression node per batch, with tight
 * loops over columns instead of a tree walk per row. SQL NULL follows three-valued logic: `AND`
 * is false if either side is false, `OR` true if either is true, otherwise NULL propagates.
 *
 * Integer arithmetic wraps like Rust's (Int64 on bigint, narrower types in doubles with explicit
 * wrapping); integer division truncates and division by zero is an error, as in DataFusion.
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { ScanChunk } from '../../../shared/scan.js';
import { type DataType, NANOS_PER_UNIT, timeUnitOf, type Vector } from '../../../shared/types.js';
import { compileLike } from '../functions/like.js';
import { scalarFunction } from '../functions/registry.js';
import type { EvalContext, Int64Column } from '../functions/types.js';
import { decimalArithmetic } from '../types/decimal.js';
import { addInterval, combineIntervals, packInterval, unpackInterval } from '../types/interval.js';
import { isBigIntType, isDecimal, isInteger } from '../types/type-names.js';
import {
  castValue,
  compareValues,
  negateValue,
  type Value,
  valueKey,
  wrapBigInt,
  wrapInteger,
} from '../types/values.js';
import type { ArithmeticOperator, ComparisonOperator, PlanExpr } from './plan.js';

/** Rows held column by column; every column has `rowCount` values. */
export interface Batch {
  rowCount: number;
  columns: Value[][];
  /** The scan chunk the columns were read from, when they were (series-runs.ts reads it). */
  chunk?: ScanChunk | undefined;
  /**
   * Storage vectors behind some columns, for sinks that keep them typed: `columns[i]` holds the
   * values of `vectors[i]` at rows `selection` (all rows in order when absent). Undefined where a
   * column's values differ from its vector's (casts, fills, tags of non-text types).
   */
  vectors?: Array<Vector | undefined> | undefined;
  selection?: Uint32Array | undefined;
}

function divideByZero(): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, 'Arrow error: Divide by zero error');
}

/** Evaluates `expr` over every row of `batch`. The returned array must not be mutated. */
export function evaluate(expr: PlanExpr, batch: Batch, ctx: EvalContext): Value[] {
  const n = batch.rowCount;
  switch (expr.kind) {
    case 'column':
      return batch.columns[expr.index] as Value[];
    case 'literal':
      return new Array<Value>(n).fill(expr.value);
    case 'arithmetic': {
      const a = evaluate(expr.left, batch, ctx);
      const b = evaluate(expr.right, batch, ctx);
      if (isDecimal(expr.type)) return decimalColumns(expr.op, expr.left.type, expr.right.type, expr.type, a, b, n);
      if (expr.type === 'IntervalMonthDayNano') return intervalColumns(expr.op, a, b, n);
      return arithmetic(expr.op, expr.left.type, a, b, n);
    }
    case 'compare':
      return compare(expr.op, evaluate(expr.left, batch, ctx), evaluate(expr.right, batch, ctx), n);
    case 'and':
    case 'or':
      return logical(expr.kind, evaluate(expr.left, batch, ctx), evaluate(expr.right, batch, ctx), n);
    case 'not': {
      const a = evaluate(expr.arg, batch, ctx);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : !a[i];
      return out;
    }
    case 'negate': {
      const a = evaluate(expr.arg, batch, ctx);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) {
        const v = a[i] as Value;
        out[i] =
          v === null
            ? null
            : isDecimal(expr.type) || expr.type === 'IntervalMonthDayNano'
              ? negateValue(v, expr.type)
              : typeof v === 'bigint'
                ? wrapBigInt(expr.type, -v)
                : isInteger(expr.type)
                  ? wrapInteger(expr.type, -(v as number))
                  : -(v as number);
      }
      return out;
    }
    case 'is': {
      const a = evaluate(expr.arg, batch, ctx);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) {
        const v = a[i];
        let r: boolean;
        switch (expr.test) {
          case 'NULL':
          case 'UNKNOWN':
            r = v === null;
            break;
          case 'TRUE':
            r = v === true;
            break;
          case 'FALSE':
            r = v === false;
            break;
        }
        out[i] = expr.negated ? !r : r;
      }
      return out;
    }
    case 'in':
      return inList(expr, batch, ctx);
    case 'like':
      return like(expr, batch, ctx);
    case 'cast': {
      const a = evaluate(expr.arg, batch, ctx);
      const out = new Array<Value>(n);
      const from = expr.arg.type;
      for (let i = 0; i < n; i++) {
        if (!expr.safe) out[i] = castValue(a[i] as Value, from, expr.type);
        else {
          try {
            out[i] = castValue(a[i] as Value, from, expr.type);
          } catch {
            out[i] = null;
          }
        }
      }
      return out;
    }
    case 'call': {
      const fn = scalarFunction(expr.name);
      const int64 = fn.int64Arg === undefined ? null : int64ColumnOf(expr.args[fn.int64Arg], batch);
      if (int64 !== null && fn.evaluateInt64 !== undefined) {
        const args = expr.args.map((a, i) => (i === fn.int64Arg ? undefined : evaluate(a, batch, ctx)));
        return fn.evaluateInt64(args, int64, n, ctx, expr.type);
      }
      return fn.evaluate(
        expr.args.map((a) => evaluate(a, batch, ctx)),
        n,
        ctx,
        expr.type,
        expr.args.map((a) => a.type),
      );
    }
    case 'case':
      return caseWhen(expr, batch, ctx);
    case 'add_interval':
      return addIntervalColumn(expr, evaluate(expr.arg, batch, ctx), n);
    case 'lookup':
      return lookup(expr, batch, ctx);
    case 'aggregate':
      throw new Error('aggregate expressions are evaluated by the aggregation step');
    case 'window':
      throw new Error('window functions are evaluated by the window step');
  }
}

/** `arg`'s storage cells, when it is a column read straight from an int64 vector without NULLs. */
function int64ColumnOf(arg: PlanExpr | undefined, batch: Batch): Int64Column | null {
  if (arg?.kind !== 'column') return null;
  const vector = batch.vectors?.[arg.index];
  if (vector?.kind !== 'i64' || vector.valid !== undefined) return null;
  const values = vector.values as BigInt64Array;
  const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
  return { values, words, selection: batch.selection };
}

/** Row indexes for which `predicate` is TRUE (NULL and FALSE both drop the row). */
export function selectRows(predicate: PlanExpr, batch: Batch, ctx: EvalContext): Uint32Array {
  const mask = evaluate(predicate, batch, ctx);
  const out = new Uint32Array(batch.rowCount);
  let k = 0;
  for (let i = 0; i < batch.rowCount; i++) if (mask[i] === true) out[k++] = i;
  return out.subarray(0, k);
}

/**
 * The rows at `indexes`, in that order. Over storage vectors the columns stay lazy (a column no
 * expression reads is never boxed) and the vectors follow by selection.
 */
export function takeRows(batch: Batch, indexes: Uint32Array | number[]): Batch {
  const m = indexes.length;
  if (batch.vectors !== undefined) return takeVectorRows(batch, indexes);
  return {
    rowCount: m,
    columns: batch.columns.map((c) => {
      const out = new Array<Value>(m);
      for (let i = 0; i < m; i++) out[i] = c[indexes[i] as number] as Value;
      return out;
    }),
  };
}

function takeVectorRows(batch: Batch, indexes: Uint32Array | number[]): Batch {
  const m = indexes.length;
  const selection = new Uint32Array(m);
  const prior = batch.selection;
  for (let i = 0; i < m; i++) {
    const r = indexes[i] as number;
    selection[i] = prior === undefined ? r : (prior[r] as number);
  }
  const columns: Value[][] = [];
  for (let c = 0; c < batch.columns.length; c++) {
    let taken: Value[] | null = null;
    Object.defineProperty(columns, c, {
      enumerable: true,
      get: () => {
        if (taken === null) {
          const source = batch.columns[c] as Value[];
          taken = new Array<Value>(m);
          for (let i = 0; i < m; i++) taken[i] = source[indexes[i] as number] as Value;
        }
        return taken;
      },
    });
  }
  return { rowCount: m, columns, vectors: batch.vectors, selection };
}

/** Keeps the rows where `predicate` is TRUE. */
export function filterBatch(predicate: PlanExpr, batch: Batch, ctx: EvalContext): Batch {
  const rows = selectRows(predicate, batch, ctx);
  return rows.length === batch.rowCount ? batch : takeRows(batch, rows);
}

function arithmetic(op: ArithmeticOperator, type: DataType, a: Value[], b: Value[], n: number): Value[] {
  const out = new Array<Value>(n);
  if (op === '||') {
    for (let i = 0; i < n; i++) {
      const x = a[i];
      const y = b[i];
      out[i] = x === null || y === null ? null : `${x as string}${y as string}`;
    }
    return out;
  }
  if (isBigIntType(type)) {
    for (let i = 0; i < n; i++) {
      const x = a[i] as bigint | null;
      const y = b[i] as bigint | null;
      if (x === null || y === null) {
        out[i] = null;
        continue;
      }
      let r: bigint;
      switch (op) {
        case '+':
          r = x + y;
          break;
        case '-':
          r = x - y;
          break;
        case '*':
          r = x * y;
          break;
        case '/':
          if (y === 0n) throw divideByZero();
          r = x / y;
          break;
        case '%':
          if (y === 0n) throw divideByZero();
          r = x % y;
          break;
        case '&':
          r = x & y;
          break;
        case '|':
          r = x | y;
          break;
        case '^':
          r = x ^ y;
          break;
      }
      out[i] = wrapBigInt(type, r);
    }
    return out;
  }
  const integer = isInteger(type);
  const float32 = type === 'Float32';
  const imul = type === 'Int32' || type === 'UInt32';
  for (let i = 0; i < n; i++) {
    const x = a[i] as number | null;
    const y = b[i] as number | null;
    if (x === null || y === null) {
      out[i] = null;
      continue;
    }
    let r: number;
    switch (op) {
      case '+':
        r = x + y;
        break;
      case '-':
        r = x - y;
        break;
      case '*':
        r = integer && imul ? Math.imul(x, y) : x * y;
        break;
      case '/':
        if (integer) {
          if (y === 0) throw divideByZero();
          r = Math.trunc(x / y);
        } else r = x / y;
        break;
      case '%':
        if (integer && y === 0) throw divideByZero();
        r = x % y;
        break;
      case '&':
        r = x & y;
        break;
      case '|':
        r = x | y;
        break;
      case '^':
        r = x ^ y;
        break;
    }
    out[i] = integer ? wrapInteger(type, r) : float32 ? Math.fround(r) : r;
  }
  return out;
}

function decimalColumns(
  op: ArithmeticOperator,
  leftType: DataType,
  rightType: DataType,
  resultType: DataType,
  a: Value[],
  b: Value[],
  n: number,
): Value[] {
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const x = a[i] as bigint | null;
    const y = b[i] as bigint | null;
    out[i] = x === null || y === null ? null : decimalArithmetic(op, x, y, leftType, rightType, resultType);
  }
  return out;
}

/** Interval ± interval, part by part (months, days and nanoseconds never carry into each other). */
function intervalColumns(op: ArithmeticOperator, a: Value[], b: Value[], n: number): Value[] {
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const x = a[i] as bigint | null;
    const y = b[i] as bigint | null;
    out[i] =
      x === null || y === null
        ? null
        : packInterval(combineIntervals(unpackInterval(x), unpackInterval(y), op === '-' ? -1 : 1));
  }
  return out;
}

function compare(op: ComparisonOperator, a: Value[], b: Value[], n: number): Value[] {
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const x = a[i] as Value;
    const y = b[i] as Value;
    if (x === null || y === null) {
      out[i] = null;
      continue;
    }
    const c = compareValues(x, y);
    switch (op) {
      case '=':
        out[i] = c === 0;
        break;
      case '!=':
        out[i] = c !== 0;
        break;
      case '<':
        out[i] = c < 0;
        break;
      case '<=':
        out[i] = c <= 0;
        break;
      case '>':
        out[i] = c > 0;
        break;
      case '>=':
        out[i] = c >= 0;
        break;
    }
  }
  return out;
}

function logical(kind: 'and' | 'or', a: Value[], b: Value[], n: number): Value[] {
  const out = new Array<Value>(n);
  const decisive = kind === 'or';
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x === decisive || y === decisive) out[i] = decisive;
    else if (x === null || y === null) out[i] = null;
    else out[i] = !decisive;
  }
  return out;
}

function inList(expr: Extract<PlanExpr, { kind: 'in' }>, batch: Batch, ctx: EvalContext): Value[] {
  const n = batch.rowCount;
  const a = evaluate(expr.arg, batch, ctx);
  const out = new Array<Value>(n);
  if (expr.list.every((e) => e.kind === 'literal')) {
    const set = new Set<Value>();
    let hasNull = false;
    for (const e of expr.list) {
      const v = (e as { value: Value }).value;
      if (v === null) hasNull = true;
      else set.add(v);
    }
    for (let i = 0; i < n; i++) {
      const v = a[i] as Value;
      if (v === null) out[i] = null;
      else if (set.has(v)) out[i] = !expr.negated;
      else out[i] = hasNull ? null : expr.negated;
    }
    return out;
  }
  const items = expr.list.map((e) => evaluate(e, batch, ctx));
  for (let i = 0; i < n; i++) {
    const v = a[i] as Value;
    if (v === null) {
      out[i] = null;
      continue;
    }
    let found = false;
    let sawNull = false;
    for (const item of items) {
      const w = item[i] as Value;
      if (w === null) sawNull = true;
      else if (compareValues(v, w) === 0) {
        found = true;
        break;
      }
    }
    out[i] = found ? !expr.negated : sawNull ? null : expr.negated;
  }
  return out;
}

function like(expr: Extract<PlanExpr, { kind: 'like' }>, batch: Batch, ctx: EvalContext): Value[] {
  const n = batch.rowCount;
  const a = evaluate(expr.arg, batch, ctx);
  const p = evaluate(expr.pattern, batch, ctx);
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const s = a[i] as string | null;
    const pattern = p[i] as string | null;
    if (s === null || pattern === null) {
      out[i] = null;
      continue;
    }
    const matched = compileLike(pattern, expr.caseInsensitive, expr.escape).test(s);
    out[i] = expr.negated ? !matched : matched;
  }
  return out;
}

/** CASE evaluates each branch only on the rows that reach it, so errors in untaken branches do not fire. */
function caseWhen(expr: Extract<PlanExpr, { kind: 'case' }>, batch: Batch, ctx: EvalContext): Value[] {
  const out = new Array<Value>(batch.rowCount).fill(null);
  let remaining: number[] = Array.from({ length: batch.rowCount }, (_, i) => i);
  for (const w of expr.whens) {
    if (remaining.length === 0) break;
    const sub = takeRows(batch, remaining);
    const cond = evaluate(w.when, sub, ctx);
    const hit: number[] = [];
    const miss: number[] = [];
    for (let i = 0; i < remaining.length; i++) (cond[i] === true ? hit : miss).push(i);
    if (hit.length > 0) {
      const values = evaluate(w.result, takeRows(sub, hit), ctx);
      for (let k = 0; k < hit.length; k++) out[remaining[hit[k] as number] as number] = values[k] as Value;
    }
    remaining = miss.map((i) => remaining[i] as number);
  }
  if (expr.elseResult && remaining.length > 0) {
    const values = evaluate(expr.elseResult, takeRows(batch, remaining), ctx);
    for (let k = 0; k < remaining.length; k++) out[remaining[k] as number] = values[k] as Value;
  }
  return out;
}

function addIntervalColumn(expr: Extract<PlanExpr, { kind: 'add_interval' }>, a: Value[], n: number): Value[] {
  const unit = timeUnitOf(expr.type) ?? 'ns';
  const per = NANOS_PER_UNIT[unit];
  const interval = { months: expr.months, days: expr.days, nanos: expr.nanos };
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const v = a[i] as bigint | null;
    out[i] = v === null ? null : floorDiv(addInterval(v * per, interval, 1), per);
  }
  return out;
}

/** Answers of a correlated subquery for each row's key (see `lookup` in plan.ts). */
function lookup(expr: Extract<PlanExpr, { kind: 'lookup' }>, batch: Batch, ctx: EvalContext): Value[] {
  const n = batch.rowCount;
  const keys = expr.keys.map((k) => evaluate(k, batch, ctx));
  const arg = expr.arg ? evaluate(expr.arg, batch, ctx) : null;
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    let key = '';
    for (const k of keys) key += `${valueKey(k[i] as Value)}\u0000`;
    const answers = expr.answers.get(key) ?? [];
    if (expr.mode === 'scalar') out[i] = answers[0] ?? null;
    else if (expr.mode === 'exists') out[i] = answers.length > 0 !== expr.negated;
    else {
      const v = (arg as Value[])[i] as Value;
      if (v === null) out[i] = answers.length === 0 ? expr.negated : null;
      else {
        let found = false;
        let sawNull = false;
        for (const w of answers) {
          if (w === null) sawNull = true;
          else if (compareValues(v, w) === 0) found = true;
        }
        out[i] = found ? !expr.negated : sawNull ? null : expr.negated;
      }
    }
  }
  return out;
}

/** Evaluates a constant expression (no columns) to one value. */
export function evaluateConstant(expr: PlanExpr, ctx: EvalContext): Value {
  return evaluate(expr, { rowCount: 1, columns: [] }, ctx)[0] as Value;
}
