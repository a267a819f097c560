import t from 'tap';
import { numberText } from '../../src/shared/number-text.js';
import { prng } from '../helpers/prng.js';

/** Doubles bit-adjacent to `v`, `span` either side. */
function neighbours(v: number, span: number): number[] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const bits = view.getBigInt64(0);
  const out: number[] = [];
  for (let d = -BigInt(span); d <= BigInt(span); d++) {
    view.setBigInt64(0, bits + d);
    out.push(view.getFloat64(0));
  }
  return out;
}

t.test('numberText writes exactly what String writes', async (t) => {
  const next = prng(11);
  const values: number[] = [
    0,
    -0,
    1,
    -1,
    0.01,
    -0.01,
    0.1,
    0.2,
    0.3,
    0.05,
    0.005,
    1e-6,
    1e-7,
    1e13,
    -1e13,
    1e21,
    2 ** 53,
  ];
  values.push(9999999999999.99, -9999999999999.99, 1234567890123.45, 0.1 + 0.2, 48.89, 17601.64, 100.5, 99.99);
  for (let i = 0; i < 200_000; i++) {
    const magnitude = 10 ** Math.floor(next() * 34 - 12);
    const kind = next();
    // Two-decimal values (the fast path), one-decimal, integers, and arbitrary doubles.
    const v =
      kind < 0.3
        ? Math.round(next() * 1e6) / 100
        : kind < 0.4
          ? Math.round(next() * 10 ** Math.floor(next() * 16)) / 100
          : kind < 0.5
            ? Math.round(next() * 1e4) / 10
            : kind < 0.6
              ? Math.round(next() * magnitude)
              : next() * magnitude;
    values.push(next() < 0.5 ? v : -v);
  }
  // Around the fast path's bound and around two-decimal values, bit by bit.
  for (const v of [1e13, -1e13, 9999999999999.99, 0.01, 12.34, 1e12 + 0.01, 2 ** 46 + 0.25])
    values.push(...neighbours(v, 4));
  const differ = values.filter((v) => numberText(v) !== String(v));
  t.same(differ.slice(0, 5), [], `${values.length} values agree`);
  t.equal(numberText(48.9), '48.9');
  t.equal(numberText(-0.07), '-0.07');
  t.equal(numberText(1e13), '10000000000000');
});
