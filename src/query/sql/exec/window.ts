/**
 * Window functions (`... OVER (PARTITION BY ... ORDER BY ... [frame])`). A window needs every row
 * of its partition, and partitions cut across series and shards, so windows run in the router:
 * after the merge (and after aggregation, for grouped queries), before the final projection,
 * ORDER BY and LIMIT.
 *
 *   bind: OVER calls → `window` plan nodes inside the outputs (WindowCollector, window-bind.ts)
 *   plan: nodes replaced by column refs to appended window columns (`extractWindows`, window-bind.ts)
 *   run:  per call: evaluate args/keys → sort by (partition, order) → per partition, per row frame
 *         (in the router's time slices: the sort and every loop over rows check the query's slice)
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { SLICE_UNITS, type TimeSlice } from '../../../shared/time-slice.js';
import type { DataType } from '../../../shared/types.js';
import { lookupFunction } from '../functions/registry.js';
import type { EvalContext } from '../functions/types.js';
import { type Batch, evaluate } from '../plan/eval.js';
import type { AggregateCall, WindowBound, WindowCall } from '../plan/plan.js';
import type { Value } from '../types/values.js';
import { createState, finishState, updateStates } from './aggregate-exec.js';
import { compareRows, sortPermutationSliced } from './sort.js';
import { ANOMALY_FUNCTIONS, anomalyScore, finiteValues } from './window-anomaly.js';

/**
 * Computes every window call over `batch` and returns the batch with their columns appended. It
 * runs on the router's event loop: the sort and every loop over rows check `slice`.
 */
export async function applyWindows(
  windows: WindowCall[],
  batch: Batch,
  ctx: EvalContext,
  slice: TimeSlice,
): Promise<Batch> {
  if (windows.length === 0) return batch;
  const columns = [...batch.columns];
  for (const w of windows) columns.push(await computeWindow(w, batch, ctx, slice));
  return { rowCount: batch.rowCount, columns };
}

async function computeWindow(call: WindowCall, batch: Batch, ctx: EvalContext, slice: TimeSlice): Promise<Value[]> {
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
  const sorted = await sortPermutationSliced(keyColumns, n, [...partitionKeys, ...orderKeys], slice);
  const out = new Array<Value>(n).fill(null);
  let start = 0;
  while (start < n) {
    let end = start + 1;
    while (end < n && compareRows(keyColumns, sorted[start] as number, sorted[end] as number, partitionKeys) === 0) {
      end++;
      if (slice.tick()) await slice.next();
    }
    const rows = sorted.slice(start, end);
    const peerStart: number[] = [];
    const peerEnd: number[] = [];
    for (let k = 0; k < rows.length; k++) {
      const samePeer = k > 0 && compareRows(keyColumns, rows[k - 1] as number, rows[k] as number, orderKeys) === 0;
      peerStart[k] = samePeer ? (peerStart[k - 1] as number) : k;
      if (slice.tick()) await slice.next();
    }
    for (let k = rows.length - 1; k >= 0; k--) {
      const samePeer = k < rows.length - 1 && peerStart[k + 1] === peerStart[k];
      peerEnd[k] = samePeer ? (peerEnd[k + 1] as number) : k;
      if (slice.tick()) await slice.next();
    }
    const partition: Partition = { rows, peerStart, peerEnd };
    const values = call.aggregate
      ? await aggregateOverFrames(call, args, partition, slice)
      : await windowOnly(call, args, partition, slice);
    for (let k = 0; k < rows.length; k++) {
      out[rows[k] as number] = values[k] as Value;
      if (slice.tick()) await slice.next();
    }
    start = end;
  }
  return out;
}

/** One partition in window order: batch row indexes, and each row's first and last peer (by k). */
interface Partition {
  rows: number[];
  peerStart: number[];
  peerEnd: number[];
}

function offsetOf(bound: WindowBound): number {
  return bound.kind === 'current_row' || bound.offset === null ? 0 : Number(bound.offset);
}

/** The frame of row k of a partition, as inclusive indexes (start > end: empty). */
function frameOf(call: WindowCall, k: number, partition: Partition): [number, number] {
  const { units, start, end } = call.frame;
  const m = partition.rows.length;
  const at = (bound: WindowBound, isStart: boolean): number => {
    if (bound.kind === 'current_row') {
      if (units === 'ROWS') return k;
      return isStart ? (partition.peerStart[k] as number) : (partition.peerEnd[k] as number);
    }
    if (bound.offset === null) return bound.kind === 'preceding' ? 0 : m - 1;
    return bound.kind === 'preceding' ? k - offsetOf(bound) : k + offsetOf(bound);
  };
  return [Math.max(0, at(start, true)), Math.min(m - 1, at(end, false))];
}

/**
 * An aggregate over each row's frame. A frame that only grows extends one state; otherwise the
 * state restarts at the frame's start, so a sliding frame costs O(frame) per row and a long one
 * is added in pieces of SLICE_UNITS rows between slice checks.
 */
async function aggregateOverFrames(
  call: WindowCall,
  args: Value[][],
  partition: Partition,
  slice: TimeSlice,
): Promise<Value[]> {
  const agg: AggregateCall = { name: call.name, args: call.args, distinct: call.distinct, type: 'Null' };
  const finishing: AggregateCall = { ...agg, type: resultTypeOf(call) };
  const { rows } = partition;
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
    const [s, e] = frameOf(call, k, partition);
    if (state === null || s !== from || e < to) {
      state = createState(agg);
      from = s;
      to = s - 1;
    }
    // Rows go into the state in frame order, piece by piece, as in one call.
    while (e > to) {
      const last = Math.min(e, to + SLICE_UNITS);
      add(to + 1, last);
      const added = last - to;
      to = last;
      if (slice.tick(added)) await slice.next();
    }
    out[k] = finishState(finishing, state);
    if (slice.tick()) await slice.next();
  }
  return out;
}

function resultTypeOf(call: WindowCall): DataType {
  const fn = lookupFunction(call.name);
  if (fn?.kind !== 'aggregate') return 'Null';
  return fn.bind(
    call.args.map((a) => a.type),
    call.args.map((a) => (a.kind === 'literal' ? a.value : undefined)),
  ).returnType;
}

/** A window-only function's values over a partition, one row at a time between slice checks. */
async function windowOnly(call: WindowCall, args: Value[][], partition: Partition, slice: TimeSlice): Promise<Value[]> {
  const m = partition.rows.length;
  const out = new Array<Value>(m);
  const valueAt = windowOnlyRow(call, args, partition);
  // An anomaly score reads its whole frame per row: count that work against the slice.
  const perFrame = ANOMALY_FUNCTIONS.has(call.name);
  for (let k = 0; k < m; k++) {
    out[k] = valueAt(k);
    let units = 1;
    if (perFrame) {
      const [s, e] = frameOf(call, k, partition);
      units = Math.max(1, e - s + 1);
    }
    if (slice.tick(units)) await slice.next();
  }
  return out;
}

/** The value of row k of the partition; called for k = 0, 1, ... in order (dense_rank counts). */
function windowOnlyRow(call: WindowCall, args: Value[][], partition: Partition): (k: number) => Value {
  const { rows, peerStart, peerEnd } = partition;
  const m = rows.length;
  const at = (k: number, col = 0): Value => ((args[col] as Value[])[rows[k] as number] as Value) ?? null;
  const constant = (col: number, fallback: number): number => {
    const v = args[col]?.[rows[0] as number];
    return v === undefined || v === null ? fallback : Number(v);
  };
  switch (call.name) {
    case 'row_number':
      return (k) => BigInt(k + 1);
    case 'rank':
      return (k) => BigInt((peerStart[k] as number) + 1);
    case 'dense_rank': {
      let rank = 0;
      return (k) => {
        if (peerStart[k] === k) rank++;
        return BigInt(rank);
      };
    }
    case 'percent_rank':
      return (k) => (m <= 1 ? 0 : (peerStart[k] as number) / (m - 1));
    case 'cume_dist':
      return (k) => ((peerEnd[k] as number) + 1) / m;
    case 'ntile': {
      const buckets = constant(0, 1);
      if (buckets <= 0)
        throw new DbError(ErrorCode.EngineExecuteQuery, 'Execution error: NTILE requires a positive integer');
      return (k) => BigInt(Math.floor((k * buckets) / m) + 1);
    }
    case 'lag':
    case 'lead': {
      const offset = constant(1, 1) * (call.name === 'lag' ? -1 : 1);
      return (k) => {
        const j = k + offset;
        return j >= 0 && j < m ? at(j) : args[2] ? at(k, 2) : null;
      };
    }
    case 'first_value':
    case 'last_value':
    case 'nth_value': {
      const nth = call.name === 'nth_value' ? constant(1, 1) : 0;
      return (k) => {
        const [s, e] = frameOf(call, k, partition);
        if (s > e) return null;
        if (call.name === 'first_value') return at(s);
        if (call.name === 'last_value') return at(e);
        return s + nth - 1 <= e ? at(s + nth - 1) : null;
      };
    }
    case 'anomaly_score_zscore':
    case 'anomaly_score_mad':
    case 'anomaly_score_iqr':
      return (k) => {
        const [s, e] = frameOf(call, k, partition);
        const frame: Value[] = [];
        for (let j = s; j <= e; j++) frame.push(at(j));
        return anomalyScore(call.name, finiteValues(frame), at(k), args[1] ? at(k, 1) : undefined);
      };
    default:
      throw new DbError(ErrorCode.Unsupported, `This feature is not implemented: window function ${call.name}`);
  }
}
