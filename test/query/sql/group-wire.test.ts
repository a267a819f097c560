import t from 'tap';
import {
  groupBuffers,
  groupsResult,
  keyAt,
  packKeys,
  packStates,
  stateAt,
} from '../../../src/query/sql/exec/group-wire.js';

t.test('numeric states of one shape are packed and rebuilt exactly', async (t) => {
  const states = [
    { sum: 1.5, count: 2 },
    { sum: null, count: 0 },
    { sum: Number.NaN, count: 1 },
    { sum: -0, count: 3 },
    { sum: Number.POSITIVE_INFINITY, count: 9007199254740991 },
  ];
  const packed = packStates(states);
  t.equal(packed.kind, 'fields');
  const back = states.map((_, g) => stateAt(packed, g));
  t.same(back.slice(0, 2), states.slice(0, 2));
  t.ok(Number.isNaN((back[2] as { sum: number }).sum));
  t.ok(Object.is((back[3] as { sum: number }).sum, -0));
  t.same(back[4], states[4]);
  // A rebuilt state is a new object: merging into it must not touch the packed columns.
  (back[0] as { count: number }).count = 100;
  t.same(stateAt(packed, 0), { sum: 1.5, count: 2 });
});

t.test('states that are not all numeric plain objects of one shape travel as they are', async (t) => {
  const cases: unknown[][] = [
    [{ value: 'a' }, { value: 'b' }],
    [{ value: 1n }],
    [
      { sum: 1, count: 1 },
      { count: 1, sum: 1 },
    ],
    [{ sum: 1, count: 1 }, { sum: 1 }],
    [{ sum: 1 }, { sum: 1, count: 1 }],
    [{ distinct: new Set([1]), rest: null }],
    [[1, 2]],
    [3],
    [{}],
  ];
  for (const states of cases) {
    const packed = packStates(states);
    t.equal(
      packed.kind,
      'objects',
      JSON.stringify(states, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
    );
    t.equal(stateAt(packed, 0), states[0]);
  }
});

t.test('groups go as key columns; packed buffers are listed for transfer', async (t) => {
  const result = groupsResult(
    [
      ['h1', 10n],
      ['h2', 20n],
    ],
    [
      [{ count: 1 }, { count: 2 }],
      [{ value: 'x' }, { value: 'y' }],
    ],
  );
  t.equal(result.count, 2);
  t.same(
    result.keys.map((k) => k.kind),
    ['values', 'i64'],
  );
  t.same(
    result.keys.map((k) => [keyAt(k, 0), keyAt(k, 1)]),
    [
      ['h1', 'h2'],
      [10n, 20n],
    ],
  );
  t.equal(result.states[0]?.kind, 'fields');
  t.equal(result.states[1]?.kind, 'objects');
  const buffers = groupBuffers(result);
  t.equal(buffers.length, 2);
  const copy = structuredClone(result, { transfer: buffers });
  t.same(stateAt(copy.states[0] as never, 1), { count: 2 });
  t.same(groupsResult([], []), { kind: 'groups', count: 0, keys: [], states: [] });
});

t.test('key columns: numbers and int64 bigints packed with their NULLs, anything else as values', async (t) => {
  const cases: Array<{ values: Array<null | boolean | number | bigint | string>; kind: string }> = [
    { values: [1, null, -0, Number.NaN, 2.5], kind: 'f64' },
    { values: [null, 5n, -(2n ** 63n), 2n ** 63n - 1n, null], kind: 'i64' },
    { values: [1n, 2n ** 64n], kind: 'values' },
    { values: [1, 2n], kind: 'values' },
    { values: [1, 'a'], kind: 'values' },
    { values: [true, false], kind: 'values' },
    { values: [null, null], kind: 'values' },
  ];
  for (const { values, kind } of cases) {
    const packed = packKeys(values);
    t.equal(packed.kind, kind, String(values.map(String)));
    const back = values.map((_, g) => keyAt(packed, g));
    t.ok(
      back.every((v, g) => Object.is(v, values[g])),
      `${kind} round trip`,
    );
  }
});
