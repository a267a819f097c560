import t from 'tap';
import { MemorySource } from '../../../src/query/promql/memory-source.js';
import { isStaleNaN, type Labels, staleNaN } from '../../../src/query/promql/types.js';

const series = (name: string, job: string): Labels => [
  { name: '__name__', value: name },
  { name: 'job', value: job },
];

t.test('select returns samples in (start, end] of matching series, sorted by labels', async (t) => {
  const source = new MemorySource();
  source.add(series('b', 'x'), 10, 1);
  source.add(series('a', 'y'), 10, 2);
  source.add(series('a', 'x'), 10, 3);
  source.add(series('a', 'x'), 20, 4);
  source.add(series('a', 'x'), 30, 5);
  const selected = await source.select({
    matchers: [{ name: '__name__', op: '=~', value: 'a' }],
    startMs: 10,
    endMs: 20,
  });
  t.same(
    selected.map((s) => [s.labels[1]?.value, Array.from(s.t), Array.from(s.v)]),
    [['x', [20], [4]]],
    'a{job="y"} has nothing after 10 and is left out',
  );
  const all = await source.select({ matchers: [{ name: 'job', op: '!=', value: '' }], startMs: 0, endMs: 100 });
  t.same(
    all.map((s) => `${s.labels[0]?.value}/${s.labels[1]?.value}`),
    ['a/x', 'a/y', 'b/x'],
  );
  const absent = await source.select({ matchers: [{ name: 'missing', op: '=', value: '' }], startMs: 0, endMs: 100 });
  t.equal(absent.length, 3, 'a missing label matches the empty string');
});

t.test('out-of-order appends are sorted and a repeated timestamp keeps the last value', async (t) => {
  const source = new MemorySource();
  source.add(series('m', 'j'), 30, 3);
  source.add(series('m', 'j'), 10, 1);
  source.add(series('m', 'j'), 30, 33);
  const [selected] = await source.select({
    matchers: [{ name: '__name__', op: '=', value: 'm' }],
    startMs: 0,
    endMs: 100,
  });
  t.same(Array.from(selected?.t ?? []), [10, 30]);
  t.same(Array.from(selected?.v ?? []), [1, 33]);
});

t.test('staleness markers keep their NaN payload through storage', async (t) => {
  const source = new MemorySource();
  for (let k = 0; k < 40; k++) source.add(series('m', 'j'), k, k === 37 ? staleNaN() : Number.NaN);
  const [selected] = await source.select({
    matchers: [{ name: '__name__', op: '=', value: 'm' }],
    startMs: -1,
    endMs: 100,
  });
  // Read straight from the typed array: copying into a plain array would itself drop payloads.
  const values = selected?.v ?? new Float64Array();
  const stale: boolean[] = [];
  for (let i = 0; i < values.length; i++) stale.push(isStaleNaN(values[i] as number));
  t.same(stale.indexOf(true), 37);
  t.equal(stale.filter(Boolean).length, 1, 'an ordinary NaN is not a marker');
});

t.test('series, label names and label values filter by matcher sets and time', async (t) => {
  const source = new MemorySource();
  source.add(series('a', 'x'), 10, 1);
  source.add(series('b', 'y'), 50, 1);
  t.same(await source.labelNames([], 0, 100), ['__name__', 'job']);
  t.same(await source.labelValues('job', [], 0, 20), ['x']);
  t.same(await source.labelValues('job', [[{ name: '__name__', op: '=', value: 'b' }]], 0, 100), ['y']);
  t.same(await source.series([[{ name: 'job', op: '=~', value: 'x|y' }]], 50, 50), [series('b', 'y')]);
});
