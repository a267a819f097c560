import t, { type Test } from 'tap';
import * as math from '../../../../src/query/promql/functions/math.js';

const { NaN: nan, POSITIVE_INFINITY: inf, NEGATIVE_INFINITY: negativeInf } = Number;
// The values Prometheus' tests run abs/ceil/floor/round over.
const inputs = [2.5, 2, -2.5, -2, 0, -0, inf, negativeInf, nan];

function same(t: Test, actual: number[], expected: number[], label: string): void {
  t.same(
    actual.map((v) => (Number.isNaN(v) ? 'NaN' : v === 0 ? 0 : v)),
    expected.map((v) => (Number.isNaN(v) ? 'NaN' : v)),
    label,
  );
}

t.test('abs, ceil, floor and round keep infinities and NaN', async (t) => {
  same(t, inputs.map(math.abs), [2.5, 2, 2.5, 2, 0, 0, inf, inf, nan], 'abs');
  same(t, inputs.map(math.ceil), [3, 2, -2, -2, 0, 0, inf, negativeInf, nan], 'ceil');
  same(t, inputs.map(math.floor), [2, 2, -3, -2, 0, 0, inf, negativeInf, nan], 'floor');
  same(
    t,
    inputs.map((v) => math.round(v, [])),
    [3, 2, -2, -2, 0, 0, inf, negativeInf, nan],
    'round breaks ties upwards',
  );
});

t.test('round rounds to a multiple of its second argument', async (t) => {
  t.equal(math.round(1.26, [0.1]), 1.3);
  t.equal(math.round(17, [5]), 15);
  t.equal(math.round(17.5, [5]), 20);
  t.equal(math.round(-7.5, [5]), -5);
  t.ok(Number.isNaN(math.round(1, [nan])));
});

t.test('round matches Prometheus on values built by float arithmetic', async (t) => {
  // The aggregator tests round expressions over two series worth 100 and 200.
  const cases: [(x: number) => number, number[], number[]][] = [
    [(x) => 0.004 * x, [], [0, 1]],
    [(x) => -1 * (0.004 * x), [], [0, -1]],
    [(x) => 0.005 * x, [], [1, 1]],
    [(x) => -1 * (0.005 * x), [], [0, -1]],
    [(x) => -1 * (1 + 0.005 * x), [], [-1, -2]],
    [(x) => 0.0005 * x, [0.1], [0.1, 0.1]],
    [(x) => 2.1 + 0.0005 * x, [0.1], [2.2, 2.2]],
    [(x) => 5.2 + 0.0005 * x, [0.1], [5.3, 5.3]],
    [(x) => -1 * (5.2 + 0.0005 * x), [0.1], [-5.2, -5.3]],
    [(x) => 0.025 * x, [5], [5, 5]],
    [(x) => 0.045 * x, [5], [5, 10]],
  ];
  for (const [expression, toNearest, expected] of cases) {
    const actual = [100, 200].map((x) => math.round(expression(x), toNearest));
    t.ok(
      actual.every((v, i) => Math.abs(v - (expected[i] as number)) < 1e-9),
      `${expression} to ${toNearest}: ${actual}`,
    );
  }
});

t.test('sgn gives the sign and passes zeros and NaN through', async (t) => {
  same(t, [negativeInf, inf, nan, -50, 0, 100].map(math.sgn), [-1, 1, nan, -1, 0, 1], 'sgn');
});

t.test('exponentials and logarithms', async (t) => {
  t.equal(math.exp(0), 1);
  t.equal(math.ln(Math.E), 1);
  t.equal(math.log2(8), 3);
  t.equal(math.log10(1000), 3);
  t.equal(math.sqrt(16), 4);
  t.equal(math.ln(0), negativeInf);
  t.ok(Number.isNaN(math.ln(-1)));
  t.ok(Number.isNaN(math.sqrt(-1)));
});

t.test('clamp, clamp_min and clamp_max bound values', async (t) => {
  same(
    t,
    [-50, 0, 100].map((v) => math.clampMax(v, [75])),
    [-50, 0, 75],
    'clamp_max',
  );
  same(
    t,
    [-50, 0, 100].map((v) => math.clampMin(v, [-25])),
    [-25, 0, 100],
    'clamp_min',
  );
  same(
    t,
    [-50, 0, 100].map((v) => math.clamp(v, [-25, 75])),
    [-25, 0, 75],
    'clamp',
  );
  same(
    t,
    [-50, 0, 100].map((v) => math.clamp(v, [0, nan])),
    [nan, nan, nan],
    'NaN max',
  );
  same(
    t,
    [-50, 0, 100].map((v) => math.clamp(v, [nan, 0])),
    [nan, nan, nan],
    'NaN min',
  );
  t.ok(math.clampIsEmpty([5, -5]), 'max below min yields no samples');
  t.notOk(math.clampIsEmpty([-5, 5]));
  t.notOk(math.clampIsEmpty([nan, 0]));
});

t.test('clamping NaN to an infinite bound gives the bound, as Go math.Max/Min do', async (t) => {
  t.equal(math.clampMin(nan, [inf]), inf);
  t.equal(math.clampMax(nan, [negativeInf]), negativeInf);
  t.ok(Number.isNaN(math.clampMin(nan, [0])));
});
