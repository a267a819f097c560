import t from 'tap';
import { dateBinKeys } from '../../../src/query/sql/exec/date-bin-keys.js';
import type { Batch } from '../../../src/query/sql/plan/eval.js';
import type { PlanExpr } from '../../../src/query/sql/plan/plan.js';
import { floorDiv } from '../../../src/shared/bigint-math.js';
import type { DataType } from '../../../src/shared/types.js';
import { prng } from '../../helpers/prng.js';

// GROUP BY date_bin keys from the typed timestamps: the bins date_bin's arithmetic gives, or null
// (the general path) where floats could not be exact.

const PER: Record<string, bigint> = {
  TimestampSecond: 1_000_000_000n,
  TimestampMillisecond: 1_000_000n,
  TimestampMicrosecond: 1_000n,
  TimestampNanosecond: 1n,
};

function call(strideNanos: bigint, type: DataType): PlanExpr {
  return {
    kind: 'call',
    name: 'date_bin',
    args: [
      { kind: 'literal', value: strideNanos, type: 'Int64' },
      { kind: 'column', index: 0, type },
    ],
    type,
  } as PlanExpr;
}

function batchOf(times: bigint[], selection?: Uint32Array): Batch {
  const values = BigInt64Array.from(times);
  const rowCount = selection ? selection.length : times.length;
  return { rowCount, columns: [], vectors: [{ kind: 'i64', values }], selection };
}

t.test('bins are date_bin’s for every unit, stride and selection, within the exact range', async (t) => {
  const rand = prng(31);
  for (const type of ['TimestampSecond', 'TimestampMillisecond', 'TimestampMicrosecond'] as DataType[]) {
    const per = PER[type] as bigint;
    for (const strideUnits of [1n, 7n, 60n, 3_600n, 86_400_000n]) {
      const stride = strideUnits * per;
      // Runs in time order around now and around zero, and a jump back, as series come.
      const base = BigInt(Math.floor(rand() * 2 ** 40)) - 2n ** 39n;
      const times = Array.from({ length: 500 }, (_, i) => base + BigInt(i * Math.floor(rand() * 5)));
      times.push(-1n, 0n, 1n, stride / per - 1n, stride / per, 2n ** 51n, -(2n ** 51n));
      const selection = Uint32Array.from({ length: 200 }, () => Math.floor(rand() * times.length)).sort();
      for (const sel of [undefined, selection]) {
        const bins = dateBinKeys(call(stride, type), batchOf(times, sel));
        t.ok(bins, `${type} ${strideUnits}`);
        const rows = sel ? [...sel].map((i) => times[i] as bigint) : times;
        const want = rows.map((v) => floorDiv(floorDiv(v * per, stride) * stride, per));
        t.same(
          [...(bins as Float64Array)].map((b) => BigInt(b)),
          want,
          `${type}, stride ${strideUnits}${sel ? ', selected rows' : ''}`,
        );
      }
    }
  }
});

t.test('what floats could get wrong takes the general path', async (t) => {
  t.equal(dateBinKeys(call(3_600_000_000_000n, 'TimestampNanosecond'), batchOf([1_700_000_000_000_000_000n])), null);
  t.equal(dateBinKeys(call(1_500_000n, 'TimestampMillisecond'), batchOf([1n])), null, 'a stride of 1.5 ms');
  t.equal(dateBinKeys(call(-1_000_000n, 'TimestampMillisecond'), batchOf([1n])), null, 'a negative stride');
  const withNull: Batch = {
    rowCount: 1,
    columns: [],
    vectors: [{ kind: 'i64', values: BigInt64Array.of(1n), valid: Uint8Array.of(0) }],
  };
  t.equal(dateBinKeys(call(1_000_000n, 'TimestampMillisecond'), withNull), null, 'NULL timestamps');
});
