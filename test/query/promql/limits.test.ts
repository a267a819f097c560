/**
 * The PromQL limits' messages: the points bound is written as Prometheus writes its 11,000, with
 * a comma every three digits, and counted as Go divides durations (whole steps).
 */
import t from 'tap';
import {
  checkPointsPerSeries,
  PROMQL_LIMITS_DEFAULT,
  withThousandsSeparators,
} from '../../../src/query/promql/limits.js';
import { defaultConfig } from '../../../src/shared/config.js';

t.test('bounds are written with a comma every three digits', async (t) => {
  t.equal(withThousandsSeparators(0), '0');
  t.equal(withThousandsSeparators(50), '50');
  t.equal(withThousandsSeparators(999), '999');
  t.equal(withThousandsSeparators(1234), '1,234');
  t.equal(withThousandsSeparators(11_000), '11,000');
  t.equal(withThousandsSeparators(1_000_000_000), '1,000,000,000');
});

t.test('a range grid past max_points_per_series is refused in Prometheus words', async (t) => {
  t.doesNotThrow(() => checkPointsPerSeries(0, 1_234_000, 1000, 1234), 'at the bound');
  t.doesNotThrow(() => checkPointsPerSeries(0, 1_234_999, 1000, 1234), 'a partial step does not count');
  t.throws(() => checkPointsPerSeries(0, 1_235_000, 1000, 1234), {
    errorType: 'bad_data',
    message:
      'exceeded maximum resolution of 1,234 points per timeseries. Try decreasing the query resolution (?step=XX)',
  });
  t.throws(() => checkPointsPerSeries(0, 11_001_000, 1000, PROMQL_LIMITS_DEFAULT.maxPointsPerSeries), {
    message: /^exceeded maximum resolution of 11,000 points per timeseries/,
  });
});

t.test('the defaults are the configuration defaults', async (t) => {
  const { maxPointsPerSeries, maxSamples, maxSeries } = defaultConfig().query;
  t.same(PROMQL_LIMITS_DEFAULT, { maxPointsPerSeries, maxSamples, maxSeries });
  t.same(PROMQL_LIMITS_DEFAULT, { maxPointsPerSeries: 11_000, maxSamples: 50_000_000, maxSeries: 1_000_000 });
});
