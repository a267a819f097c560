/**
 * Binding: syntax tree → typed `PlanExpr`. Resolves columns through the scope, types literals,
 * applies coercion (inserting casts so each operator sees one operand type), folds casts of
 * literals, and applies GreptimeDB's literal rewrites next to columns: a string or integer
 * compared with a timestamp column becomes a timestamp (strings read in the session time zone),
 * a string compared with a boolean column becomes a boolean.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, NANOS_PER_UNIT, timeUnitOf } from '../../../shared/types.js';
import { lookupFunction } from '../functions/registry.js';
import type { Expr, FunctionCall, Ident } from '../parse/ast.js';
import { arithmeticTypes, commonType, comparisonType, planError } from '../types/coercion.js';
import { fixedIntervalNanos, type Interval, intervalOfText, packInterval, parseInterval } from '../types/interval.js';
import { parseTimestampNanos } from '../types/timestamps.js';
import {
  arrowNameOf,
  dataTypeOfArrowName,
  dataTypeOfSql,
  isDuration,
  isInteger,
  isNumericOrDecimal,
  isTimestamp,
} from '../types/type-names.js';
import { castValue, negateValue, type Value } from '../types/values.js';
import { bindCase, bindIsDistinct, bindObjDescription } from './bind-forms.js';
import { normalizeTypedString, numberLiteral } from './naming.js';
import type { ArithmeticOperator, ComparisonOperator, PlanExpr, RangeAggregate } from './plan.js';
import { castTo, literal, requireBoolean } from './plan-nodes.js';
import { noFieldError, normalizeIdent, type Scope } from './scope.js';

/** True when an expression is written as an interval: `INTERVAL '...'` or `'...'::INTERVAL`. */
function isIntervalExpr(expr: Expr): boolean {
  let e = expr;
  while (e.kind === 'nested') e = e.expr;
  return e.kind === 'interval' || (e.kind === 'cast' && e.dataType.name === 'INTERVAL');
}

/** Subquery expressions as they appear in the syntax tree. */
export type SubqueryExpr = Extract<Expr, { kind: 'subquery' | 'exists' | 'in_subquery' }>;

/** Binds subquery expressions (executed beforehand by the router, see subquery.ts). */
export interface SubqueryHook {
  bind(expr: SubqueryExpr, binder: Binder): PlanExpr;
}

/**
 * The scope of an enclosing query, for correlated subqueries. With `values`, a reference to an
 * outer column binds to that value (one evaluation per outer row); without, it binds to NULL and
 * is recorded in `used` (the probe that finds out whether a subquery is correlated).
 */
export interface OuterScope {
  scope: Scope | null;
  values: Value[] | null;
  used: Set<number>;
  parent: OuterScope | null;
}

/** What binding needs besides the expression. */
export interface BindContext {
  /** Columns in reach; null for a query without FROM. */
  scope: Scope | null;
  timezone: string;
  /**
   * The session's current database, which `database()` and `current_schema()` return; absent
   * where a statement cannot ask for it (those calls are then unknown functions).
   */
  database?: string | undefined;
  /** The session's user, which `session_user()` returns; absent where `database` is. */
  user?: string | undefined;
  /** Table comments by table id, for `obj_description`; read only when a query calls it. */
  tableComments?: (() => Array<[id: number, comment: string]>) | undefined;
  /** How to refuse an aggregate here; null when aggregates are allowed. */
  aggregateError: ((name: string) => DbError) | null;
  subqueries?: SubqueryHook | undefined;
  outer?: OuterScope | null | undefined;
  /** Binds `OVER (...)` calls (window functions); absent where windows are not allowed. */
  windows?: { bind(call: FunctionCall, binder: Binder): PlanExpr } | undefined;
  /** Interprets `RANGE ... FILL ...` of an aggregate; present only in range queries. */
  range?: ((call: FunctionCall, binder: Binder) => RangeAggregate) | undefined;
}

/** Binds expressions of one clause; `with` derives binders with other aggregate policies. */
export class Binder {
  constructor(readonly ctx: BindContext) {}

  /** A copy of this binder with a different aggregate policy. */
  with(aggregateError: BindContext['aggregateError']): Binder {
    return new Binder({ ...this.ctx, aggregateError });
  }

  /** A copy of this binder with some context replaced. */
  derive(extra: Partial<BindContext>): Binder {
    return new Binder({ ...this.ctx, ...extra });
  }

  bind(expr: Expr): PlanExpr {
    switch (expr.kind) {
      case 'identifier':
        return this.bindColumn(expr.parts.map(normalizeIdent));
      case 'number': {
        const lit = numberLiteral(expr.text);
        return literal(lit.value, lit.type);
      }
      case 'string':
        return literal(expr.value, 'String');
      case 'boolean':
        return literal(expr.value, 'Boolean');
      case 'null':
        return literal(null, 'Null');
      case 'typed_string':
        return castTo(literal(normalizeTypedString(expr.value), 'String'), dataTypeOfSql(expr.dataType));
      case 'default':
        throw planError('DEFAULT is only allowed in INSERT ... VALUES');
      case 'nested':
        return this.bind(expr.expr);
      case 'unary':
        return this.bindUnary(expr.op, expr.expr);
      case 'binary': {
        if ((expr.op === '+' || expr.op === '-') && isIntervalExpr(expr.right)) {
          return this.bindIntervalArithmetic(expr.left, expr.right, expr.op === '+' ? 1 : -1);
        }
        if (expr.op === '+' && isIntervalExpr(expr.left)) return this.bindIntervalArithmetic(expr.right, expr.left, 1);
        const left = this.bind(expr.left);
        const right = this.bind(expr.right);
        switch (expr.op) {
          case '~':
          case '~*':
          case '!~':
          case '!~*':
            return this.bindRegexMatch(expr.op, left, right);
          case 'AND':
          case 'OR': {
            if (!isLogical(left.type) || !isLogical(right.type)) {
              throw planError(
                `Cannot infer common argument type for logical boolean operation ${arrowNameOf(left.type)} ${expr.op} ${arrowNameOf(right.type)}`,
              );
            }
            return {
              kind: expr.op === 'AND' ? 'and' : 'or',
              left: castTo(left, 'Boolean'),
              right: castTo(right, 'Boolean'),
              type: 'Boolean',
            };
          }
          case '=':
          case '!=':
          case '<':
          case '<=':
          case '>':
          case '>=':
            return this.compare(expr.op, left, right);
          default:
            return arithmeticNode(expr.op, left, right);
        }
      }
      case 'between': {
        const arg = this.bind(expr.expr);
        const low = this.compare('>=', arg, this.bind(expr.low));
        const high = this.compare('<=', arg, this.bind(expr.high));
        const inside: PlanExpr = { kind: 'and', left: low, right: high, type: 'Boolean' };
        return expr.negated ? { kind: 'not', arg: inside, type: 'Boolean' } : inside;
      }
      case 'in_list':
        return this.bindInList(expr.expr, expr.list, expr.negated);
      case 'like': {
        const arg = this.bind(expr.expr);
        const pattern = this.bind(expr.pattern);
        for (const t of [arg.type, pattern.type]) {
          if (t !== 'String' && t !== 'Null') {
            throw planError(
              `There isn't a common type to coerce ${arrowNameOf(arg.type)} and ${arrowNameOf(pattern.type)} in LIKE expression`,
            );
          }
        }
        return {
          kind: 'like',
          arg: castTo(arg, 'String'),
          pattern: castTo(pattern, 'String'),
          negated: expr.negated,
          caseInsensitive: expr.caseInsensitive,
          escape: expr.escape,
          type: 'Boolean',
        };
      }
      case 'is': {
        let arg = this.bind(expr.expr);
        if (expr.test !== 'NULL') arg = requireBoolean(arg, `IS ${expr.test}`);
        return { kind: 'is', arg, test: expr.test, negated: expr.negated, type: 'Boolean' };
      }
      case 'is_distinct':
        return bindIsDistinct(this, expr);
      case 'cast': {
        const arg = this.bind(expr.expr);
        const type = dataTypeOfSql(expr.dataType);
        if (expr.style === 'try_cast') {
          if (arg.kind === 'literal') {
            try {
              return castTo(arg, type);
            } catch {
              return literal(null, type);
            }
          }
          return arg.type === type ? arg : { kind: 'cast', arg, safe: true, type };
        }
        return castTo(arg, type);
      }
      case 'function':
        return this.bindFunction(expr);
      case 'case':
        return bindCase(this, expr);
      case 'interval':
        // An interval selected as a value (`SELECT INTERVAL '1 day'`): a packed constant.
        return literal(packInterval(this.intervalOf(expr)), 'IntervalMonthDayNano');
      case 'subquery':
      case 'exists':
      case 'in_subquery':
        if (!this.ctx.subqueries)
          throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: subqueries here');
        return this.ctx.subqueries.bind(expr, this);
      case 'grouping_set':
        // The aggregate planner expands grouping sets before binding their expressions.
        throw planError(`${expr.form} is only valid as a GROUP BY item`);
      default: {
        const never: never = expr;
        throw new Error(`unknown expression ${JSON.stringify(never)}`);
      }
    }
  }

  private bindColumn(parts: string[]): PlanExpr {
    const scope = this.ctx.scope;
    const i = scope ? scope.lookup(parts) : -1;
    if (i < 0 || !scope) {
      for (let outer = this.ctx.outer ?? null; outer; outer = outer.parent) {
        const j = outer.scope ? outer.scope.lookup(parts) : -1;
        if (j < 0 || !outer.scope) continue;
        outer.used.add(j);
        const type = outer.scope.columns[j]?.type ?? 'Null';
        return literal(outer.values ? (outer.values[j] ?? null) : null, type);
      }
      throw noFieldError(parts, scope?.columns ?? []);
    }
    const column = scope.columns[i];
    return { kind: 'column', index: scope.slotOf(i), type: column?.type ?? 'Null' };
  }

  /** `ts ± INTERVAL '...'` (and `INTERVAL '...' + ts`): calendar arithmetic on the timestamp. */
  private bindIntervalArithmetic(valueExpr: Expr, intervalExpr: Expr, sign: 1 | -1): PlanExpr {
    const arg = this.bind(valueExpr);
    const interval = this.intervalOf(intervalExpr);
    if (arg.type === 'IntervalMonthDayNano') {
      // Interval ± interval: ordinary arithmetic on interval values.
      const right = literal(packInterval(interval), 'IntervalMonthDayNano');
      return sign > 0 ? arithmeticNode('+', arg, right) : arithmeticNode('-', arg, right);
    }
    let target = arg;
    if (arg.type === 'Date' || arg.type === 'String') target = castTo(arg, 'TimestampNanosecond');
    if (!isTimestamp(target.type)) {
      throw planError(
        `Cannot coerce arithmetic expression ${arrowNameOf(arg.type)} ${sign > 0 ? '+' : '-'} Interval(MonthDayNano) to valid types`,
      );
    }
    const node: PlanExpr = {
      kind: 'add_interval',
      arg: target,
      months: sign * interval.months,
      days: sign * interval.days,
      nanos: BigInt(sign) * interval.nanos,
      type: target.type,
    };
    // DATE ± INTERVAL stays a date (DataFusion's Date32 arithmetic).
    return arg.type === 'Date' ? castTo(node, 'Date') : node;
  }

  /** The constant interval an interval expression spells. */
  intervalOf(expr: Expr): Interval {
    let e = expr;
    while (e.kind === 'nested') e = e.expr;
    if (e.kind === 'cast') {
      const inner = this.bind(e.expr);
      if (inner.kind === 'literal' && typeof inner.value === 'string') return parseInterval(inner.value);
      if (isIntervalExpr(e.expr)) return this.intervalOf(e.expr);
    } else if (e.kind === 'interval') {
      const value = this.bind(e.value);
      if (value.kind === 'literal' && value.value !== null) return intervalOfText(String(value.value), e.unit);
    }
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: non-constant INTERVAL values');
  }

  /** A fixed-length interval as an Int64 literal of nanoseconds (months are refused). */
  private intervalNanosLiteral(expr: Expr): PlanExpr {
    const nanos = fixedIntervalNanos(this.intervalOf(expr));
    if (nanos === null) {
      throw new DbError(
        ErrorCode.Unsupported,
        'This feature is not implemented: month intervals as function arguments',
      );
    }
    return literal(nanos, 'Int64');
  }

  /** `arrow_cast(x, 'Int64')`: a cast to the Arrow type the (constant) name spells. */
  private bindArrowCast(call: FunctionCall): PlanExpr {
    if (call.args.length !== 2) throw planError(`arrow_cast needs 2 arguments, got ${call.args.length}`);
    const arg = this.bind(call.args[0] as Expr);
    const name = this.bind(call.args[1] as Expr);
    if (name.kind !== 'literal' || typeof name.value !== 'string') {
      throw planError('arrow_cast requires its second argument to be a constant string');
    }
    return castTo(arg, dataTypeOfArrowName(name.value));
  }

  /** `a ~ b`, `a ~* b`, `a !~ b`, `a !~* b`: regular expression matches. */
  private bindRegexMatch(op: '~' | '~*' | '!~' | '!~*', left: PlanExpr, right: PlanExpr): PlanExpr {
    for (const t of [left.type, right.type]) {
      if (t !== 'String' && t !== 'Null') {
        throw planError(
          `Cannot infer common argument type for regex operation ${arrowNameOf(left.type)} ${op} ${arrowNameOf(right.type)}`,
        );
      }
    }
    const args = [castTo(left, 'String'), castTo(right, 'String')];
    if (op.includes('*')) args.push(literal('i', 'String'));
    const matched: PlanExpr = { kind: 'call', name: 'regexp_like', args, type: 'Boolean' };
    return op.startsWith('!') ? { kind: 'not', arg: matched, type: 'Boolean' } : matched;
  }

  private bindUnary(op: '-' | '+' | 'NOT', inner: Expr): PlanExpr {
    let e = inner;
    while (e.kind === 'nested') e = e.expr;
    if (op === '-' && e.kind === 'number') {
      const lit = numberLiteral(`-${e.text}`);
      return literal(lit.value, lit.type);
    }
    const arg = this.bind(inner);
    if (op === 'NOT') return { kind: 'not', arg: requireBoolean(arg, 'NOT'), type: 'Boolean' };
    if (op === '+') return arg;
    if (arg.type === 'Null') return arg;
    if (!isNumericOrDecimal(arg.type) && !isDuration(arg.type) && arg.type !== 'IntervalMonthDayNano') {
      throw planError(`Negation only supports numeric, interval and timestamp types`);
    }
    if (arg.kind === 'literal') return literal(negateValue(arg.value, arg.type), arg.type);
    return { kind: 'negate', arg, type: arg.type };
  }

  /**
   * GreptimeDB's literal rewrite next to a column: text or integers against a timestamp column
   * become timestamps (text in the session zone), text against a boolean column becomes a boolean.
   */
  private rewriteLiteralFor(column: PlanExpr, other: PlanExpr): PlanExpr {
    if (column.kind !== 'column' || other.kind !== 'literal' || other.value === null) return other;
    const unit = timeUnitOf(column.type);
    if (unit) {
      if (typeof other.value === 'string') {
        const nanos = parseTimestampNanos(other.value, this.ctx.timezone);
        if (nanos === null) {
          throw new DbError(
            ErrorCode.PlanQuery,
            `Failed to plan SQL: Failed to parse a string into Timestamp, raw string: ${other.value}`,
          );
        }
        const per = NANOS_PER_UNIT[unit];
        return nanos % per === 0n ? literal(nanos / per, column.type) : literal(nanos, 'TimestampNanosecond');
      }
      if (isInteger(other.type)) return literal(BigInt(other.value as number | bigint), column.type);
    }
    if (column.type === 'Boolean' && typeof other.value === 'string') {
      const lower = other.value.toLowerCase();
      if (lower === 'true' || lower === 'false') return literal(lower === 'true', 'Boolean');
      throw new DbError(
        ErrorCode.PlanQuery,
        `Failed to plan SQL: column:${arrowNameOf(column.type)}. Casting value:Utf8("${other.value}") to Boolean is invalid`,
      );
    }
    return other;
  }

  /** Binds a comparison of two bound operands, applying literal rewrites and coercion. */
  compare(op: ComparisonOperator, leftIn: PlanExpr, rightIn: PlanExpr): PlanExpr {
    const left = this.rewriteLiteralFor(rightIn, leftIn);
    const right = this.rewriteLiteralFor(leftIn, rightIn);
    const t = comparisonType(left.type, right.type);
    if (t === null) {
      throw planError(
        `Cannot infer common argument type for comparison operation ${arrowNameOf(left.type)} ${op} ${arrowNameOf(right.type)}`,
      );
    }
    // Cast a literal to the other side's type when that loses nothing (DataFusion's
    // unwrap-cast optimisation): the column is then compared without converting every row.
    for (const [a, b, flip] of [
      [left, right, false],
      [right, left, true],
    ] as const) {
      if (
        b.kind === 'literal' &&
        a.kind !== 'literal' &&
        a.type !== t &&
        isNumericOrDecimal(a.type) &&
        isNumericOrDecimal(b.type)
      ) {
        const narrowed = losslessCast(b, a.type);
        if (narrowed)
          return { kind: 'compare', op, left: flip ? narrowed : a, right: flip ? a : narrowed, type: 'Boolean' };
      }
    }
    return { kind: 'compare', op, left: castTo(left, t), right: castTo(right, t), type: 'Boolean' };
  }

  private bindInList(exprIn: Expr, listIn: Expr[], negated: boolean): PlanExpr {
    const arg = this.bind(exprIn);
    const list = listIn.map((e) => this.rewriteLiteralFor(arg, this.bind(e)));
    const t = commonType([arg.type, ...list.map((e) => e.type)]);
    if (t === null) {
      throw planError(
        `Cannot infer common argument type for IN list: ${[arg, ...list].map((e) => arrowNameOf(e.type)).join(', ')}`,
      );
    }
    return { kind: 'in', arg: castTo(arg, t), list: list.map((e) => castTo(e, t)), negated, type: 'Boolean' };
  }

  private bindFunction(call: FunctionCall): PlanExpr {
    const written = normalizeIdent(call.name[call.name.length - 1] as Ident);
    if (call.over) {
      if (!this.ctx.windows) {
        throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: window functions here');
      }
      return this.ctx.windows.bind(call, this);
    }
    if (written === 'arrow_cast') return this.bindArrowCast(call);
    // GreptimeDB's session functions: constants of the statement, bound here because function
    // implementations see only their arguments.
    if ((written === 'database' || written === 'current_schema') && this.ctx.database !== undefined) {
      if (call.args.length > 0) {
        throw planError(`${written} function requires 0 arguments, got ${call.args.length}`);
      }
      return literal(this.ctx.database, 'String');
    }
    if (written === 'obj_description') return bindObjDescription(this, call, this.ctx.tableComments?.() ?? []);
    if (written === 'session_user' && this.ctx.user !== undefined) {
      if (call.args.length > 0) throw planError(`session_user function requires 0 arguments, got ${call.args.length}`);
      return literal(this.ctx.user, 'String');
    }
    if (
      (written === 'date_add' || written === 'date_sub') &&
      call.args.length === 2 &&
      isIntervalExpr(call.args[1] as Expr)
    ) {
      return this.bindIntervalArithmetic(call.args[0] as Expr, call.args[1] as Expr, written === 'date_add' ? 1 : -1);
    }
    const fn = lookupFunction(written);
    if (!fn) throw planError(`Invalid function '${written}'.`);
    if (fn.kind === 'aggregate') {
      if (this.ctx.aggregateError) throw this.ctx.aggregateError(fn.name);
      const inner = this.with((name) =>
        planError(`Aggregate function ${name} cannot be nested in another aggregate function`),
      );
      const args = call.star ? [] : call.args.map((a) => inner.bind(a));
      const sig = fn.bind(
        args.map((a) => a.type),
        args.map((a) => (a.kind === 'literal' ? a.value : undefined)),
      );
      const orderItems = call.orderBy ?? [];
      const orderKeys = orderItems.map((o) => inner.bind(o.expr));
      const node: PlanExpr = {
        kind: 'aggregate',
        name: fn.name,
        args: [...args.map((a, i) => castTo(a, sig.argTypes[i] ?? a.type)), ...orderKeys],
        // `count(DISTINCT *)` counts rows, as in GreptimeDB.
        distinct: call.distinct && !call.star,
        type: sig.returnType,
      };
      if (orderItems.length > 0) {
        node.order = orderItems.map((o) => ({
          descending: o.asc === false,
          nullsFirst: o.nullsFirst ?? o.asc === false,
        }));
      }
      if (call.range) {
        if (!this.ctx.range) throw planError(`RANGE of ${fn.name} needs an ALIGN clause`);
        node.range = this.ctx.range(call, this);
      }
      return node;
    }
    if (call.range && !call.range.inherited) {
      throw planError(`RANGE is only valid after an aggregate function, not ${fn.name}`);
    }
    if (call.star || call.distinct) throw planError(`${fn.name} does not support ${call.star ? '*' : 'DISTINCT'}`);
    // Interval arguments (`date_bin(INTERVAL '1 hour', ts)`) arrive as nanosecond counts, except
    // where the function looks at the interval value itself.
    const intervalAsNanos = fn.name !== 'arrow_typeof';
    const args = call.args.map((a) =>
      intervalAsNanos && isIntervalExpr(a) ? this.intervalNanosLiteral(a) : this.bind(a),
    );
    const sig = fn.bind(
      args.map((a) => a.type),
      args.map((a) => (a.kind === 'literal' ? a.value : undefined)),
    );
    return {
      kind: 'call',
      name: fn.name,
      args: args.map((a, i) => castTo(a, sig.argTypes[i] ?? a.type)),
      type: sig.returnType,
    };
  }
}

/** An arithmetic node with each operand cast to the type the operator wants of it. */
export function arithmeticNode(op: ArithmeticOperator, left: PlanExpr, right: PlanExpr): PlanExpr {
  const types = arithmeticTypes(op, left.type, right.type);
  return {
    kind: 'arithmetic',
    op,
    left: castTo(left, types.left),
    right: castTo(right, types.right),
    type: types.result,
  };
}

function isLogical(t: DataType): boolean {
  return t === 'Boolean' || t === 'Null';
}

/** The literal cast to `type` when the round trip is exact, else null. */
function losslessCast(lit: Extract<PlanExpr, { kind: 'literal' }>, type: DataType): PlanExpr | null {
  if (isTimestamp(type)) return null;
  try {
    const v = castValue(lit.value, lit.type, type);
    const back = castValue(v, type, lit.type);
    return back === lit.value ? literal(v, type) : null;
  } catch {
    return null;
  }
}
