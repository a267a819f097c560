import t from 'tap';
import { changes, resets } from '../../../../src/query/promql/functions/counter-changes.js';
import { MINUTE_MS, TestSeries } from './series-window.js';

const FIVE_MINUTES_MS = 5 * MINUTE_MS;
const foo = new TestSeries(FIVE_MINUTES_MS, [1, 2, 3, 0, 1, 0, 0, 1, 2, 0]);
const bar = new TestSeries(FIVE_MINUTES_MS, [1, 2, 3, 4, 5, 1, 2, 3, 4, 5]);
const biz = new TestSeries(FIVE_MINUTES_MS, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
const at50m = 50 * MINUTE_MS;

t.test('resets counts drops inside the window', async (t) => {
  const expected: [number, number, number, number][] = [
    [10, 0, 0, 0],
    [20, 1, 0, 0],
    [30, 1, 0, 0],
    [32, 2, 1, 0],
    [50, 3, 1, 0],
  ];
  for (const [minutes, a, b, c] of expected) {
    t.same(
      [foo, bar, biz].map((s) => resets(s.window(at50m, minutes * MINUTE_MS))),
      [a, b, c],
      `${minutes}m`,
    );
  }
  t.equal(resets(foo.window(at50m, 5 * MINUTE_MS)), undefined, 'the last sample is at 45m');
});

t.test('changes counts value changes inside the window', async (t) => {
  const expected: [number, number, number, number][] = [
    [6, 0, 0, 0],
    [20, 2, 2, 0],
    [30, 3, 4, 0],
    [50, 7, 8, 1],
  ];
  for (const [minutes, a, b, c] of expected) {
    t.same(
      [foo, bar, biz].map((s) => changes(s.window(at50m, minutes * MINUTE_MS))),
      [a, b, c],
      `${minutes}m`,
    );
  }
});

t.test('changes treats NaN to NaN as unchanged and NaN to a number as a change', async (t) => {
  const allNan = new TestSeries(FIVE_MINUTES_MS, [Number.NaN, Number.NaN, Number.NaN]);
  const mixed = new TestSeries(FIVE_MINUTES_MS, [0, Number.NaN, 0]);
  t.equal(changes(allNan.window(15 * MINUTE_MS, 20 * MINUTE_MS)), 0);
  t.equal(changes(mixed.window(15 * MINUTE_MS, 20 * MINUTE_MS)), 2);
  t.equal(resets(mixed.window(15 * MINUTE_MS, 20 * MINUTE_MS)), 0, 'NaN never compares as a drop');
});
