import t from 'tap';
import { createState, finishState, updateStates } from '../../../src/query/sql/exec/aggregate-exec.js';
import { foldTyped } from '../../../src/query/sql/exec/typed-fold.js';
import type { Batch } from '../../../src/query/sql/plan/eval.js';
import type { AggregateCall } from '../../../src/query/sql/plan/plan.js';
import type { Value } from '../../../src/query/sql/types/value.js';

const column = { kind: 'column' as const, index: 0, type: 'Float64' as const };

function call(name: string, type: AggregateCall['type']): AggregateCall {
  return { name, args: [column], distinct: false, type };
}

// Values with NULLs, NaN, -0 and infinities; rows selected out of order of groups.
const values = Float64Array.from([1.5, Number.NaN, -0, 4, 2, Number.POSITIVE_INFINITY, 7, -3, 0.1, 0.2, 0.3, 9]);
const valid = Uint8Array.from([1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1]);

function batchOf(selection: Uint32Array | undefined): Batch {
  const rows = selection ? [...selection] : values.map((_, i) => i);
  const boxed: Value[] = [...rows].map((i) => (valid[i] === 0 ? null : (values[i] as number)));
  return { rowCount: boxed.length, columns: [boxed], vectors: [{ kind: 'f64', values, valid }], selection };
}

const calls = [
  call('count', 'Int64'),
  call('sum', 'Float64'),
  call('avg', 'Float64'),
  call('min', 'Float64'),
  call('max', 'Float64'),
];

for (const selection of [undefined, Uint32Array.from([0, 1, 2, 4, 5, 6, 8, 9, 10, 11])]) {
  t.test(`folded from the vector as from boxed values (${selection ? 'selected rows' : 'all rows'})`, async (t) => {
    const batch = batchOf(selection);
    // Runs of one group, a group revisited later, single-row runs.
    const groupOf = Uint32Array.from(
      { length: batch.rowCount },
      (_, r) => [0, 0, 1, 1, 0, 2, 2, 2, 1, 0, 0, 0][r] as number,
    );
    for (const c of calls) {
      const typed = [0, 1, 2].map(() => createState(c));
      const boxed = [0, 1, 2].map(() => createState(c));
      t.ok(foldTyped(c, batch, groupOf, typed), `${c.name} takes the typed fold`);
      updateStates(c, boxed, groupOf, [batch.columns[0] as Value[]], batch.rowCount);
      const a = typed.map((s) => finishState(c, s));
      const b = boxed.map((s) => finishState(c, s));
      t.ok(
        a.every((v, i) => Object.is(v, b[i])),
        `${c.name}: ${String(a)} = ${String(b)}`,
      );
    }
  });
}

t.test('anything but a Float64 vector argument is left to the boxed path', async (t) => {
  const batch = batchOf(undefined);
  const groupOf = new Uint32Array(batch.rowCount);
  const states = [createState(calls[1] as AggregateCall)];
  const cases: AggregateCall[] = [
    { ...call('sum', 'Float64'), distinct: true },
    { ...call('sum', 'Float64'), args: [{ ...column, type: 'Int64' }] },
    { ...call('sum', 'Float64'), args: [{ kind: 'literal', value: 1, type: 'Float64' }] },
    { ...call('sum', 'Float64'), rangeNanos: 10n },
    call('first_value', 'Float64'),
  ];
  for (const c of cases)
    t.notOk(
      foldTyped(c, batch, groupOf, states),
      JSON.stringify(c, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
    );
  t.notOk(foldTyped(calls[1] as AggregateCall, { ...batch, vectors: undefined }, groupOf, states), 'no vectors');
  t.notOk(
    foldTyped(
      calls[1] as AggregateCall,
      { ...batch, vectors: [{ kind: 'i64', values: new BigInt64Array(12) }] },
      groupOf,
      states,
    ),
    'an int64 vector',
  );
});
