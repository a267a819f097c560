/** The tag filter: no false "absent", few false "maybe"s, keys read exactly as series-key.ts writes them. */
import t from 'tap';
import { seriesKeyOf } from '../../src/shared/series-key.js';
import { TagFilter } from '../../src/shared/tag-filter.js';

t.test('every tag of every added key is held, in its table and column only', async (t) => {
  const filter = new TagFilter();
  const values = ['', 'a', 'host_7', 'x'.repeat(300), 'ünïcødé ✓', 'comma,colon:', '12,3:4'];
  for (const [i, v] of values.entries()) filter.addKey(9, seriesKeyOf([2, 13, 1024], [v, `other${i}`, 'z']));
  for (const [i, v] of values.entries()) {
    t.ok(filter.mayHold(9, 2, v), `column 2 holds ${JSON.stringify(v)}`);
    t.ok(filter.mayHold(9, 13, `other${i}`));
  }
  t.ok(filter.mayHold(9, 1024, 'z'), 'a four-digit column id');
  t.notOk(filter.mayHold(10, 2, 'host_7'), 'another table');
  t.notOk(filter.mayHold(9, 3, 'host_7'), 'another column');
  t.notOk(filter.mayHold(9, 2, 'host_8'), 'another value');
});

t.test('false maybes stay rare at 100,000 values', async (t) => {
  const filter = new TagFilter();
  for (let i = 0; i < 100_000; i++) filter.addKey(1, seriesKeyOf([1], [`host_${i}`]));
  let held = 0;
  for (let i = 0; i < 100_000; i++) held += filter.mayHold(1, 1, `host_${i}`) ? 1 : 0;
  t.equal(held, 100_000, 'none lost');
  let maybes = 0;
  for (let i = 100_000; i < 200_000; i++) maybes += filter.mayHold(1, 1, `host_${i}`) ? 1 : 0;
  t.ok(maybes < 10, `${maybes} false maybes in 100,000 absent values`);
});

t.test('complete is shared through the buffer; a malformed key throws', async (t) => {
  const shard = new TagFilter();
  const router = new TagFilter(shard.buffer);
  t.notOk(router.complete);
  shard.addKey(1, seriesKeyOf([4], ['v']));
  shard.markComplete();
  t.ok(router.complete);
  t.ok(router.mayHold(1, 4, 'v'), 'the bits are shared too');
  t.throws(() => shard.addKey(1, '4,1'), /malformed series key/);
  t.throws(() => shard.addKey(1, 'x,1:v'), /malformed series key/);
});
