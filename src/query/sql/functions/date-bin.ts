/**
 * `date_bin(stride, ts[, origin])`: the start of the `stride`-wide bin holding ts, bins counted
 * from `origin` (default the epoch). The stride arrives in nanoseconds (an interval literal) or
 * as interval text.
 *
 * A batch's rows mostly fall in the bin of the row before (a series' rows come in time order), so
 * both paths keep the last bin's bounds in the argument's own unit and answer such a row with two
 * comparisons and the same result. Over a storage vector (`evaluateInt64`) the comparisons read
 * the 64-bit cells as two 32-bit words, so a row makes no BigInt at all: boxing the time column
 * was most of a GROUP BY time bucket's cost in a shard, in allocation and then in collection.
 */
import { floorDiv } from '../../../shared/bigint-math.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, NANOS_PER_UNIT, timeUnitOf } from '../../../shared/types.js';
import { fixedIntervalNanos, parseInterval } from '../types/interval.js';
import type { Value } from '../types/values.js';
import { noMatch } from './no-match.js';
import { mapRows, type ScalarFunction } from './types.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Flips an int32's sign bit: signed order of flipped words is the unsigned order of the words. */
const SIGN = -0x80000000;

/** The last bin: its result and the argument values v with low <= v < high, also as words. */
class LastBin {
  valid = false;
  stride: Value | undefined;
  origin: Value | undefined;
  low = 0n;
  high = 0n;
  bin = 0n;
  /** `low` and `high` as (high word, low word), both signed int32; `wordsValid` when both fit. */
  lowHi = 0;
  lowLo = 0;
  highHi = 0;
  highLo = 0;
  wordsValid = false;

  /** The stride in the argument's unit when whole (bins are then `strideUnits` apart), else 0. */
  private strideUnits = 0;
  /**
   * The last bin `compute` made, in the argument's unit, as a BigInt and as words: `nextFrom`
   * reckons the next bins from it in doubles, exact while a cell is within 2^51 of it.
   */
  private base = 0n;
  private baseHi = 0;
  private baseLo = 0;

  constructor(private readonly per: bigint) {}

  /** The bin of `value` for this stride and origin, remembered as the last one. */
  compute(stride: Value, value: bigint, origin: Value | undefined): bigint {
    const strideNanos = typeof stride === 'string' ? intervalTextNanos(stride) : (stride as bigint);
    if (strideNanos <= 0n)
      throw new DbError(ErrorCode.EngineExecuteQuery, 'Execution error: DATE_BIN stride must be non-zero');
    const per = this.per;
    const t = value * per;
    const o = origin === undefined ? 0n : (origin as bigint) * per;
    const start = o + floorDiv(t - o, strideNanos) * strideNanos;
    this.bin = floorDiv(start, per);
    // The values v with start <= v * per < start + stride.
    this.low = -floorDiv(-start, per);
    this.high = -floorDiv(-(start + strideNanos), per);
    this.stride = stride;
    this.origin = origin;
    this.valid = true;
    // `high` past the int64 range only happens at its very end; such rows take the long way.
    this.wordsValid = this.low >= INT64_MIN && this.high <= INT64_MAX;
    if (this.wordsValid) {
      this.lowHi = Number(this.low >> 32n);
      this.lowLo = Number(this.low & 0xffffffffn) | 0;
      this.highHi = Number(this.high >> 32n);
      this.highLo = Number(this.high & 0xffffffffn) | 0;
      // This bin is the base `nextFrom` reckons the next ones from.
      const units = strideNanos % per === 0n ? strideNanos / per : 0n;
      this.strideUnits = units > 0n && units < 2n ** 51n ? Number(units) : 0;
      this.base = this.low;
      this.baseHi = this.lowHi;
      this.baseLo = this.lowLo;
    }
    return this.bin;
  }

  /**
   * The bin of the cell (hi, lo) for the base's stride and origin, from the base in doubles: one
   * BigInt made (the bin) where `compute` makes about ten. Null where that is not exact.
   */
  nextFrom(hi: number, lo: number): bigint | null {
    const s = this.strideUnits;
    const dHi = hi - this.baseHi;
    if (s === 0 || !this.wordsValid || dHi > 0x80000 || dHi < -0x80000) return null;
    const d = dHi * 4294967296 + ((lo >>> 0) - (this.baseLo >>> 0));
    let q = Math.floor(d / s);
    // The division rounds; put q on the floor of the exact quotient.
    if (q * s > d) q--;
    else if ((q + 1) * s <= d) q++;
    const start = q * s;
    const lowTotal = (this.baseLo >>> 0) + start;
    const lowCarry = Math.floor(lowTotal / 4294967296);
    const highTotal = lowTotal + s;
    const highCarry = Math.floor(highTotal / 4294967296);
    const lowHi = this.baseHi + lowCarry;
    const highHi = this.baseHi + highCarry;
    // Past the int64 range at its ends: the long way.
    if (lowHi < -0x80000000 || highHi > 0x7fffffff) return null;
    this.lowHi = lowHi;
    this.lowLo = (lowTotal - lowCarry * 4294967296) | 0;
    this.highHi = highHi;
    this.highLo = (highTotal - highCarry * 4294967296) | 0;
    // Only the typed path reads the bounds as words; the BigInt bounds are not kept up.
    this.valid = false;
    this.bin = this.base + BigInt(start);
    return this.bin;
  }
}

export const dateBin: ScalarFunction = {
  kind: 'scalar',
  name: 'date_bin',
  bind(argTypes) {
    const [stride, ts, origin] = argTypes;
    if (argTypes.length < 2 || argTypes.length > 3) noMatch('date_bin', argTypes);
    if (!(stride === 'Int64' || stride === 'String' || stride === 'Null')) noMatch('date_bin', argTypes);
    const unit = ts === undefined ? null : timeUnitOf(ts);
    if (!(unit || ts === 'Null' || ts === 'String')) noMatch('date_bin', argTypes);
    const tsType: DataType = unit ? (ts as DataType) : 'TimestampNanosecond';
    const params: DataType[] = [stride === 'String' ? 'String' : 'Int64', tsType];
    if (origin !== undefined) params.push(tsType);
    return { argTypes: params, returnType: tsType };
  },
  evaluate(args, rowCount, _ctx, returnType) {
    const last = new LastBin(NANOS_PER_UNIT[timeUnitOf(returnType) ?? 'ns']);
    return mapRows(args, rowCount, (stride, ts, origin) => {
      const value = ts as bigint;
      if (last.valid && stride === last.stride && origin === last.origin && value >= last.low && value < last.high)
        return last.bin;
      return last.compute(stride, value, origin);
    });
  },
  int64Arg: 1,
  evaluateInt64(args, ts, rowCount, _ctx, returnType) {
    const last = new LastBin(NANOS_PER_UNIT[timeUnitOf(returnType) ?? 'ns']);
    const strides = args[0] as Value[];
    const origins = args[2];
    const { values, words, selection } = ts;
    const out = new Array<Value>(rowCount);
    // The last bin's bounds as locals, low words with the sign bit flipped so that signed int32
    // comparisons order them as unsigned: the loop then keeps every word unboxed.
    let hot = false;
    let lowHi = 0;
    let lowLo = 0;
    let highHi = 0;
    let highLo = 0;
    let bin: Value = null;
    for (let r = 0; r < rowCount; r++) {
      const stride = strides[r] as Value;
      const origin = origins === undefined ? undefined : (origins[r] as Value);
      const i = selection === undefined ? r : (selection[r] as number);
      const sameCall = hot && stride === last.stride && origin === last.origin;
      const hi = words[2 * i + 1] as number;
      const lo = words[2 * i] as number;
      if (sameCall) {
        const flipped = lo ^ SIGN;
        if (
          (hi > lowHi || (hi === lowHi && flipped >= lowLo)) &&
          (hi < highHi || (hi === highHi && flipped < highLo))
        ) {
          out[r] = bin;
          continue;
        }
      }
      if (stride === null || origin === null) {
        out[r] = null;
        continue;
      }
      const next = sameCall ? last.nextFrom(hi, lo) : null;
      bin = next ?? last.compute(stride, values[i] as bigint, origin);
      out[r] = bin;
      hot = last.wordsValid;
      lowHi = last.lowHi;
      lowLo = last.lowLo ^ SIGN;
      highHi = last.highHi;
      highLo = last.highLo ^ SIGN;
    }
    return out;
  },
};

/** A fixed-length interval text (`'15 minutes'`) in nanoseconds, for date_bin strides. */
function intervalTextNanos(text: string): bigint {
  const nanos = fixedIntervalNanos(parseInterval(text));
  if (nanos === null)
    throw new DbError(ErrorCode.EngineExecuteQuery, 'Execution error: DATE_BIN stride must not have months');
  return nanos;
}
