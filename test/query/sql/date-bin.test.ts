import t from 'tap';
import { scalarFunction } from '../../../src/query/sql/functions/registry.js';
import type { Value } from '../../../src/query/sql/types/value.js';
import { floorDiv } from '../../../src/shared/bigint-math.js';
import type { DataType } from '../../../src/shared/types.js';
import { prng } from '../../helpers/prng.js';

const dateBin = scalarFunction('date_bin');
const PER: Record<string, bigint> = {
  TimestampSecond: 1_000_000_000n,
  TimestampMillisecond: 1_000_000n,
  TimestampMicrosecond: 1_000n,
  TimestampNanosecond: 1n,
};

/** date_bin by its definition, row by row. */
function expected(stride: bigint, ts: bigint, origin: bigint | undefined, per: bigint): bigint {
  const o = (origin ?? 0n) * per;
  return floorDiv(o + floorDiv(ts * per - o - 0n, stride) * stride, per);
}

t.test('runs of rows in one bin answer as the arithmetic does, whatever the unit, stride and origin', async (t) => {
  const next = prng(11);
  for (const type of Object.keys(PER) as DataType[]) {
    const per = PER[type] as bigint;
    for (let trial = 0; trial < 40; trial++) {
      const n = 400;
      const strides: Value[] = [];
      const times: Value[] = [];
      const origins: Value[] = [];
      // Time runs forward in small steps, jumps back now and then (a new series), crosses zero,
      // and the stride or origin changes between rows sometimes.
      let ts = BigInt(Math.floor((next() - 0.5) * 1e6));
      let stride = BigInt(1 + Math.floor(next() * 5)) * (per * 7n + 3n);
      let origin = BigInt(Math.floor((next() - 0.5) * 1000));
      for (let r = 0; r < n; r++) {
        const u = next();
        if (u < 0.03) ts -= BigInt(Math.floor(next() * 5000));
        else ts += BigInt(Math.floor(next() * 4));
        if (next() < 0.02) stride = BigInt(1 + Math.floor(next() * 5)) * (per * 7n + 3n);
        if (next() < 0.02) origin = BigInt(Math.floor((next() - 0.5) * 1000));
        strides.push(stride);
        times.push(ts);
        origins.push(origin);
      }
      const got3 = dateBin.evaluate([strides, times, origins], n, {} as never, type);
      const got2 = dateBin.evaluate([strides, times], n, {} as never, type);
      let bad = 0;
      for (let r = 0; r < n; r++) {
        const s = strides[r] as bigint;
        const v = times[r] as bigint;
        if (got3[r] !== expected(s, v, origins[r] as bigint, per)) bad++;
        if (got2[r] !== expected(s, v, undefined, per)) bad++;
      }
      if (bad > 0) {
        t.fail(`${type} trial ${trial}: ${bad} rows differ`);
        return;
      }
    }
    t.pass(`${type}: 40 × 400 rows agree`);
  }
});

t.test('NULLs and a non-positive stride keep their meaning inside a run', async (t) => {
  const s = 60_000_000_000n; // strides come in nanoseconds
  const got = dateBin.evaluate(
    [
      [s, s, s, s],
      [1_000n, null, 1_500n, 61_000n],
    ],
    4,
    {} as never,
    'TimestampMillisecond',
  );
  t.same(got, [0n, null, 0n, 60_000n]);
  t.throws(
    () =>
      dateBin.evaluate(
        [
          [s, 0n],
          [1_000n, 1_200n],
        ],
        2,
        {} as never,
        'TimestampMillisecond',
      ),
    /stride must be non-zero/,
  );
});
