/**
 * Window functions, binding and planning: OVER calls become `window` plan nodes inside the outputs
 * (WindowCollector), then column references to window columns appended after the merge
 * (`extractWindows`). Running them is exec's (window.ts); the split keeps the planner from
 * importing the executor.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import { lookupFunction } from '../functions/registry.js';
import { signatureError } from '../functions/typed.js';
import type { Expr, FrameBound, FunctionCall, Ident } from '../parse/ast.js';
import { planError } from '../types/coercion.js';
import { isNumericOrDecimal } from '../types/type-names.js';
import { castValue } from '../types/values.js';
import type { Binder } from './binder.js';
import { evaluateConstant } from './eval.js';
import { mapChildren, type PlanExpr, planExprKey, type WindowBound, type WindowCall } from './plan.js';
import { normalizeIdent } from './scope.js';

/** Functions that exist only as window functions, with their result type rule. */
const WINDOW_ONLY: Record<string, { min: number; max: number; type: (args: DataType[]) => DataType }> = {
  row_number: { min: 0, max: 0, type: () => 'UInt64' },
  rank: { min: 0, max: 0, type: () => 'UInt64' },
  dense_rank: { min: 0, max: 0, type: () => 'UInt64' },
  percent_rank: { min: 0, max: 0, type: () => 'Float64' },
  cume_dist: { min: 0, max: 0, type: () => 'Float64' },
  ntile: { min: 1, max: 1, type: () => 'UInt64' },
  lag: { min: 1, max: 3, type: (a) => a[0] ?? 'Null' },
  lead: { min: 1, max: 3, type: (a) => a[0] ?? 'Null' },
  first_value: { min: 1, max: 1, type: (a) => a[0] ?? 'Null' },
  last_value: { min: 1, max: 1, type: (a) => a[0] ?? 'Null' },
  nth_value: { min: 2, max: 2, type: (a) => a[0] ?? 'Null' },
  anomaly_score_zscore: { min: 1, max: 1, type: (a) => numericScore('anomaly_score_zscore', a) },
  anomaly_score_mad: { min: 1, max: 1, type: (a) => numericScore('anomaly_score_mad', a) },
  anomaly_score_iqr: { min: 2, max: 2, type: (a) => numericScore('anomaly_score_iqr', a) },
};

/** GreptimeDB's anomaly scores take numbers only and give a Float64. */
function numericScore(name: string, argTypes: DataType[]): DataType {
  if (!argTypes.every((t) => t === 'Null' || isNumericOrDecimal(t))) throw signatureError(name, argTypes);
  return 'Float64';
}

/** Binds OVER calls while a SELECT is planned, and hands the planner the window stage. */
export class WindowCollector {
  /** A binder that accepts window calls (derived from `base`). */
  binder(base: Binder): Binder {
    const hook = { bind: (call: FunctionCall, binder: Binder): PlanExpr => bindWindow(call, binder) };
    return base.derive({ windows: hook });
  }

  /** Replaces window nodes in `exprs` by references to columns appended after `base` columns. */
  finish(exprs: PlanExpr[], base: number): { outputs: PlanExpr[]; windows: WindowCall[] } {
    return extractWindows(exprs, base);
  }
}

function frameBound(bound: FrameBound, binder: Binder): WindowBound {
  if (bound.kind === 'current_row') return bound;
  if (!bound.offset) return { kind: bound.kind, offset: null };
  const v = evaluateConstant(binder.bind(bound.offset), { nowNanos: 0n, timezone: binder.ctx.timezone });
  if (v === null || (typeof v !== 'bigint' && typeof v !== 'number') || Number(v) < 0) {
    throw planError('Invalid window frame: frame offsets must be non negative integers');
  }
  return { kind: bound.kind, offset: v };
}

function bindWindow(call: FunctionCall, binder: Binder): PlanExpr {
  const name = normalizeIdent(call.name[call.name.length - 1] as Ident);
  const over = call.over;
  if (!over) throw new Error('bindWindow needs an OVER clause');
  const inner = binder.with((n) => planError(`Aggregate function ${n} is not allowed in window function arguments`));
  const allowAggregates = binder.ctx.aggregateError === null ? binder : inner;
  const partitionBy = over.partitionBy.map((e: Expr) => allowAggregates.bind(e));
  const orderBy = over.orderBy.map((o) => ({
    expr: allowAggregates.bind(o.expr),
    descending: o.asc === false,
    nullsFirst: o.nullsFirst ?? o.asc === false,
  }));
  const frame: WindowCall['frame'] = over.frame
    ? {
        units: over.frame.units,
        start: frameBound(over.frame.start, binder),
        end: frameBound(over.frame.end, binder),
      }
    : orderBy.length > 0
      ? { units: 'RANGE', start: { kind: 'preceding', offset: null }, end: { kind: 'current_row' } }
      : { units: 'ROWS', start: { kind: 'preceding', offset: null }, end: { kind: 'following', offset: null } };
  if (frame.units === 'RANGE' && frame.start.kind !== 'current_row' && frame.start.offset !== null) {
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: RANGE frames with offsets');
  }
  if (frame.units === 'RANGE' && frame.end.kind !== 'current_row' && frame.end.offset !== null) {
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: RANGE frames with offsets');
  }
  const only = WINDOW_ONLY[name];
  if (only) {
    const args = call.args.map((a) => allowAggregates.bind(a));
    if (args.length < only.min || args.length > only.max) {
      throw planError(`The function '${name}' expected ${only.min} arguments but received ${args.length}`);
    }
    const windowCall: WindowCall = { name, aggregate: false, args, distinct: false, partitionBy, orderBy, frame };
    return { kind: 'window', call: windowCall, type: only.type(args.map((a) => a.type)) };
  }
  const fn = lookupFunction(name);
  if (!fn) throw planError(`Invalid function '${name}'.`);
  if (fn.kind !== 'aggregate') throw planError(`${name} is not a window or aggregate function`);
  // grouping() only has a value per grouping set of an aggregate, as in DataFusion.
  if (fn.name === 'grouping') throw groupingNotImplemented();
  const args = call.star ? [] : call.args.map((a) => allowAggregates.bind(a));
  // Constant arguments reach the aggregate as literals, cast at once, as outside OVER: some
  // aggregates read parameters from them (a percentile, a sketch's size).
  const sig = fn.bind(
    args.map((a) => a.type),
    args.map((a) => (a.kind === 'literal' ? a.value : undefined)),
  );
  const windowCall: WindowCall = {
    name: fn.name,
    aggregate: true,
    args: args.map((a, i): PlanExpr => {
      const to = sig.argTypes[i];
      if (!to || to === a.type) return a;
      if (a.kind === 'literal') return { kind: 'literal', value: castValue(a.value, a.type, to), type: to };
      return { kind: 'cast', arg: a, safe: false, type: to };
    }),
    distinct: call.distinct,
    partitionBy,
    orderBy,
    frame,
  };
  return { kind: 'window', call: windowCall, type: sig.returnType };
}

/** Replaces every window node with a column reference `base + w`, collecting the calls. */
export function extractWindows(exprs: PlanExpr[], base: number): { outputs: PlanExpr[]; windows: WindowCall[] } {
  const windows: WindowCall[] = [];
  const keys: string[] = [];
  const replace = (e: PlanExpr): PlanExpr => {
    if (e.kind === 'window') {
      const key = planExprKey(e);
      let w = keys.indexOf(key);
      if (w < 0) {
        w = windows.length;
        keys.push(key);
        windows.push(e.call);
      }
      return { kind: 'column', index: base + w, type: e.type };
    }
    return mapChildren(e, replace);
  };
  return { outputs: exprs.map(replace), windows };
}

function groupingNotImplemented(): DbError {
  return new DbError(
    ErrorCode.Unsupported,
    'This feature is not implemented: physical plan is not yet implemented for GROUPING aggregate function',
  );
}
