import t from 'tap';
import {
  avgOverTime,
  countOverTime,
  firstOverTime,
  lastOverTime,
  madOverTime,
  maxOverTime,
  minOverTime,
  presentOverTime,
  quantileOverTime,
  stddevOverTime,
  stdvarOverTime,
  sumOverTime,
  tsOfFirstOverTime,
  tsOfLastOverTime,
  tsOfMaxOverTime,
  tsOfMinOverTime,
} from '../../../../src/query/promql/functions/over-time.js';
import { close, MINUTE_MS, SECOND_MS, TestSeries } from './series-window.js';

const TEN_SECONDS_MS = 10 * SECOND_MS;
const { NaN: nan, POSITIVE_INFINITY: inf, NEGATIVE_INFINITY: negativeInf } = Number;

function avgAt55s(values: number[], intervalMs = TEN_SECONDS_MS): number | undefined {
  return avgOverTime(new TestSeries(intervalMs, values).window(55 * SECOND_MS, MINUTE_MS));
}

t.test('every aggregation gives no sample for an empty window', async (t) => {
  const window = new TestSeries(TEN_SECONDS_MS, [1, 2, 3, 4, 5]).window(55 * SECOND_MS, TEN_SECONDS_MS);
  const functions = [
    avgOverTime,
    sumOverTime,
    minOverTime,
    maxOverTime,
    countOverTime,
    lastOverTime,
    firstOverTime,
    presentOverTime,
    stddevOverTime,
    stdvarOverTime,
    madOverTime,
    tsOfFirstOverTime,
    tsOfLastOverTime,
    tsOfMinOverTime,
    tsOfMaxOverTime,
  ];
  for (const fn of functions) t.equal(fn(window), undefined, fn.name);
  t.equal(quantileOverTime(window, [0.5]), undefined);
});

t.test('avg_over_time of one and of all samples', async (t) => {
  const series = new TestSeries(TEN_SECONDS_MS, [1, 2, 3, 4, 5]);
  t.equal(avgOverTime(series.window(55 * SECOND_MS, 20 * SECOND_MS)), 5);
  t.equal(avgOverTime(series.window(55 * SECOND_MS, MINUTE_MS)), 3);
});

t.test('avg_over_time follows IEEE rules for infinities and NaN', async (t) => {
  t.equal(avgAt55s([1, 2, 3, 4, inf]), inf);
  t.equal(avgAt55s([1, 2, 3, 4, negativeInf]), negativeInf);
  t.ok(Number.isNaN(avgAt55s([1, 2, 3, inf, negativeInf]) as number));
  t.equal(avgAt55s([inf, 0, inf]), inf);
  t.ok(Number.isNaN(avgAt55s([inf, inf, inf, negativeInf]) as number));
  t.equal(avgAt55s([1, 2, 3, negativeInf, negativeInf]), negativeInf);
  t.equal(avgAt55s([negativeInf, 0, negativeInf]), negativeInf);
  t.ok(Number.isNaN(avgAt55s([1, 2, negativeInf, negativeInf, inf]) as number));
  const nanSeries = new TestSeries(TEN_SECONDS_MS, [1, 2, 3, nan, nan]);
  t.equal(avgOverTime(nanSeries.window(20 * SECOND_MS, MINUTE_MS)), 2);
  t.ok(Number.isNaN(avgOverTime(nanSeries.window(30 * SECOND_MS, MINUTE_MS)) as number));
});

t.test('avg_over_time switches to a running mean where the sum would overflow', async (t) => {
  const big = 9.988465674311579e307;
  t.equal(avgAt55s([big, big]), big);
  t.equal(avgAt55s([-big, -big, -big]), -big);
  t.equal(avgAt55s([-big, big]), 0);
  // The plain sum of the same values overflows.
  t.equal(sumOverTime(new TestSeries(TEN_SECONDS_MS, [big, big]).window(55 * SECOND_MS, MINUTE_MS)), inf);
});

t.test('compensated summation keeps small values next to huge ones', async (t) => {
  const series = new TestSeries(TEN_SECONDS_MS, [1, 1e100, 1, -1e100]);
  t.equal(sumOverTime(series.window(MINUTE_MS, 2 * MINUTE_MS)), 2);
  t.equal(avgOverTime(series.window(MINUTE_MS, 2 * MINUTE_MS)), 0.5);
  const five = 5 * SECOND_MS;
  t.ok(close(avgAt55s([1e10, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6], five), 1.6666666666666675e9));
  t.ok(close(avgAt55s([1.78264e50, 0.76342771, 1.9592258, 7.69805412, 458.90154], five), 3.56528e49));
  t.ok(
    close(avgAt55s([1.78264e50, 0.76342771, 1.9592258, 2.258e220, 7.69805412, 458.90154], five), 3.76333333333333e219),
  );
  t.ok(
    close(
      avgAt55s([-1.78264e215, 0.76342771, 1.9592258, 2.258e220, 7.69805412, 1.78264e215, -458.90154], five),
      3.225714285714286e219,
    ),
  );
  const flat = new TestSeries(TEN_SECONDS_MS, new Array(101).fill(52));
  for (const seconds of [100, 110, 120, 130]) {
    t.equal(avgOverTime(flat.window(10 * MINUTE_MS, seconds * SECOND_MS)), 52, `${seconds}s of 52`);
  }
});

t.test('sum_over_time counts dense windows exactly', async (t) => {
  const series = new TestSeries(1, new Array(4001).fill(1));
  for (const rangeMs of [1000, 1001, 1003, 2002, 3003]) {
    t.equal(sumOverTime(series.window(4000, rangeMs)), rangeMs);
  }
});

t.test('min and max skip NaN unless every value is NaN', async (t) => {
  const cases: [number[], number, number][] = [
    [[2, 0, 3], 0, 3],
    [[2, 0, nan], 0, 2],
    [[2, nan, 1], 1, 2],
    [[nan, 0, 1], 0, 1],
  ];
  for (const [values, min, max] of cases) {
    const window = new TestSeries(TEN_SECONDS_MS, values).window(MINUTE_MS, 2 * MINUTE_MS);
    t.equal(minOverTime(window), min, `min of ${values}`);
    t.equal(maxOverTime(window), max, `max of ${values}`);
  }
  const allNan = new TestSeries(TEN_SECONDS_MS, [nan, nan, nan]).window(MINUTE_MS, 2 * MINUTE_MS);
  t.ok(Number.isNaN(minOverTime(allNan) as number));
  t.ok(Number.isNaN(maxOverTime(allNan) as number));
});

t.test('first, last, count and present read the window edges', async (t) => {
  const sparse = new TestSeries(TEN_SECONDS_MS, [null, 5, 2, null, 4, null]).window(MINUTE_MS, 2 * MINUTE_MS);
  t.equal(firstOverTime(sparse), 5);
  t.equal(lastOverTime(sparse), 4);
  t.equal(countOverTime(sparse), 3);
  t.equal(presentOverTime(sparse), 1);
  const someNan = new TestSeries(TEN_SECONDS_MS, [nan, 0, nan]).window(MINUTE_MS, 2 * MINUTE_MS);
  t.ok(Number.isNaN(firstOverTime(someNan) as number));
  t.ok(Number.isNaN(lastOverTime(someNan) as number));
  t.equal(countOverTime(someNan), 3);
});

t.test('stddev and stdvar are population statistics', async (t) => {
  const window = new TestSeries(TEN_SECONDS_MS, [0, 8, 8, 2, 3]).window(MINUTE_MS, 2 * MINUTE_MS);
  t.ok(close(stdvarOverTime(window), 10.56));
  t.ok(close(stddevOverTime(window), 3.249615));
  const single = new TestSeries(TEN_SECONDS_MS, [7]).window(0, MINUTE_MS);
  t.equal(stdvarOverTime(single), 0);
  // Constant values must give exactly zero, not rounding noise.
  const constant = new TestSeries(TEN_SECONDS_MS, [1.5990505637277868, 1.5990505637277868, 1.5990505637277868]);
  t.equal(stdvarOverTime(constant.window(55 * SECOND_MS, MINUTE_MS)), 0);
  t.equal(stddevOverTime(constant.window(55 * SECOND_MS, MINUTE_MS)), 0);
});

t.test('quantile_over_time interpolates between ranks and saturates outside [0, 1]', async (t) => {
  const two = new TestSeries(TEN_SECONDS_MS, [0, 1]).window(MINUTE_MS, 2 * MINUTE_MS);
  const three = new TestSeries(TEN_SECONDS_MS, [0, 1, 2]).window(MINUTE_MS, 2 * MINUTE_MS);
  const uneven = new TestSeries(TEN_SECONDS_MS, [4, 0, 1]).window(MINUTE_MS, 2 * MINUTE_MS);
  const expected: [number, number, number, number][] = [
    [0, 0, 0, 0],
    [0.5, 0.5, 1, 1],
    [0.75, 0.75, 1.5, 2.5],
    [0.8, 0.8, 1.6, 2.8],
    [1, 1, 2, 4],
    [-1, negativeInf, negativeInf, negativeInf],
    [2, inf, inf, inf],
  ];
  for (const [q, a, b, c] of expected) {
    t.ok(close(quantileOverTime(two, [q]), a), `q=${q} two`);
    t.ok(close(quantileOverTime(three, [q]), b), `q=${q} three`);
    t.ok(close(quantileOverTime(uneven, [q]), c), `q=${q} uneven`);
  }
  t.ok(Number.isNaN(quantileOverTime(three, [nan]) as number));
});

t.test('quantile_over_time sorts NaN below every number', async (t) => {
  const window = new TestSeries(TEN_SECONDS_MS, [3, nan, 1]).window(MINUTE_MS, 2 * MINUTE_MS);
  t.ok(Number.isNaN(quantileOverTime(window, [0]) as number));
  t.equal(quantileOverTime(window, [0.5]), 1);
  t.equal(quantileOverTime(window, [1]), 3);
});

t.test('quantile_over_time does not reorder the series it reads', async (t) => {
  const series = new TestSeries(TEN_SECONDS_MS, [5, 1, 4, 2, 3]);
  quantileOverTime(series.window(MINUTE_MS, 2 * MINUTE_MS), [0.5]);
  t.same(Array.from(series.v), [5, 1, 4, 2, 3]);
  // A window longer than the initial sort buffer.
  const long = new TestSeries(
    1,
    Array.from({ length: 1001 }, (_, i) => 1000 - i),
  );
  t.equal(quantileOverTime(long.window(1000, 2000), [0.5]), 500);
});

t.test('mad_over_time is the median absolute deviation, NaN if any value is NaN', async (t) => {
  const at = (values: number[], evalSeconds: number, rangeSeconds: number) =>
    madOverTime(new TestSeries(TEN_SECONDS_MS, values).window(evalSeconds * SECOND_MS, rangeSeconds * SECOND_MS));
  t.equal(at([4, 6, 2, 1, 999, 1, 2], 70, 70), 1);
  t.equal(at([1, 2, 3, 4, 5], 40, 50), 1);
  t.equal(at([7, 7, 7, 7, 7], 40, 50), 0);
  t.equal(at([5], 0, 10), 0);
  t.ok(Number.isNaN(at([1, 2, nan, 4], 30, 40) as number));
});

t.test('ts_of functions give Unix seconds of the chosen sample, the latest on ties', async (t) => {
  const oddInterval = 10 * SECOND_MS + 53;
  const series = new TestSeries(oddInterval, [1, 2, 3, 0, 5, 6, 2, 1, 4]);
  const window = series.window(90 * SECOND_MS, 90 * SECOND_MS);
  t.equal(tsOfMinOverTime(window), 30.159);
  t.equal(tsOfMaxOverTime(window), 50.265);
  const gaps = new TestSeries(oddInterval, [null, null, 1, 2, 3, null, null]);
  t.equal(tsOfFirstOverTime(gaps.window(90 * SECOND_MS, 90 * SECOND_MS)), 20.106);
  t.equal(tsOfLastOverTime(gaps.window(95 * SECOND_MS, 90 * SECOND_MS)), 40.212);
  const ties = new TestSeries(SECOND_MS, [1, 3, 1, 3]).window(3 * SECOND_MS, MINUTE_MS);
  t.equal(tsOfMinOverTime(ties), 2);
  t.equal(tsOfMaxOverTime(ties), 3);
});
