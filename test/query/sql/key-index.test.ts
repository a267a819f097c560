/** KeyIndex: GROUP BY keys numbered by value, level by level, with SQL's notion of equal keys. */
import t from 'tap';
import { KeyIndex } from '../../../src/query/sql/exec/key-index.js';
import type { Value } from '../../../src/query/sql/types/values.js';

function numbering(keys: Value[][]): number[] {
  const index = new KeyIndex();
  let next = 0;
  return keys.map((k) => index.numberOf(k, () => next++));
}

t.test('equal keys share a number, different keys do not', async (t) => {
  t.same(
    numbering([
      ['a', 1n],
      ['a', 2n],
      ['b', 1n],
      ['a', 1n],
      ['b', 1n],
    ]),
    [0, 1, 2, 0, 2],
  );
});

t.test('lists group by their contents, not their identity', async (t) => {
  t.same(numbering([[[1, 2]], [[1, 2]], [[2, 1]], [[1, [2]]]]), [0, 0, 1, 2]);
});

t.test('NULL, NaN and zeros group as SQL does', async (t) => {
  t.same(numbering([[null, 'x'], [null, 'x'], [Number.NaN], [Number.NaN], [0], [-0]]), [0, 0, 1, 1, 2, 2]);
});

t.test('the empty key (a global aggregate) is one group; prefixes are not confused with keys', async (t) => {
  t.same(numbering([[], [], ['a'], ['a', 'b'], ['a']]), [0, 0, 1, 2, 1]);
});

t.test('the key array passed in may be reused by the caller', async (t) => {
  const index = new KeyIndex();
  const kept: Value[][] = [];
  const key: Value[] = ['a', 1];
  index.numberOf(key, (k) => kept.push(k.slice()) - 1);
  key[1] = 2;
  t.equal(
    index.numberOf(key, (k) => kept.push(k.slice()) - 1),
    1,
  );
  t.same(kept, [
    ['a', 1],
    ['a', 2],
  ]);
});
