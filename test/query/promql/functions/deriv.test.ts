import t from 'tap';
import { deriv, predictLinear } from '../../../../src/query/promql/functions/deriv.js';
import { close, MINUTE_MS, ramp, TestSeries } from './series-window.js';

const FIVE_MINUTES_MS = 5 * MINUTE_MS;
// 0 10 20 30 40 0 10 20 30 40 50 at 0..50m (the regression worked through in Prometheus' tests).
const resetMiddle = new TestSeries(FIVE_MINUTES_MS, [...ramp(0, 10, 4), ...ramp(0, 10, 5)]);

t.test('deriv is the least-squares slope per second', async (t) => {
  const counter = new TestSeries(FIVE_MINUTES_MS, ramp(0, 80, 10));
  t.ok(close(deriv(counter.window(50 * MINUTE_MS, 50 * MINUTE_MS)), 0.26666666666666666));
  t.ok(close(deriv(resetMiddle.window(50 * MINUTE_MS, 100 * MINUTE_MS)), 0.010606060606060607));
});

t.test('deriv needs two samples, is 0 for a flat line and NaN for infinite values', async (t) => {
  const series = new TestSeries(FIVE_MINUTES_MS, [3, 3, 3]);
  t.equal(deriv(series.window(0, MINUTE_MS)), undefined);
  t.equal(deriv(series.window(10 * MINUTE_MS, 20 * MINUTE_MS)), 0);
  const infinite = new TestSeries(FIVE_MINUTES_MS, [
    Number.NEGATIVE_INFINITY,
    ...ramp(0, 80, 10),
    Number.POSITIVE_INFINITY,
  ]);
  t.ok(Number.isNaN(deriv(infinite.window(100 * MINUTE_MS, 100 * MINUTE_MS)) as number));
  const flatInfinite = new TestSeries(FIVE_MINUTES_MS, [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
  t.ok(Number.isNaN(deriv(flatInfinite.window(5 * MINUTE_MS, 10 * MINUTE_MS)) as number));
});

t.test('predict_linear extends the line from the evaluation time', async (t) => {
  t.ok(close(predictLinear(resetMiddle.window(50 * MINUTE_MS, 50 * MINUTE_MS), [3600]), 70));
  // `@ 3000` pins the window to end at 3000s while the evaluation time moves: the regression is
  // anchored at the evaluation time, not at the window's end.
  const pinned = resetMiddle.window(3000_000, 55 * MINUTE_MS);
  t.ok(close(predictLinear({ ...pinned, evalTimeMs: 3000_000 }, [3600]), 76.81818181818181));
  t.ok(close(predictLinear({ ...pinned, evalTimeMs: 600_000 }, [3600]), 51.36363636363637));
  t.ok(close(predictLinear({ ...pinned, evalTimeMs: 4200_000 }, [3600]), 89.54545454545455));
  const { evalTimeMs: _, ...withoutEvalTime } = pinned;
  t.ok(close(predictLinear(withoutEvalTime, [3600]), 76.81818181818181), 'falls back to the window end');
});

t.test('predict_linear of a sample exactly on the line equals value plus slope times duration', async (t) => {
  const counter = new TestSeries(FIVE_MINUTES_MS, ramp(0, 80, 10));
  const window = counter.window(50 * MINUTE_MS, 50 * MINUTE_MS);
  t.ok(close(predictLinear(window, [3600]), 800 + (deriv(window) as number) * 3600));
});
