/**
 * The native histogram wire decoder, its checks and the stored form: messages built with
 * protobufjs (the server's `prometheus.Histogram` schema) decode to what was encoded, survive the
 * stored form bit for bit, and become the engine's histogram with absolute counts.
 */
import t from 'tap';
import {
  decodeStoredHistogram,
  encodeStoredHistogram,
  toFloatHistogram,
} from '../../../../src/query/promql/histogram/stored-histogram.js';
import { decodeWireHistogram, type WireHistogram } from '../../../../src/query/promql/histogram/wire-histogram.js';
import { histogramProblem } from '../../../../src/query/promql/histogram/wire-validate.js';
import { prometheusTypes } from '../../../../src/shared/proto/prometheus.js';
import { WireReader } from '../../../../src/shared/proto/wire.js';

function decoded(message: Record<string, unknown>): WireHistogram {
  const bytes = prometheusTypes.Histogram.encode(prometheusTypes.Histogram.fromObject(message)).finish();
  return decodeWireHistogram(new WireReader(bytes));
}

const INTEGER = {
  count_int: 9,
  sum: 20,
  schema: 0,
  zero_threshold: 0.001,
  zero_count_int: 1,
  negative_spans: [{ offset: 0, length: 1 }],
  negative_deltas: [1],
  positive_spans: [
    { offset: 0, length: 2 },
    { offset: 1, length: 1 },
  ],
  positive_deltas: [2, 1, -1],
  reset_hint: 2,
  timestamp: 1_700_000_000_123,
};

t.test('an integer histogram decodes with its deltas and becomes absolute counts', async (t) => {
  const h = decoded(INTEGER);
  t.match(h, {
    float: false,
    count: 9,
    sum: 20,
    schema: 0,
    zeroThreshold: 0.001,
    zeroCount: 1,
    negative: [1],
    positive: [2, 1, -1],
    resetHint: 2,
    timestampMs: 1_700_000_000_123,
  });
  t.equal(histogramProblem(h), null);
  const f = toFloatHistogram(decodeStoredHistogram(encodeStoredHistogram(h)));
  t.same(f.positive, { index: [0, 1, 3], count: [2, 3, 2] });
  t.same(f.negative, { index: [0], count: [1] });
  t.equal(f.hint, 'not_reset');
});

t.test('the stored form keeps every field, floats bit for bit', async (t) => {
  const cases: WireHistogram[] = [
    { ...decoded(INTEGER), timestampMs: 0 },
    {
      float: true,
      count: 3.75,
      sum: -0,
      schema: -4,
      zeroThreshold: 2 ** -128,
      zeroCount: 0.25,
      negativeSpans: [{ offset: -3, length: 2 }],
      negative: [0.5, Number.MIN_VALUE],
      positiveSpans: [],
      positive: [],
      resetHint: 3,
      timestampMs: 0,
      customValues: [],
    },
    {
      float: false,
      count: 2 ** 53 - 1,
      sum: Number.NaN,
      schema: -53,
      zeroThreshold: 0,
      zeroCount: 0,
      negativeSpans: [],
      negative: [],
      positiveSpans: [{ offset: 1, length: 2 }],
      positive: [2 ** 52, -(2 ** 52)],
      resetHint: 1,
      timestampMs: 0,
      customValues: [0.5, 1, 2.5],
    },
  ];
  for (const h of cases) {
    const stored = encodeStoredHistogram(h);
    const back = decodeStoredHistogram(stored);
    t.same(back, h);
    t.ok(Object.is(back.sum, h.sum), 'sum keeps -0 and NaN');
  }
  t.ok(encodeStoredHistogram(cases[0] as WireHistogram).length < 40, 'an integer histogram is a few bytes');
});

t.test('checks refuse what Prometheus refuses on append', async (t) => {
  const h = decoded(INTEGER);
  t.match(histogramProblem({ ...h, positive: [2, 1] }), /positive side: spans need 3 buckets, have 2 buckets/);
  t.match(histogramProblem({ ...h, positive: [2, -3, 1] }), /bucket number 2 has observation count of -1/);
  t.match(histogramProblem({ ...h, count: 8 }), /9 observations found in buckets, but the Count field is 8/);
  t.match(histogramProblem({ ...h, schema: 9 }), /invalid schema 9/);
  t.match(
    histogramProblem({
      ...h,
      positiveSpans: [
        { offset: 0, length: 2 },
        { offset: -1, length: 1 },
      ],
    }),
    /span number 2 with offset -1/,
  );
  t.match(
    histogramProblem({ ...h, float: true, count: 9, zeroCount: -1, positive: [2, 3, 2], negative: [1] }),
    /zero bucket/,
  );
  t.match(histogramProblem({ ...h, schema: -53, customValues: [2, 1] }), /custom/);
  t.equal(
    histogramProblem({ ...h, float: true, count: 8.5, positive: [2, 3, 2], negative: [1] }),
    null,
    'float counts are not summed against count',
  );
});
