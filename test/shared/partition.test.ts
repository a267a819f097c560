import t from 'tap';
import { shardOfSeries, tableHash } from '../../src/shared/partition.js';

t.test('the same series always maps to the same shard', async (t) => {
  const h = tableHash('public', 'cpu');
  const a = shardOfSeries(h, ['host', 'region'], ['a', 'eu'], 4);
  for (let i = 0; i < 10; i++)
    t.equal(shardOfSeries(tableHash('public', 'cpu'), ['host', 'region'], ['a', 'eu'], 4), a);
});

t.test('absent tags do not change the series identity', async (t) => {
  const h = tableHash('public', 'cpu');
  t.equal(shardOfSeries(h, ['dc', 'host'], [null, 'a'], 8), shardOfSeries(h, ['host'], ['a'], 8));
});

t.test('the table takes part in placement', async (t) => {
  t.not(tableHash('public', 'cpu'), tableHash('public', 'mem'));
  t.not(tableHash('db1', 'cpu'), tableHash('db2', 'cpu'));
});

t.test('series spread over every shard', async (t) => {
  const h = tableHash('public', 'cpu');
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) {
    const s = shardOfSeries(h, ['host'], [`host_${i}`], 4);
    counts[s] = (counts[s] as number) + 1;
  }
  for (const c of counts) t.ok(c > 700 && c < 1300, `balanced enough: ${counts.join(',')}`);
});

t.test('one shard means shard 0', async (t) => {
  t.equal(shardOfSeries(tableHash('public', 'x'), ['a'], ['b'], 1), 0);
});
