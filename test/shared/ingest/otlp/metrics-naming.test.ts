/**
 * Pure rules of the OTLP metrics mapping: metric and label names per translation strategy, the
 * `le`/`quantile` label text, and exponential histogram → classic bucket conversion.
 */
import t from 'tap';
import { classicBucketsOf } from '../../../../src/shared/ingest/otlp/metrics-exponential.js';
import { plainDecimal } from '../../../../src/shared/ingest/otlp/metrics-labels.js';
import {
  labelNameOf,
  metricNameOf,
  parseTranslationStrategy,
  prometheusUnit,
} from '../../../../src/shared/ingest/otlp/metrics-naming.js';
import type { ExponentialHistogramDataPoint } from '../../../../src/shared/proto/otlp.js';

t.test('metric names under the default strategy', async (t) => {
  const cases: Array<[string, string, Parameters<typeof metricNameOf>[2], string]> = [
    ['http.server.duration', 'ms', 'histogram', 'http_server_duration_milliseconds'],
    ['claude_code.cost.usage', 'USD', 'monotonic-sum', 'claude_code_cost_usage_USD_total'],
    ['requests.total', '', 'monotonic-sum', 'requests_total'],
    ['total.requests', '', 'monotonic-sum', 'requests_total'],
    ['queue.size', '{item}', 'sum', 'queue_size'],
    ['cpu.utilization', '1', 'gauge', 'cpu_utilization_ratio'],
    ['cpu.utilization', '1', 'sum', 'cpu_utilization'],
    ['net.io', 'By/s', 'gauge', 'net_io_bytes_per_second'],
    ['net.io.bytes', 'By/s', 'gauge', 'net_io_bytes_per_second'],
    ['rate', '/s', 'gauge', 'rate_per_second'],
    ['uptime', 'd', 'gauge', 'uptime_days'],
    ['weird', 'foo.bar', 'gauge', 'weird_foo_bar'],
    ['2xx', '', 'gauge', '_2xx'],
    ['a..b__c', '', 'gauge', 'a_b_c'],
    ['...', 's', 'gauge', ''],
  ];
  for (const [name, unit, kind, want] of cases) {
    t.equal(metricNameOf(name, unit, kind, 'UnderscoreEscapingWithSuffixes'), want, `${name} [${unit}] ${kind}`);
  }
});

t.test('metric names under the other strategies', async (t) => {
  t.equal(
    metricNameOf('http.server.duration', 'ms', 'histogram', 'UnderscoreEscapingWithoutSuffixes'),
    'http_server_duration',
  );
  t.equal(
    metricNameOf('http.server.duration', 'ms', 'histogram', 'NoUTF8EscapingWithSuffixes'),
    'http.server.duration_milliseconds',
  );
  t.equal(metricNameOf('http.requests', '', 'monotonic-sum', 'NoUTF8EscapingWithSuffixes'), 'http.requests_total');
  t.equal(
    metricNameOf('http.requests_total', '', 'monotonic-sum', 'NoUTF8EscapingWithSuffixes'),
    'http.requests_total',
  );
  t.equal(metricNameOf('http.server.duration', 'ms', 'histogram', 'NoTranslation'), 'http.server.duration');
  t.equal(parseTranslationStrategy(undefined), 'UnderscoreEscapingWithSuffixes');
  t.equal(parseTranslationStrategy(' NoTranslation '), 'NoTranslation');
  t.throws(() => parseTranslationStrategy('notranslation'), /translation strategy/);
});

t.test('label names', async (t) => {
  t.equal(labelNameOf('http.method', 'UnderscoreEscapingWithSuffixes'), 'http_method');
  t.equal(labelNameOf('1st', 'UnderscoreEscapingWithSuffixes'), 'key_1st');
  t.equal(labelNameOf('_x', 'UnderscoreEscapingWithSuffixes'), 'key_x');
  t.equal(labelNameOf('.x', 'UnderscoreEscapingWithSuffixes'), 'key_x');
  t.equal(labelNameOf('__x', 'UnderscoreEscapingWithSuffixes'), '__x');
  t.equal(labelNameOf('http.method', 'NoUTF8EscapingWithSuffixes'), 'http.method');
  t.equal(labelNameOf('', 'UnderscoreEscapingWithSuffixes'), '');
  t.equal(prometheusUnit('By/s'), 'bytes_per_second');
  t.equal(prometheusUnit('{request}'), '');
});

t.test('le and quantile text never uses an exponent', async (t) => {
  const cases: Array<[number, string]> = [
    [0.5, '0.5'],
    [1, '1'],
    [1e-7, '0.0000001'],
    [1.5e-9, '0.0000000015'],
    [1e21, '1000000000000000000000'],
    [2.5e22, '25000000000000000000000'],
    [-3e-7, '-0.0000003'],
    [Number.POSITIVE_INFINITY, '+Inf'],
    [-0, '0'],
  ];
  for (const [value, want] of cases) t.equal(plainDecimal(value), want, String(value));
});

function point(fields: Partial<ExponentialHistogramDataPoint>): ExponentialHistogramDataPoint {
  return {
    attributes: [],
    startTimeUnixNano: 0n,
    timeUnixNano: 1n,
    count: 0n,
    scale: 0,
    zeroCount: 0n,
    positive: null,
    negative: null,
    flags: 0,
    exemplars: [],
    zeroThreshold: 0,
    ...fields,
  };
}

t.test('exponential histograms become cumulative classic buckets', async (t) => {
  t.same(
    classicBucketsOf(
      point({
        scale: 1, // base √2
        count: 7n,
        zeroCount: 1n,
        positive: { offset: 2, bucketCounts: [1n, 2n] }, // (2, 2√2], (2√2, 4]
        negative: { offset: 0, bucketCounts: [3n] }, // [-√2, -1)
      }),
    ),
    { les: ['-1', '0', String(2 ** 1.5), '4', '+Inf'], counts: [3, 4, 5, 7, 7] },
  );
  // Scale -10: base 2^1024 overflows, so only zero and +Inf remain.
  t.same(classicBucketsOf(point({ scale: -10, count: 2n, positive: { offset: 0, bucketCounts: [2n] } })), {
    les: ['0', '+Inf'],
    counts: [0, 2],
  });
  // Far-negative indexes underflow to 0 and merge with the zero bucket.
  t.same(
    classicBucketsOf(point({ scale: 0, count: 3n, zeroCount: 1n, positive: { offset: -1100, bucketCounts: [2n] } })),
    { les: ['0', '+Inf'], counts: [3, 3] },
  );
});
