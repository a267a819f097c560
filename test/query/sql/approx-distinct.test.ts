/**
 * approx_distinct: exact while a group has seen few values, then a HyperLogLog sketch whose state
 * stays bounded (a Set of every value could fill a shard's heap). Partial states merge across
 * shards in any order, whatever form each is in.
 */
import t from 'tap';
import { aggregateFunction } from '../../../src/query/sql/functions/registry.js';
import type { Value } from '../../../src/query/sql/types/values.js';
import { prng } from '../../helpers/prng.js';

const fn = aggregateFunction('approx_distinct');

/** One state fed `values`, in batches of 1,000 rows. */
function stateOf(values: Value[]): unknown {
  const state = fn.create([]);
  for (let from = 0; from < values.length; from += 1000) {
    const batch = values.slice(from, from + 1000);
    fn.update([state], new Uint32Array(batch.length), [batch], batch.length, ['Utf8' as never]);
  }
  return state;
}

const count = (state: unknown): number => Number(fn.finish(state, 'UInt64'));

t.test('exact while few, NULLs skipped, one NaN and one zero', async (t) => {
  t.equal(count(stateOf([1, 2, 2, null, 3, Number.NaN, Number.NaN, 0, -0])), 5);
  t.equal(count(stateOf(['a', 'b', 'a', null])), 2);
  t.equal(
    count(stateOf([[1, 2] as unknown as Value, [1, 2] as unknown as Value, [2] as unknown as Value])),
    2,
    'equal lists count once',
  );
  const thousand = Array.from({ length: 1024 }, (_, i) => `v${i}`);
  t.equal(count(stateOf([...thousand, ...thousand])), 1024, 'exact up to the switch');
});

t.test('past the switch: an estimate within 3%, and a state of bounded size', async (t) => {
  const next = prng(9);
  for (const n of [1025, 5_000, 100_000, 400_000]) {
    const values: Value[] = [];
    for (let i = 0; i < n; i++) values.push(next() < 0.5 ? `host-${i}` : i * 1.5);
    // Repeats change nothing.
    for (let i = 0; i < n / 4; i++) values.push(values[Math.floor(next() * n)] as Value);
    const state = stateOf(values) as { seen: Set<unknown> | null; sketch: { dense: Uint8Array | null } | null };
    const estimate = count(state);
    t.ok(Math.abs(estimate - n) / n < 0.03, `${n} distinct: estimate ${estimate}`);
    t.equal(state.seen, null, `${n} distinct: the values are no longer held`);
    t.ok(state.sketch !== null, `${n} distinct: held as a sketch`);
  }
});

t.test('partial states merge in any order and form, as one state over all rows would count', async (t) => {
  const next = prng(4);
  const all: Value[] = Array.from({ length: 30_000 }, (_, i) => `k${i % 9_000}`);
  // Three shards: one with few values (exact), two with many (sketches), overlapping.
  const parts: Value[][] = [all.slice(0, 500), all.slice(500, 16_000), all.slice(12_000)];
  const whole = count(stateOf(all));
  for (let trial = 0; trial < 6; trial++) {
    const order = [0, 1, 2].sort(() => next() - 0.5);
    const into = stateOf(parts[order[0] as number] as Value[]);
    fn.merge(into, stateOf(parts[order[1] as number] as Value[]));
    fn.merge(into, stateOf(parts[order[2] as number] as Value[]));
    t.equal(count(into), whole, `order ${order.join(',')}: ${count(into)}`);
  }
  t.ok(Math.abs(whole - 9_000) / 9_000 < 0.03, `9,000 distinct estimated ${whole}`);
  // Two exact states whose union passes the switch become a sketch when merged.
  const a = stateOf(Array.from({ length: 800 }, (_, i) => i));
  fn.merge(a, stateOf(Array.from({ length: 800 }, (_, i) => i + 400)));
  t.ok(Math.abs(count(a) - 1200) <= 12, `two exact halves merge to ~1,200 (${count(a)})`);
});
