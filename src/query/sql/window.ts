/**
 * Window functions (`... OVER (PARTITION BY ... ORDER BY ... [frame])`). A window needs every row
 * of its partition, and partitions cut across series and shards, so windows run in the router:
 * after the merge (and after aggregation, for grouped queries), before the final projection,
 * ORDER BY and LIMIT.
 *
 *   bind: OVER calls → `window` plan nodes inside the outputs (WindowCollector)
 *   plan: nodes replaced by column refs to appended window columns (`extractWindows`)
 *   run:  per call: evaluate args/keys → sort by (partition, order) → per partition, per row frame
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import type { DataType } from '../../shared/types.js';
import { createState, finishState, updateStates } from './aggregate-exec.js';
import type { Expr, FrameBound, FunctionCall, Ident } from './ast.js';
import type { Binder } from './binder.js';
import { planError } from './coercion.js';
import { type Batch, evaluate, evaluateConstant } from './eval.js';
import { lookupFunction } from './functions/registry.js';
import type { EvalContext } from './functions/types.js';
import {
  type AggregateCall,
  mapChildren,
  type PlanExpr,
  planExprKey,
  type WindowBound,
  type WindowCall,
} from './plan.js';
import { normalizeIdent } from './scope.js';
import { compareRows, sortPermutation } from './sort.js';
import type { Value } from './values.js';

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
};

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
  const args = call.star ? [] : call.args.map((a) => allowAggregates.bind(a));
  const sig = fn.bind(args.map((a) => a.type));
  const windowCall: WindowCall = {
    name: fn.name,
    aggregate: true,
    args: args.map((a, i) =>
      sig.argTypes[i] && sig.argTypes[i] !== a.type
        ? { kind: 'cast', arg: a, safe: false, type: sig.argTypes[i] as DataType }
        : a,
    ),
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

/** Computes every window call over `batch` and returns the batch with their columns appended. */
export function applyWindows(windows: WindowCall[], batch: Batch, ctx: EvalContext): Batch {
  if (windows.length === 0) return batch;
  return { rowCount: batch.rowCount, columns: [...batch.columns, ...windows.map((w) => computeWindow(w, batch, ctx))] };
}

function computeWindow(call: WindowCall, batch: Batch, ctx: EvalContext): Value[] {
  const n = batch.rowCount;
  const args = call.args.map((a) => evaluate(a, batch, ctx));
  const partitions = call.partitionBy.map((p) => evaluate(p, batch, ctx));
  const orders = call.orderBy.map((o) => evaluate(o.expr, batch, ctx));
  const keyColumns = [...partitions, ...orders];
  const partitionKeys = partitions.map((_, i) => ({ index: i, descending: false, nullsFirst: true }));
  const orderKeys = call.orderBy.map((o, i) => ({
    index: partitions.length + i,
    descending: o.descending,
    nullsFirst: o.nullsFirst,
  }));
  const sorted = sortPermutation(keyColumns, n, [...partitionKeys, ...orderKeys]);
  const out = new Array<Value>(n).fill(null);
  let start = 0;
  while (start < n) {
    let end = start + 1;
    while (end < n && compareRows(keyColumns, sorted[start] as number, sorted[end] as number, partitionKeys) === 0)
      end++;
    const rows = sorted.slice(start, end);
    const peerStart: number[] = [];
    const peerEnd: number[] = [];
    for (let k = 0; k < rows.length; k++) {
      const samePeer = k > 0 && compareRows(keyColumns, rows[k - 1] as number, rows[k] as number, orderKeys) === 0;
      peerStart[k] = samePeer ? (peerStart[k - 1] as number) : k;
    }
    for (let k = rows.length - 1; k >= 0; k--) {
      const samePeer = k < rows.length - 1 && peerStart[k + 1] === peerStart[k];
      peerEnd[k] = samePeer ? (peerEnd[k + 1] as number) : k;
    }
    const values = call.aggregate
      ? aggregateOverFrames(call, args, rows, peerStart, peerEnd)
      : windowOnly(call, args, rows, peerStart, peerEnd);
    rows.forEach((r, k) => {
      out[r] = values[k] as Value;
    });
    start = end;
  }
  return out;
}

function offsetOf(bound: WindowBound): number {
  return bound.kind === 'current_row' || bound.offset === null ? 0 : Number(bound.offset);
}

/** The frame of row k of a partition of `m` rows, as inclusive indexes (start > end: empty). */
function frameOf(call: WindowCall, k: number, m: number, peerStart: number[], peerEnd: number[]): [number, number] {
  const { units, start, end } = call.frame;
  const at = (bound: WindowBound, isStart: boolean): number => {
    if (bound.kind === 'current_row') {
      if (units === 'ROWS') return k;
      return isStart ? (peerStart[k] as number) : (peerEnd[k] as number);
    }
    if (bound.offset === null) return bound.kind === 'preceding' ? 0 : m - 1;
    return bound.kind === 'preceding' ? k - offsetOf(bound) : k + offsetOf(bound);
  };
  return [Math.max(0, at(start, true)), Math.min(m - 1, at(end, false))];
}

function aggregateOverFrames(
  call: WindowCall,
  args: Value[][],
  rows: number[],
  peerStart: number[],
  peerEnd: number[],
): Value[] {
  const agg: AggregateCall = { name: call.name, args: call.args, distinct: call.distinct, type: 'Null' };
  const m = rows.length;
  const out = new Array<Value>(m);
  let state: unknown = null;
  let from = 0;
  let to = -1;
  const add = (a: number, b: number): void => {
    const picked = rows.slice(a, b + 1);
    const columns = args.map((col) => picked.map((r) => col[r] as Value));
    updateStates(agg, [state], new Uint32Array(picked.length), columns, picked.length);
  };
  for (let k = 0; k < m; k++) {
    const [s, e] = frameOf(call, k, m, peerStart, peerEnd);
    if (state === null || s !== from || e < to) {
      state = createState(agg);
      from = s;
      to = s - 1;
    }
    if (e > to) {
      add(to + 1, e);
      to = e;
    }
    out[k] = finishState({ ...agg, type: resultTypeOf(call) }, state);
  }
  return out;
}

function resultTypeOf(call: WindowCall): DataType {
  const fn = lookupFunction(call.name);
  if (fn?.kind !== 'aggregate') return 'Null';
  return fn.bind(call.args.map((a) => a.type)).returnType;
}

function windowOnly(
  call: WindowCall,
  args: Value[][],
  rows: number[],
  peerStart: number[],
  peerEnd: number[],
): Value[] {
  const m = rows.length;
  const out = new Array<Value>(m);
  const at = (k: number, col = 0): Value => ((args[col] as Value[])[rows[k] as number] as Value) ?? null;
  const constant = (col: number, fallback: number): number => {
    const v = args[col]?.[rows[0] as number];
    return v === undefined || v === null ? fallback : Number(v);
  };
  switch (call.name) {
    case 'row_number':
      for (let k = 0; k < m; k++) out[k] = BigInt(k + 1);
      break;
    case 'rank':
      for (let k = 0; k < m; k++) out[k] = BigInt((peerStart[k] as number) + 1);
      break;
    case 'dense_rank': {
      let rank = 0;
      for (let k = 0; k < m; k++) {
        if (peerStart[k] === k) rank++;
        out[k] = BigInt(rank);
      }
      break;
    }
    case 'percent_rank':
      for (let k = 0; k < m; k++) out[k] = m <= 1 ? 0 : (peerStart[k] as number) / (m - 1);
      break;
    case 'cume_dist':
      for (let k = 0; k < m; k++) out[k] = ((peerEnd[k] as number) + 1) / m;
      break;
    case 'ntile': {
      const buckets = constant(0, 1);
      if (buckets <= 0)
        throw new DbError(ErrorCode.EngineExecuteQuery, 'Execution error: NTILE requires a positive integer');
      for (let k = 0; k < m; k++) out[k] = BigInt(Math.floor((k * buckets) / m) + 1);
      break;
    }
    case 'lag':
    case 'lead': {
      const offset = constant(1, 1) * (call.name === 'lag' ? -1 : 1);
      const fallback = args[2] ? null : null;
      for (let k = 0; k < m; k++) {
        const j = k + offset;
        out[k] = j >= 0 && j < m ? at(j) : args[2] ? at(k, 2) : fallback;
      }
      break;
    }
    case 'first_value':
    case 'last_value':
    case 'nth_value': {
      const nth = call.name === 'nth_value' ? constant(1, 1) : 0;
      for (let k = 0; k < m; k++) {
        const [s, e] = frameOf(call, k, m, peerStart, peerEnd);
        if (s > e) out[k] = null;
        else if (call.name === 'first_value') out[k] = at(s);
        else if (call.name === 'last_value') out[k] = at(e);
        else out[k] = s + nth - 1 <= e ? at(s + nth - 1) : null;
      }
      break;
    }
    default:
      throw new DbError(ErrorCode.Unsupported, `This feature is not implemented: window function ${call.name}`);
  }
  return out;
}
