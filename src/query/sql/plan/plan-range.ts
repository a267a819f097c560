/**
 * GreptimeDB's range queries: `SELECT ts, host, avg(v) RANGE '5m' FILL PREV FROM t ALIGN '1m'
 * [TO origin] [BY (keys)] [FILL ...]`. Output rows are time slots `origin + k·align` per BY key;
 * an aggregate with RANGE r sees the rows with slot ≤ ts < slot + r.
 *
 * Work split: shards fold rows into partial states keyed by (BY values, slot) — a row counts
 * toward every slot whose window holds it — and the router merges them, fills missing slots
 * (FILL NULL | PREV | LINEAR | constant) per BY key, then projects, orders and limits.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, NANOS_PER_UNIT, timeUnitOf } from '../../../shared/types.js';
import type { Expr, FillSpec, FunctionCall, Ident, Query, Select } from '../parse/ast.js';
import { planError } from '../types/coercion.js';
import {
  combineIntervals,
  fixedIntervalNanos,
  type Interval,
  intervalDisplay,
  intervalOfText,
  parseInterval,
} from '../types/interval.js';
import { parseTimestampNanos, zoneOffsetSeconds } from '../types/timestamps.js';
import { isDecimal, isInteger } from '../types/type-names.js';
import type { Binder } from './binder.js';
import type { SqlSession } from './env.js';
import { evaluateConstant } from './eval.js';
import { durationName } from './naming.js';
import type { AggregateCall, MergePlan, PlanExpr, RangeAggregate, RangeFill, ShardPlan } from './plan.js';
import { mapChildren, planExprKey } from './plan.js';
import { aggregateCallOf } from './plan-aggregate.js';
import { type Item, resolveOrderBy } from './plan-order.js';
import { checkRangeFanOut, rangeBoundsOf } from './range-bounds.js';
import { type QuerySource, type SelectPlan, scanOf } from './scan-of.js';
import { normalizeIdent, type Scope } from './scope.js';

/** What planSelect has resolved before handing a range query over. */
export interface RangeContext {
  source: QuerySource;
  scope: Scope | null;
  filter: PlanExpr | null;
  base: Binder;
  limit: number | null;
  offset: number;
  session: SqlSession;
  nowNanos: bigint;
}

/** Range-query planning errors carry no `Failed to plan SQL` prefix in GreptimeDB. */
function rangeError(message: string): DbError {
  return new DbError(ErrorCode.PlanQuery, `Error during planning: ${message}`);
}

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
  y: 31_536_000_000_000_000n,
};

/** `5s`, `1h30m`, `1d`: PromQL-style durations, in nanoseconds; null when the text is not one. */
export function parseDurationText(text: string): bigint | null {
  const re = /(\d+)(ns|us|µs|ms|s|m|h|d|w|y)/gy;
  let total = 0n;
  let pos = 0;
  const trimmed = text.trim();
  if (trimmed.length === 0) return null;
  for (;;) {
    re.lastIndex = pos;
    const m = re.exec(trimmed);
    if (!m) break;
    total += BigInt(m[1] as string) * (DURATION_UNITS[m[2] as string] as bigint);
    pos = re.lastIndex;
    if (pos === trimmed.length) return total;
  }
  return null;
}

function unnest(expr: Expr): Expr {
  while (expr.kind === 'nested') expr = expr.expr;
  return expr;
}

/** The interval a RANGE/ALIGN duration expression denotes, or null when it is not one. */
function durationInterval(expr: Expr, binder: Binder): Interval | null {
  const e = unnest(expr);
  switch (e.kind) {
    case 'string': {
      const nanos = parseDurationText(e.value);
      if (nanos !== null) return { months: 0, days: 0, nanos };
      try {
        return parseInterval(e.value);
      } catch {
        return null;
      }
    }
    case 'interval': {
      const v = unnest(e.value);
      if (v.kind === 'string') return intervalOfText(v.value, e.unit);
      if (v.kind === 'number') return intervalOfText(v.text, e.unit);
      return null;
    }
    case 'cast':
      if (e.dataType.name !== 'INTERVAL') return null;
      return durationInterval(e.expr, binder);
    case 'binary': {
      if (e.op !== '+' && e.op !== '-') return null;
      const a = durationInterval(e.left, binder);
      const b = durationInterval(e.right, binder);
      return a && b ? combineIntervals(a, b, e.op === '+' ? 1 : -1) : null;
    }
    default:
      return null;
  }
}

/** A RANGE or ALIGN duration in nanoseconds, with GreptimeDB's refusals. */
export function durationNanos(expr: Expr, binder: Binder, scope: Scope | null): bigint {
  const interval = durationInterval(expr, binder);
  const shown = durationName(expr, scope);
  if (!interval) throw rangeError(`Illegal argument \`${shown}\` in range select query`);
  if (interval.months !== 0) {
    throw rangeError(`Year or month interval is not allowed in range query: ${intervalDisplay(interval)}`);
  }
  const nanos = fixedIntervalNanos(interval) as bigint;
  if (nanos <= 0n) throw rangeError(`Illegal argument \`${shown}\` in range select query`);
  return nanos;
}

/**
 * The ALIGN TO origin in epoch nanoseconds. Default: the session zone's offset (GreptimeDB aligns
 * to "epoch 0" of the zone); `NOW`; `CALENDAR` (UTC epoch); a timestamp; or an expression of
 * now() and intervals.
 */
function alignOrigin(to: Expr | null, session: SqlSession, nowNanos: bigint): bigint {
  const zoneOrigin = BigInt(zoneOffsetSeconds(session.timezone, 0)) * 1_000_000_000n;
  if (!to) return zoneOrigin;
  const e = unnest(to);
  const illegal = (text: string): DbError =>
    rangeError(
      `Illegal \`align to\` argument \`${text}\` in range select query, can't be parse as NOW/CALENDAR/Timestamp, error: Failed to parse a string into Timestamp, raw string: ${text}`,
    );
  if (e.kind === 'identifier' && e.parts.length === 1) {
    const word = (e.parts[0] as Ident).value;
    if (word.toUpperCase() === 'NOW') return nowNanos;
    if (word.toUpperCase() === 'CALENDAR') return zoneOrigin;
    throw illegal(word);
  }
  if (e.kind === 'string') {
    if (e.value.toUpperCase() === 'NOW') return nowNanos;
    if (e.value.toUpperCase() === 'CALENDAR') return zoneOrigin;
    const nanos = parseTimestampNanos(e.value, session.timezone);
    if (nanos === null) throw illegal(e.value);
    return nanos;
  }
  const value = instantNanos(e, nowNanos);
  if (value === null) throw rangeError('Illegal `align to` argument in range select query');
  return value;
}

/** Evaluates `now()`, intervals and `+`/`-` between them to nanoseconds (for ALIGN TO). */
function instantNanos(expr: Expr, nowNanos: bigint): bigint | null {
  const e = unnest(expr);
  if (e.kind === 'function' && e.args.length === 0) {
    const name = normalizeIdent(e.name[e.name.length - 1] as Ident);
    if (name === 'now' || name === 'current_timestamp') return nowNanos;
    return null;
  }
  if (e.kind === 'interval') {
    const v = unnest(e.value);
    if (v.kind !== 'string' && v.kind !== 'number') return null;
    return fixedIntervalNanos(intervalOfText(v.kind === 'string' ? v.value : v.text, e.unit));
  }
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-')) {
    const a = instantNanos(e.left, nowNanos);
    const b = instantNanos(e.right, nowNanos);
    if (a === null || b === null) return null;
    return e.op === '+' ? a + b : a - b;
  }
  return null;
}

function fillOf(spec: FillSpec | null, binder: Binder): RangeFill {
  if (!spec) return { kind: 'none' };
  if (spec.kind !== 'constant') return { kind: spec.kind };
  const bound = binder.bind(spec.value);
  if (bound.kind !== 'literal') throw rangeError('FILL needs a constant value');
  const value = evaluateConstant(bound, { nowNanos: 0n, timezone: binder.ctx.timezone });
  return { kind: 'constant', value, type: bound.type };
}

/** Plans a SELECT with ALIGN. */
export function planRange(query: Query, select: Select, items: Item[], ctx: RangeContext): SelectPlan {
  const { source, scope, base } = ctx;
  const align = select.align;
  if (!align) throw new Error('planRange needs ALIGN');
  if (source.kind !== 'table' || !scope) {
    throw new DbError(
      ErrorCode.Unsupported,
      'This feature is not implemented: range queries over anything but a table',
    );
  }
  const table = source.table;
  if (select.groupBy.length > 0 || select.having)
    throw rangeError('GROUP BY and HAVING are not allowed in range queries');
  const timeIndex = scope.columns.findIndex((c) => c.name === table.timeIndex && c.schema !== null);
  const timeColumn = scope.columns[timeIndex];
  const unit = timeColumn ? timeUnitOf(timeColumn.type) : null;
  if (!timeColumn || !unit) throw rangeError(`Table ${table.name} has no time index`);
  const timeUnitNanos = NANOS_PER_UNIT[unit];

  const alignNanos = durationNanos(align.duration, base, scope);
  if (alignNanos % timeUnitNanos !== 0n) {
    throw rangeError(`ALIGN ${durationName(align.duration, scope)} is finer than the time index precision`);
  }
  const originNanos = alignOrigin(align.to, ctx.session, ctx.nowNanos);

  const noAggregates = base.with((name) => planError(`Aggregate function ${name} needs a RANGE here`));
  const byExprs: PlanExpr[] = (
    align.by ?? table.primaryKey.map((name): Expr => ({ kind: 'identifier', parts: [{ value: name, quote: '"' }] }))
  ).map((e) => noAggregates.bind(e));
  const timeExpr: PlanExpr = { kind: 'column', index: scope.slotOf(timeIndex), type: timeColumn.type };
  const groupExprs = [...byExprs, timeExpr];
  const groupKeys = groupExprs.map(planExprKey);
  const groupCount = groupExprs.length;

  const bounds = rangeBoundsOf(ctx.session);
  const rangeBinder = base.derive({
    range: (call: FunctionCall, binder: Binder): RangeAggregate => {
      const spec = call.range;
      if (!spec) throw new Error('range hook without RANGE');
      const rangeNanos = durationNanos(spec.duration, binder, scope);
      checkRangeFanOut(rangeNanos, alignNanos, bounds);
      return { rangeNanos, fill: fillOf(spec.fill ?? align.fill, binder) };
    },
  });

  const aggregates: AggregateCall[] = [];
  const fills: RangeFill[] = [];
  const aggregateKeys: string[] = [];
  const rewrite = (expr: PlanExpr): PlanExpr => {
    const gi = groupKeys.indexOf(planExprKey(expr));
    if (gi >= 0) return { kind: 'column', index: gi, type: expr.type };
    switch (expr.kind) {
      case 'aggregate': {
        if (!expr.range) throw rangeError(`Aggregate function ${expr.name} in a range query needs RANGE`);
        // A range query has no grouping sets for grouping() to report on.
        if (expr.name === 'grouping') throw rangeError('grouping() is not supported in a range query');
        const key = planExprKey(expr);
        let ai = aggregateKeys.indexOf(key);
        if (ai < 0) {
          ai = aggregates.length;
          aggregateKeys.push(key);
          aggregates.push(aggregateCallOf(expr, () => []));
          fills.push(expr.range.fill);
        }
        // LINEAR interpolates: integer and decimal results become Float64 (floats keep their type).
        const interpolated = expr.range.fill.kind === 'linear' && (isInteger(expr.type) || isDecimal(expr.type));
        const type: DataType = interpolated ? 'Float64' : expr.type;
        return { kind: 'column', index: groupCount + ai, type };
      }
      case 'column': {
        const columnIndex = scope.scannedColumns()[expr.index] ?? -1;
        const name = columnIndex >= 0 ? scope.qualifiedName(columnIndex) : `#${expr.index}`;
        throw rangeError(`Column ${name} must be a BY key, the time index or inside a RANGE aggregate`);
      }
      case 'literal':
        return expr;
      default:
        return mapChildren(expr, rewrite);
    }
  };
  const outputs = items.map((i) => rewrite(rangeBinder.bind(i.expr)));
  const order = resolveOrderBy(query.orderBy, items, outputs, (e) => rewrite(rangeBinder.bind(e)), null);
  if (query.orderBy.length === 0) {
    // Default order: BY keys, then time slot.
    for (let g = 0; g < groupCount; g++) {
      order.sort.push({ index: outputs.length + order.hidden.length, descending: false, nullsFirst: true });
      order.hidden.push({ kind: 'column', index: g, type: (groupExprs[g] as PlanExpr).type });
    }
  }

  const merge: MergePlan = {
    kind: 'aggregate',
    groupCount,
    aggregates,
    grouped: true,
    having: null,
    outputs: [...outputs, ...order.hidden],
    distinct: false,
    sort: order.sort,
    offset: ctx.offset,
    limit: ctx.limit,
    visible: outputs.length,
    range: { byCount: byExprs.length, alignNanos, slotType: timeColumn.type, timeUnitNanos, fills, bounds },
  };
  const shard: ShardPlan = {
    version: 1,
    scan: scanOf(source, scope, ctx.filter, { nowNanos: ctx.nowNanos, timezone: ctx.session.timezone }),
    filter: ctx.filter,
    nowNanos: ctx.nowNanos,
    timezone: ctx.session.timezone,
    output: { kind: 'range', by: byExprs, time: timeExpr, timeUnitNanos, alignNanos, originNanos, aggregates, bounds },
  };
  return {
    columns: items.map((item, i) => ({ name: item.name, type: (outputs[i] as PlanExpr).type })),
    source,
    shard,
    merge,
  };
}
