import t from 'tap';
import { decodeHll, encodeHll, hllEstimate, hllInsert, newHll } from '../../../src/query/sql/functions/hyperloglog.js';
import {
  decodeUddSketch,
  encodeUddSketch,
  newUddSketch,
  uddAdd,
  uddMerge,
  uddQuantile,
} from '../../../src/query/sql/functions/uddsketch.js';

// The serialised sketch states (docs/formats/sketch-states.md): layout, round trips, rejection.

function hllOf(count: number): ReturnType<typeof newHll> {
  const sketch = newHll();
  for (let i = 0; i < count; i++) hllInsert(sketch, `value-${i}`);
  return sketch;
}

t.test('an HLL state is written in its smaller form and reads back to the same estimate', async (t) => {
  for (const count of [0, 10, 300, 4000, 50000]) {
    const sketch = hllOf(count);
    const bytes = Buffer.from(encodeHll(sketch), 'latin1');
    t.equal(bytes.toString('latin1', 0, 4), 'SHLL');
    t.same([bytes[4], bytes[5], bytes[7]], [1, 14, 0]);
    const set = sketch.dense ? sketch.dense.filter((r) => r > 0).length : (sketch.sparse as Map<number, number>).size;
    if (set * 3 + 4 < 16384) {
      t.equal(bytes[6], 0, `${count}: sparse`);
      t.equal(bytes.length, 8 + 4 + 3 * set);
      t.equal(bytes.readUInt32LE(8), set);
    } else {
      t.equal(bytes[6], 1, `${count}: dense`);
      t.equal(bytes.length, 8 + 16384);
    }
    const back = decodeHll(bytes.toString('latin1'));
    t.ok(back);
    t.equal(hllEstimate(back as ReturnType<typeof newHll>), hllEstimate(sketch));
  }
});

t.test('bytes that are not an HLL state are refused', async (t) => {
  const good = Buffer.from(encodeHll(hllOf(20)), 'latin1');
  t.equal(decodeHll('junk'), null);
  t.equal(decodeHll(good.subarray(0, good.length - 1).toString('latin1')), null, 'truncated');
  const wrongPrecision = Buffer.from(good);
  wrongPrecision[5] = 12;
  t.equal(decodeHll(wrongPrecision.toString('latin1')), null);
  const badRank = Buffer.from(good);
  badRank[12 + 2] = 52;
  t.equal(decodeHll(badRank.toString('latin1')), null);
});

t.test('a UDDSketch state reads back with its parameters, compactions and counts', async (t) => {
  const sketch = newUddSketch(16, 0.01);
  for (const v of [0, 0, -3.5, -0.25, 1, 10, 100, 1000, 1e6, Number.POSITIVE_INFINITY]) uddAdd(sketch, v);
  for (let i = 1; i <= 200; i++) uddAdd(sketch, i * 1.7);
  t.ok(sketch.compactions > 0, 'the small bucket budget forced compactions');
  const bytes = Buffer.from(encodeUddSketch(sketch), 'latin1');
  t.equal(bytes.toString('latin1', 0, 4), 'SUDD');
  t.equal(bytes[5], sketch.compactions);
  t.equal(bytes.readUInt32LE(8), 16);
  t.equal(bytes.readDoubleLE(12), 0.01);
  t.equal(Number(bytes.readBigUInt64LE(20)), 210);
  t.equal(Number(bytes.readBigUInt64LE(36)), 2, 'zero count');
  const back = decodeUddSketch(bytes.toString('latin1'));
  t.ok(back);
  for (const q of [0, 0.01, 0.25, 0.5, 0.9, 1]) t.equal(uddQuantile(back as typeof sketch, q), uddQuantile(sketch, q));
  t.equal((back as typeof sketch).alpha, sketch.alpha);
  t.equal(uddQuantile(sketch, 1), Number.POSITIVE_INFINITY);
  const lowest = uddQuantile(sketch, 0) as number;
  t.ok(Math.abs(lowest + 3.5) / 3.5 <= sketch.alpha, `lowest ${lowest} is -3.5 within the current bound`);
});

t.test('merging sketches at different compaction levels matches one sketch of all values', async (t) => {
  const values = Array.from({ length: 500 }, (_, i) => Math.exp(i / 40));
  const whole = newUddSketch(64, 0.005);
  for (const v of values) uddAdd(whole, v);
  const low = newUddSketch(64, 0.005);
  const high = newUddSketch(64, 0.005);
  for (const v of values.slice(0, 20)) uddAdd(low, v);
  for (const v of values.slice(20)) uddAdd(high, v);
  t.ok(high.compactions > low.compactions);
  uddMerge(low, high);
  t.equal(low.compactions, whole.compactions);
  t.equal(low.count, whole.count);
  for (const q of [0.1, 0.5, 0.99]) t.equal(uddQuantile(low, q), uddQuantile(whole, q));
});

t.test('bytes that are not a consistent UDDSketch state are refused', async (t) => {
  const sketch = newUddSketch(128, 0.01);
  for (const v of [1, 2, 3]) uddAdd(sketch, v);
  const good = Buffer.from(encodeUddSketch(sketch), 'latin1');
  t.ok(decodeUddSketch(good.toString('latin1')));
  t.equal(decodeUddSketch('junk'), null);
  const wrongCount = Buffer.from(good);
  wrongCount.writeBigUInt64LE(4n, 20);
  t.equal(decodeUddSketch(wrongCount.toString('latin1')), null);
  const badError = Buffer.from(good);
  badError.writeDoubleLE(1.5, 12);
  t.equal(decodeUddSketch(badError.toString('latin1')), null);
  t.equal(decodeUddSketch(good.subarray(0, good.length - 8).toString('latin1')), null);
});
