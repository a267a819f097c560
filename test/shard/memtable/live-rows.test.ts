/**
 * Rows past a table's ttl are left out before the memtable (live-rows.ts): the others keep their
 * values and series, and a series left without rows is not added.
 */
import t from 'tap';
import { liveRowsOf } from '../../../src/shard/memtable/live-rows.js';
import { Memtable } from '../../../src/shard/memtable/memtable.js';
import { seriesKeyOf } from '../../../src/shared/series-key.js';
import { tableRows } from '../helpers.js';

const rows = () =>
  tableRows(1, { 10: 'f64', 11: 'str' }, [
    { ts: -5n, tags: { 1: 'gone' }, fields: { 10: 1, 11: 'a' } },
    { ts: 2n ** 33n, tags: { 1: 'kept' }, fields: { 10: 2, 11: 'b' } },
    { ts: 99n, tags: { 1: 'gone' }, fields: { 10: 3, 11: 'c' } },
    { ts: 100n, tags: { 1: 'edge' }, fields: { 10: 4 } },
  ]);

t.test('rows before the cutoff are left out, the rest keep their values', async (t) => {
  const live = liveRowsOf(rows(), 100n);
  t.ok(live);
  t.equal(live?.rowCount, 2);
  t.same([...(live?.timestamps ?? [])], [2n ** 33n, 100n], 'high words compared first; the cutoff itself is kept');
  t.same(Array.from((live?.fields.find((f) => f.id === 10)?.vector.values ?? []) as Float64Array), [2, 4]);
  t.same(live?.fields.find((f) => f.id === 11)?.vector.values, ['b', null]);
});

t.test('nothing or everything expired', async (t) => {
  const all = rows();
  t.equal(liveRowsOf(all, -(2n ** 62n)), all, 'none expired: the same rows');
  t.equal(liveRowsOf(rows(), 2n ** 62n), null, 'all expired: nothing');
  t.equal(liveRowsOf(rows(), -4n)?.rowCount, 3, 'a negative cutoff');
});

t.test('a series whose rows all expired is not added to the memtable', async (t) => {
  const m = new Memtable();
  const applied = m.apply({ tables: [rows()] }, (r) => liveRowsOf(r, 100n));
  t.equal(applied, 2);
  const table = m.tables.get(1);
  t.same(
    [...(table?.series.keys() ?? [])].sort(),
    [seriesKeyOf([1], ['edge']), seriesKeyOf([1], ['kept'])].sort(),
    'only the series with rows left',
  );
  t.equal(table?.sortedSeries().keys.length, 2);
});
