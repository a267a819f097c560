import t from 'tap';
import { IntMap } from '../../src/shared/int-map.js';
import { prng } from '../helpers/prng.js';

t.test('IntMap answers as a Map does, through growth and overwrites', async (t) => {
  const next = prng(3);
  const map = new IntMap<number>();
  const ref = new Map<number, number>();
  for (let i = 0; i < 50_000; i++) {
    // Dense small keys, sparse large ones, and keys that collide in a small table.
    const r = next();
    const key =
      r < 0.4 ? Math.floor(next() * 5000) : r < 0.7 ? Math.floor(next() * 2 ** 31) : Math.floor(next() * 64) * 1024;
    map.set(key, i);
    ref.set(key, i);
  }
  t.equal(map.size, ref.size);
  let wrong = 0;
  for (const [k, v] of ref) if (map.get(k) !== v) wrong++;
  for (let i = 0; i < 10_000; i++) {
    const k = Math.floor(next() * 2 ** 31);
    if (map.get(k) !== ref.get(k)) wrong++;
  }
  t.equal(wrong, 0, 'every key, present or absent');
  t.equal(map.get(-1), undefined, 'a negative key is never present');
  t.throws(() => map.set(-1, 0), RangeError);
  t.throws(() => map.set(2 ** 31, 0), RangeError);
});
