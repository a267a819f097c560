import t from 'tap';
import { delta, idelta, increase, irate, rate } from '../../../../src/query/promql/functions/rate.js';
import { close, MINUTE_MS, ramp, SECOND_MS, TestSeries } from './series-window.js';

const FIVE_MINUTES_MS = 5 * MINUTE_MS;

t.test('increase extrapolates to the window edges but not below a counter value of zero', async (t) => {
  const foo = new TestSeries(FIVE_MINUTES_MS, ramp(0, 10, 10));
  const bar = new TestSeries(FIVE_MINUTES_MS, [...ramp(0, 18, 5), ...ramp(0, 18, 5)]);
  const dings = new TestSeries(FIVE_MINUTES_MS, ramp(10, 10, 10));
  const bumms = new TestSeries(FIVE_MINUTES_MS, ramp(1, 10, 10));
  const at50m = 50 * MINUTE_MS;
  t.ok(close(increase(foo.window(at50m, 50 * MINUTE_MS)), 100));
  t.ok(close(increase(bar.window(at50m, 50 * MINUTE_MS)), 160));
  t.ok(close(increase(dings.window(at50m, 50 * MINUTE_MS)), 100));
  t.ok(close(increase(bumms.window(at50m, 50 * MINUTE_MS)), 100));
  // A window reaching back before the first sample: foo and bar start at zero so nothing is
  // added; dings would reach zero 5m back but only extrapolates half an interval (2m30s);
  // bumms reaches zero 30s back, which caps its extrapolation.
  t.ok(close(increase(foo.window(at50m, 100 * MINUTE_MS)), 100));
  t.ok(close(increase(bar.window(at50m, 100 * MINUTE_MS)), 162));
  t.ok(close(increase(dings.window(at50m, 100 * MINUTE_MS)), 105));
  t.ok(close(increase(bumms.window(at50m, 100 * MINUTE_MS)), 101));
});

t.test('increase reads a drop as a reset to zero', async (t) => {
  const series = new TestSeries(FIVE_MINUTES_MS, [0, 1, 2, 3, 2, 3, 4]);
  t.ok(close(increase(series.window(30 * MINUTE_MS, 30 * MINUTE_MS)), 7));
});

t.test('rate handles resets in the middle and at the end of the window', async (t) => {
  const middle = new TestSeries(FIVE_MINUTES_MS, [...ramp(0, 27, 4), ...ramp(0, 27, 5)]);
  t.ok(close(rate(middle.window(50 * MINUTE_MS, 50 * MINUTE_MS)), 0.08));
  const end = new TestSeries(FIVE_MINUTES_MS, [...ramp(0, 10, 9), 0, 10]);
  t.equal(rate(end.window(50 * MINUTE_MS, 5 * MINUTE_MS)), undefined, 'one sample gives no rate');
  t.equal(rate(end.window(50 * MINUTE_MS, 6 * MINUTE_MS)), 0);
});

t.test('rate is per second of the selector range, also under offset', async (t) => {
  const window = new TestSeries(FIVE_MINUTES_MS, ramp(0, 80, 10));
  t.ok(close(rate(window.window(50 * MINUTE_MS, 50 * MINUTE_MS)), 0.26666666666666666));
  const a = new TestSeries(FIVE_MINUTES_MS, ramp(0, 10, 10));
  const b = new TestSeries(FIVE_MINUTES_MS, ramp(0, 20, 10));
  t.ok(close(rate(a.window(50 * MINUTE_MS, 10 * MINUTE_MS, 5 * MINUTE_MS)), 0.03333333333333333));
  t.ok(close(rate(b.window(50 * MINUTE_MS, 10 * MINUTE_MS, 5 * MINUTE_MS)), 0.06666666666666667));
});

t.test('the zero cutoff limits left extrapolation only up to half an interval', async (t) => {
  const fourMinutesMs = 4 * MINUTE_MS;
  const expectedAt10m = [0.5, 0.55, 0.6, 0.6, 0.6, 0.6];
  for (let startMinutes = 0; startMinutes <= 5; startMinutes++) {
    const series = new TestSeries(fourMinutesMs, ramp(startMinutes * 60, 240, 10));
    const at10m = rate(series.window(10 * MINUTE_MS, 20 * MINUTE_MS));
    const at50m = rate(series.window(50 * MINUTE_MS, 20 * MINUTE_MS));
    t.ok(close(at10m, expectedAt10m[startMinutes] as number), `start ${startMinutes}m at 10m: ${at10m}`);
    t.ok(close(at50m, 0.6), `start ${startMinutes}m at 50m: ${at50m}`);
  }
});

t.test('a gap over 1.1 average intervals extrapolates by half an interval only', async (t) => {
  // Samples at 40s, 50s, 60s in (0, 60s]: the 40s gap on the left exceeds 11s, so only 5s is
  // added there: 2 × (20 + 5) / 20.
  const series = new TestSeries(10 * SECOND_MS, [null, null, null, null, 4, 5, 6]);
  t.equal(increase(series.window(60 * SECOND_MS, 60 * SECOND_MS)), 2.5);
  // Samples at 10s..30s in (0, 41s]: 10s to the start is under the 11s threshold and is added
  // in full, 11s to the end is not and adds 5s: 2 × (20 + 10 + 5) / 20.
  const edges = new TestSeries(10 * SECOND_MS, [null, 1, 2, 3]);
  t.equal(delta(edges.window(41 * SECOND_MS, 41 * SECOND_MS)), 3.5);
  const empty = new TestSeries(SECOND_MS, []);
  t.equal(delta(empty.window(60 * SECOND_MS, 60 * SECOND_MS)), undefined, 'empty window');
});

t.test('delta extrapolates a gauge without treating drops as resets', async (t) => {
  const up = new TestSeries(FIVE_MINUTES_MS, [0, 50, 100, 150, 200]);
  const down = new TestSeries(FIVE_MINUTES_MS, [200, 150, 100, 50, 0]);
  t.ok(close(delta(up.window(20 * MINUTE_MS, 20 * MINUTE_MS)), 200));
  t.ok(close(delta(down.window(20 * MINUTE_MS, 20 * MINUTE_MS)), -200));
  // A gauge going negative is extrapolated on the left as well (no zero cutoff).
  const negative = new TestSeries(10 * SECOND_MS, [null, -1, -2]);
  t.equal(delta(negative.window(20 * SECOND_MS, 20 * SECOND_MS)), -2);
});

t.test('irate uses the last two samples and the last value after a reset', async (t) => {
  const foo = new TestSeries(FIVE_MINUTES_MS, ramp(0, 10, 10));
  const bar = new TestSeries(FIVE_MINUTES_MS, [...ramp(0, 10, 5), ...ramp(0, 10, 5)]);
  t.ok(close(irate(foo.window(50 * MINUTE_MS, 50 * MINUTE_MS)), 0.03333333333333333));
  t.ok(close(irate(bar.window(50 * MINUTE_MS, 50 * MINUTE_MS)), 0.03333333333333333));
  t.equal(irate(bar.window(30 * MINUTE_MS, 50 * MINUTE_MS)), 0);
  const reset = new TestSeries(10 * SECOND_MS, [10, 4]);
  t.equal(irate(reset.window(10 * SECOND_MS, MINUTE_MS)), 0.4);
});

t.test('irate and idelta pass NaN through and need two samples', async (t) => {
  const series = new TestSeries(FIVE_MINUTES_MS, [1, Number.NaN, Number.NaN, 5, 11]);
  const range = 15 * MINUTE_MS + SECOND_MS;
  const irates = [0, 5, 10, 15, 20].map((m) => irate(series.window(m * MINUTE_MS, range)));
  t.equal(irates[0], undefined);
  t.ok(Number.isNaN(irates[1] as number) && Number.isNaN(irates[2] as number) && Number.isNaN(irates[3] as number));
  t.ok(close(irates[4], 0.02));
  const ideltas = [0, 5, 10, 15, 20].map((m) => idelta(series.window(m * MINUTE_MS, range)));
  t.equal(ideltas[0], undefined);
  t.ok(Number.isNaN(ideltas[3] as number));
  t.equal(ideltas[4], 6);
});

t.test('idelta is the plain difference of the last two samples', async (t) => {
  const foo = new TestSeries(FIVE_MINUTES_MS, [0, 50, 100, 150]);
  const bar = new TestSeries(FIVE_MINUTES_MS, [0, 50, 100, 50]);
  t.equal(idelta(foo.window(20 * MINUTE_MS, 20 * MINUTE_MS)), 50);
  t.equal(idelta(bar.window(20 * MINUTE_MS, 20 * MINUTE_MS)), -50);
});

t.test('two samples at one timestamp give no instant rate', async (t) => {
  const window = {
    t: Float64Array.from([1000, 1000]),
    v: Float64Array.from([1, 2]),
    lo: 0,
    hi: 2,
    rangeStartMs: 0,
    rangeEndMs: 2000,
    isCounter: true,
  };
  t.equal(irate(window), undefined);
  t.equal(idelta(window), undefined);
});
