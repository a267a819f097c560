/**
 * The groups of `GROUP BY date_bin(<constant interval>, <timestamp column>)` read from the scan's
 * int64 vector: the general path turned every timestamp into a BigInt, then every bin into
 * another, through date_bin's row function, for ten million rows that mostly share their bin with
 * the row before. Here each timestamp is compared, as its two 32-bit halves, with the bounds of the
 * last row's bin; only a row outside them reads its BigInt and computes its bin as date_bin does
 * (once per series and bin, typically), and looks its group up.
 */
import { floorDiv } from '../../../shared/bigint-math.js';
import { NANOS_PER_UNIT, timeUnitOf, type Vector } from '../../../shared/types.js';
import type { Batch } from '../plan/eval.js';
import type { PlanExpr } from '../plan/plan.js';
import type { Value } from '../types/values.js';

const TWO_32 = 4294967296n;

/**
 * The group of each row of `batch` under `expr` (`groupOfKey` finds or makes the group of a key),
 * or null when `expr` is not `date_bin(constant stride, timestamp column)` over a NULL-free int64
 * vector, for the general path to take.
 */
export function dateBinGroups(expr: PlanExpr, batch: Batch, groupOfKey: (key: Value[]) => number): Uint32Array | null {
  if (expr.kind !== 'call' || expr.name !== 'date_bin' || expr.args.length !== 2) return null;
  const [strideArg, ts] = expr.args;
  if (strideArg?.kind !== 'literal' || typeof strideArg.value !== 'bigint' || ts?.kind !== 'column') return null;
  const stride = strideArg.value;
  const unit = timeUnitOf(ts.type);
  // A non-positive stride is date_bin's error, which the general path raises.
  if (unit === null || timeUnitOf(expr.type) !== unit || stride <= 0n) return null;
  const per = NANOS_PER_UNIT[unit];
  const vector: Vector | undefined = batch.vectors?.[ts.index];
  if (vector === undefined || vector.kind !== 'i64' || vector.valid !== undefined) return null;
  const ints = vector.values as BigInt64Array;
  // Little-endian (low, high) halves: comparing them needs no BigInt.
  const halves = new Int32Array(ints.buffer, ints.byteOffset, ints.length * 2);
  const n = batch.rowCount;
  const selection = batch.selection;
  const groups = new Uint32Array(n);
  // The last bin's values v with lowHi:lowLo <= v < highHi:highLo; empty at first.
  let lowHi = 1;
  let lowLo = 0;
  let highHi = 0;
  let highLo = 0;
  let group = 0;
  for (let r = 0; r < n; r++) {
    const i = selection === undefined ? r : (selection[r] as number);
    const hi = halves[2 * i + 1] as number;
    const lo = (halves[2 * i] as number) >>> 0;
    const belowLow = hi < lowHi || (hi === lowHi && lo < lowLo);
    const belowHigh = hi < highHi || (hi === highHi && lo < highLo);
    if (belowLow || !belowHigh) {
      const start = floorDiv((ints[i] as bigint) * per, stride) * stride;
      group = groupOfKey([floorDiv(start, per)]);
      const low = -floorDiv(-start, per);
      const high = -floorDiv(-(start + stride), per);
      lowHi = Number(floorDiv(low, TWO_32));
      lowLo = Number(low - BigInt(lowHi) * TWO_32);
      highHi = Number(floorDiv(high, TWO_32));
      highLo = Number(high - BigInt(highHi) * TWO_32);
      // A bound past the int64 range cannot be compared as halves: keep looking rows up.
      if (lowHi < -0x80000000 || highHi > 0x7fffffff) {
        lowHi = 1;
        lowLo = 0;
        highHi = 0;
        highLo = 0;
      }
    }
    groups[r] = group;
  }
  return groups;
}
