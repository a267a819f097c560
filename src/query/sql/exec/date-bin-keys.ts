/**
 * `GROUP BY date_bin(<constant interval>, <timestamp column>)` keys computed from the scan's
 * int64 vector as numbers, not as values: the general path turned every timestamp into a BigInt,
 * then every bin into another, through date_bin's row function, for ten million rows that mostly
 * share their bin with the row before. Here the bins are exact float arithmetic on timestamps
 * below 2^52 in the column's unit (any millisecond or microsecond time, second time; nanoseconds
 * past 1970-02-22 are not) and a stride that is a whole number of that unit; anything else takes
 * the general path. The caller turns a bin into its key value (a bigint, as date_bin returns) only
 * when it differs from the row before's.
 */
import { NANOS_PER_UNIT, timeUnitOf, type Vector } from '../../../shared/types.js';
import type { Batch } from '../plan/eval.js';
import type { PlanExpr } from '../plan/plan.js';

/** Timestamps and strides this far from zero still divide exactly in floats. */
const EXACT_MAX = 2 ** 52;

/**
 * Bin starts (in the column's unit) of each row of `batch` under `expr`, or null when `expr` is
 * not `date_bin(constant stride, timestamp column)` over a NULL-free int64 vector within range.
 */
export function dateBinKeys(expr: PlanExpr, batch: Batch): Float64Array | null {
  if (expr.kind !== 'call' || expr.name !== 'date_bin' || expr.args.length !== 2) return null;
  const [stride, ts] = expr.args;
  if (stride?.kind !== 'literal' || typeof stride.value !== 'bigint' || ts?.kind !== 'column') return null;
  const unit = timeUnitOf(ts.type);
  if (unit === null || timeUnitOf(expr.type) !== unit) return null;
  const per = NANOS_PER_UNIT[unit];
  if (stride.value <= 0n || stride.value % per !== 0n) return null;
  const step = Number(stride.value / per);
  if (step >= EXACT_MAX) return null;
  const vector: Vector | undefined = batch.vectors?.[ts.index];
  if (vector === undefined || vector.kind !== 'i64' || vector.valid !== undefined) return null;
  const ints = vector.values as BigInt64Array;
  // The int64s as (low, high) 32-bit halves: reading them as BigInts is what this avoids.
  const halves = new Int32Array(ints.buffer, ints.byteOffset, ints.length * 2);
  const n = batch.rowCount;
  const selection = batch.selection;
  const bins = new Float64Array(n);
  let low = 1;
  let high = 0;
  let bin = 0;
  for (let r = 0; r < n; r++) {
    const i = selection === undefined ? r : (selection[r] as number);
    const hi = halves[2 * i + 1] as number;
    if (hi >= 0x100000 || hi < -0x100000) return null;
    const t = hi * 4294967296 + ((halves[2 * i] as number) >>> 0);
    if (t < low || t >= high) {
      bin = Math.floor(t / step) * step;
      // The quotient is rounded: step back or on if it landed in a neighbouring bin.
      if (bin > t) bin -= step;
      else if (t - bin >= step) bin += step;
      low = bin;
      high = bin + step;
    }
    bins[r] = bin;
  }
  return bins;
}
