/**
 * A table's next memtable starts with room for the rows its last one held, so a steady stream of
 * rows is not copied through every doubling of its columns again after each flush.
 */
import t from 'tap';
import { Memtable } from '../../../src/shard/memtable/memtable.js';
import { capacityFor, INITIAL_TABLE_CAPACITY } from '../../../src/shard/memtable/table-memtable.js';
import { type TestRow, tableRows } from '../helpers.js';

function rows(n: number, from = 0): TestRow[] {
  return Array.from({ length: n }, (_, i) => ({
    ts: BigInt(from + i),
    tags: { 1: `h${i % 7}` },
    fields: { 10: i, 11: `v${i}` },
  }));
}

const kinds = { 10: 'f64', 11: 'str' } as const;

t.test('capacityFor: the power of two at or above the rows, within its bounds', async (t) => {
  t.equal(capacityFor(0), INITIAL_TABLE_CAPACITY);
  t.equal(capacityFor(1024), 1024);
  t.equal(capacityFor(1025), 2048);
  t.equal(capacityFor(5000), 8192);
  t.equal(capacityFor(1e9), 1 << 22, 'bounded');
});

t.test('a memtable sizes its tables by the memtable it follows', async (t) => {
  const first = new Memtable();
  first.apply({ tables: [tableRows(7, kinds, rows(5000))] }, (r) => r);
  first.apply({ tables: [tableRows(8, kinds, rows(10))] }, (r) => r);
  const next = new Memtable(first);
  next.apply({ tables: [tableRows(7, kinds, rows(1, 9000))] }, (r) => r);
  next.apply({ tables: [tableRows(9, kinds, rows(1, 9000))] }, (r) => r);
  const seven = next.tables.get(7);
  t.equal(seven?.capacity, 8192, 'room for the 5,000 rows table 7 had');
  t.equal(next.tables.get(9)?.capacity, INITIAL_TABLE_CAPACITY, 'a table new to it starts small');
  t.equal(seven?.ts.length, 8192);
  t.equal(seven?.prevRow.length, 8192);
  // Rows still land where they belong, and the estimate counts the room taken.
  next.apply({ tables: [tableRows(7, kinds, rows(6000, 10_000))] }, (r) => r);
  t.equal(seven?.rows, 6001);
  t.equal(seven?.capacity, 8192, 'no growth needed');
  t.ok((seven?.bytes ?? 0) >= 8192 * 12, 'the estimate counts the capacity');
  const s = seven?.series.values().next().value;
  t.ok(s !== undefined && s.count > 0);
  t.equal(new Memtable(next).tables.size, 0, 'sizes carry over, tables do not');
});
