/** The parsed-query cache: most recently used kept, long texts not kept, kept trees frozen. */
import t from 'tap';
import { ParsedCache } from '../../src/query/parsed-cache.js';

t.test('a kept tree comes back frozen, all the way down', async (t) => {
  const cache = new ParsedCache<{ kind: string; args: Array<{ name: string }> }>();
  cache.set('q', { kind: 'call', args: [{ name: 'a' }] });
  const tree = cache.get('q');
  t.ok(tree);
  t.ok(Object.isFrozen(tree));
  t.ok(Object.isFrozen(tree?.args));
  t.ok(Object.isFrozen(tree?.args[0]));
  t.throws(() => {
    (tree as { kind: string }).kind = 'other';
  }, TypeError);
  t.equal(cache.get('other'), undefined);
});

t.test('texts over 1,024 characters are not kept', async (t) => {
  const cache = new ParsedCache<{ n: number }>();
  cache.set('x'.repeat(1024), { n: 1 });
  cache.set('x'.repeat(1025), { n: 2 });
  t.same(cache.get('x'.repeat(1024)), { n: 1 });
  t.equal(cache.get('x'.repeat(1025)), undefined);
});

t.test('past 256 texts the least recently used goes first', async (t) => {
  const cache = new ParsedCache<{ n: number }>();
  for (let i = 0; i < 256; i++) cache.set(`q${i}`, { n: i });
  t.same(cache.get('q0'), { n: 0 }, 'q0 read: now the most recent');
  cache.set('q256', { n: 256 });
  t.same(cache.get('q0'), { n: 0 }, 'q0 stayed');
  t.equal(cache.get('q1'), undefined, 'q1 was the least recently used');
  t.same(cache.get('q256'), { n: 256 });
  t.same(cache.get('q255'), { n: 255 });
});
