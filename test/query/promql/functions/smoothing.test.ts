import t from 'tap';
import { doubleExponentialSmoothing } from '../../../../src/query/promql/functions/smoothing.js';
import { PromqlError } from '../../../../src/query/promql/types.js';
import { close, MINUTE_MS, ramp, SECOND_MS, TestSeries } from './series-window.js';

const TEN_SECONDS_MS = 10 * SECOND_MS;

t.test('double exponential smoothing follows a linear trend exactly', async (t) => {
  const cases: [number[], number][] = [
    [[...ramp(0, 10, 1000), ...ramp(100, 30, 1000)], 8000],
    [[...ramp(0, 20, 1000), ...ramp(200, 30, 1000)], 16000],
    [ramp(0, 40, 2000), 32000],
    [ramp(8000, -10, 1000), 0],
    [ramp(0, -20, 1000), -16000],
  ];
  for (const [values, expected] of cases) {
    const window = new TestSeries(TEN_SECONDS_MS, values).window(8000 * SECOND_MS, MINUTE_MS);
    t.ok(close(doubleExponentialSmoothing(window, [0.01, 0.1]), expected), `expected ${expected}`);
  }
});

t.test('double exponential smoothing by hand over three samples', async (t) => {
  // s = 1, b = 2 (3 - 1); i=1: s = 0.5·3 + 0.5·(1 + 2) = 3; i=2: b = 0.5·(3 - 1) + 0.5·2 = 2,
  // s = 0.5·4 + 0.5·(3 + 2) = 4.5.
  const window = new TestSeries(TEN_SECONDS_MS, [1, 3, 4]).window(20 * SECOND_MS, MINUTE_MS);
  t.equal(doubleExponentialSmoothing(window, [0.5, 0.5]), 4.5);
});

t.test('double exponential smoothing needs two samples but checks factors first', async (t) => {
  const single = new TestSeries(TEN_SECONDS_MS, [1]).window(0, MINUTE_MS);
  t.equal(doubleExponentialSmoothing(single, [0.5, 0.5]), undefined);
  t.throws(() => doubleExponentialSmoothing(single, [1, 0.5]), {
    message: 'invalid smoothing factor. Expected: 0 < sf < 1, got: 1.000000',
  });
  t.throws(() => doubleExponentialSmoothing(single, [0.5, 0]), {
    message: 'invalid trend factor. Expected: 0 < tf < 1, got: 0.000000',
  });
  try {
    doubleExponentialSmoothing(single, [-1, 0.5]);
    t.fail('should throw');
  } catch (error) {
    t.ok(error instanceof PromqlError && error.errorType === 'execution');
  }
  const empty = new TestSeries(TEN_SECONDS_MS, []).window(0, MINUTE_MS);
  t.equal(doubleExponentialSmoothing(empty, [2, 2]), undefined, 'no series, nothing to reject');
});
