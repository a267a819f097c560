import t from 'tap';
import { dateBinGroups } from '../../../src/query/sql/exec/date-bin-keys.js';
import type { Batch } from '../../../src/query/sql/plan/eval.js';
import type { PlanExpr } from '../../../src/query/sql/plan/plan.js';
import type { Value } from '../../../src/query/sql/types/values.js';
import { floorDiv } from '../../../src/shared/bigint-math.js';
import type { DataType } from '../../../src/shared/types.js';
import { prng } from '../../helpers/prng.js';

// GROUP BY date_bin groups from the typed timestamps: each row in the group of the bin date_bin's
// arithmetic gives, and a look-up only where a row leaves the bin of the row before.

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

/** Groups numbered by first appearance of their key, as the shard's key index numbers them. */
function keyed(): { keys: Value[]; lookUps: number; groupOf: (key: Value[]) => number } {
  const numbers = new Map<Value, number>();
  const state = {
    keys: [] as Value[],
    lookUps: 0,
    groupOf: (key: Value[]): number => {
      state.lookUps++;
      const k = key[0] as Value;
      let g = numbers.get(k);
      if (g === undefined) {
        g = state.keys.length;
        numbers.set(k, g);
        state.keys.push(k);
      }
      return g;
    },
  };
  return state;
}

t.test('rows land in the bins date_bin gives, for every unit, stride and selection', async (t) => {
  const rand = prng(31);
  for (const type of Object.keys(PER) as DataType[]) {
    const per = PER[type] as bigint;
    for (const stride of [1n, 7n, 1_000_000_000n, 3_600_000_000_000n, 86_400_000_000_000n, 7n * per]) {
      // Runs in time order around now and around zero, and jumps back, as series come.
      const base = BigInt(Math.floor(rand() * 2 ** 40)) * (type === 'TimestampNanosecond' ? 1_000_000n : 1n);
      const times: bigint[] = [];
      for (const origin of [base, -base, 0n]) {
        let v = origin;
        for (let i = 0; i < 300; i++) times.push((v += BigInt(Math.floor(rand() * 3)) * (stride / 3n + 1n)));
      }
      times.push(-1n, 0n, 1n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 62n, -(2n ** 62n));
      const selection = Uint32Array.from({ length: 200 }, () => Math.floor(rand() * times.length)).sort();
      for (const sel of [undefined, selection]) {
        const index = keyed();
        const groups = dateBinGroups(call(stride, type), batchOf(times, sel), index.groupOf);
        t.ok(groups, `${type} ${stride}`);
        const rows = sel ? [...sel].map((i) => times[i] as bigint) : times;
        const want = rows.map((v) => floorDiv(floorDiv(v * per, stride) * stride, per));
        t.same(
          [...(groups as Uint32Array)].map((g) => index.keys[g]),
          want,
          `${type}, stride ${stride} ns${sel ? ', selected rows' : ''}`,
        );
      }
    }
  }
});

t.test('a run of rows in one bin is looked up once', async (t) => {
  const index = keyed();
  const times = Array.from({ length: 3600 }, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n);
  dateBinGroups(call(3_600_000_000_000n, 'TimestampNanosecond'), batchOf(times), index.groupOf);
  t.equal(index.lookUps, 2, 'two hours, two look-ups');
});

t.test('other calls and NULL timestamps take the general path', async (t) => {
  const none = keyed().groupOf;
  t.equal(dateBinGroups(call(-1_000_000n, 'TimestampMillisecond'), batchOf([1n]), none), null, 'negative stride');
  const withNull: Batch = {
    rowCount: 1,
    columns: [],
    vectors: [{ kind: 'i64', values: BigInt64Array.of(1n), valid: Uint8Array.of(0) }],
  };
  t.equal(dateBinGroups(call(1_000_000n, 'TimestampMillisecond'), withNull, none), null, 'NULL timestamps');
  const noVector: Batch = { rowCount: 1, columns: [[1n]] };
  t.equal(dateBinGroups(call(1_000_000n, 'TimestampMillisecond'), noVector, none), null, 'no vector');
});
