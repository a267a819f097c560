import t from 'tap';
import { ryuFloat, ryuFloatByLayout } from '../../src/shared/ryu.js';
import { prng } from '../helpers/prng.js';

t.test("the plain-range shortcut writes what ryu's layout writes", async (t) => {
  const next = prng(5);
  const values: number[] = [1e-5, 1e16, 9.999999999999998e15, 1e16 - 2, 0.1, 0.3, 1, 2 ** 53, 2 ** 53 + 2, 123456.5];
  values.push(0.00001000000000000001, 0.000009999999999999999, 1.5e-5, 4.35, 100, 1e15, 12345678901234568);
  for (let i = 0; i < 100_000; i++) {
    // Random magnitudes across and around the shortcut's range, random digits, both signs.
    const magnitude = 10 ** Math.floor(next() * 30 - 10);
    const v = (next() < 0.2 ? Math.round(next() * 1e6) : next()) * magnitude;
    values.push(next() < 0.5 ? v : -v);
  }
  // Doubles bit-adjacent to the range's edges.
  const view = new DataView(new ArrayBuffer(8));
  for (const edge of [1e-5, 1e16]) {
    view.setFloat64(0, edge);
    const bits = view.getBigUint64(0);
    for (let d = -3n; d <= 3n; d++) {
      view.setBigUint64(0, bits + d);
      values.push(view.getFloat64(0));
    }
  }
  const differ = values.filter((v) => v !== 0 && ryuFloat(v) !== ryuFloatByLayout(v));
  t.same(differ.slice(0, 5), [], `${values.length} values agree`);
  t.equal(ryuFloat(1), '1.0');
  t.equal(ryuFloat(-2.5), '-2.5');
  t.equal(ryuFloat(1e16), '1e16');
  t.equal(ryuFloat(1e-7), '1e-7');
  t.equal(ryuFloat(0.0001), '0.0001');
  t.equal(ryuFloat(123456789012345.6), '123456789012345.6');
});
