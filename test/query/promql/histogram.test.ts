/**
 * The native histogram value type (src/query/promql/histogram/) and its place in the engine:
 * bucket bounds per schema, addition across schemas and zero thresholds, custom-bucket
 * reconciliation, counter-reset detection, the estimations, the text forms, and the shard
 * boundary that histograms may not cross yet. Expected values are worked out by hand from
 * Prometheus' documented model.
 */
import t from 'tap';
import { packSeries, unpackSeries } from '../../../src/query/promql/distribute/step-pack.js';
import { instantQuery } from '../../../src/query/promql/engine.js';
import { newStepSeries, setHistogram } from '../../../src/query/promql/eval/values.js';
import { addHistograms, subHistograms } from '../../../src/query/promql/histogram/arithmetic.js';
import {
  exponentialUpperBound,
  histogramString,
  histogramsEqual,
} from '../../../src/query/promql/histogram/float-histogram.js';
import { isCounterReset } from '../../../src/query/promql/histogram/reset.js';
import { histogramFraction, histogramQuantile, histogramVariance } from '../../../src/query/promql/histogram/stats.js';
import { sumHistograms } from '../../../src/query/promql/histogram/sum.js';
import { histogramTestExpression, parseHistogramText } from '../../../src/query/promql/histogram/text.js';
import { labelsFromPairs } from '../../../src/query/promql/labels.js';
import { MemorySource } from '../../../src/query/promql/memory-source.js';

const h = (text: string) => parseHistogramText(text).histogram;

t.test('bucket bounds per schema', async (t) => {
  t.equal(exponentialUpperBound(1, 0), 2);
  t.equal(exponentialUpperBound(-1, 0), 0.5);
  t.equal(exponentialUpperBound(1, -1), 4, 'schema -1 doubles the exponent');
  t.equal(exponentialUpperBound(2, 1), 2, 'whole powers of two are exact');
  t.ok(Math.abs(exponentialUpperBound(1, 1) - Math.SQRT2) < 1e-15);
  t.equal(exponentialUpperBound(8, 3), 2);
});

t.test('text form round trip', async (t) => {
  const text = '{{schema:1 count:10 sum:15 z_bucket:1 z_bucket_w:0.001 offset:-1 buckets:[3 0 2] n_buckets:[4]}}';
  t.equal(histogramTestExpression(h(text)), text);
  t.equal(
    histogramTestExpression(
      h('{{schema:-53 sum:3 count:3 custom_values:[5 10] buckets:[3] counter_reset_hint:gauge}}'),
    ),
    '{{schema:-53 count:3 sum:3 custom_values:[5 10] counter_reset_hint:gauge buckets:[3]}}',
  );
  t.equal(
    histogramString(h('{{schema:0 sum:10 count:20 z_bucket_w:0.001 z_bucket:2 buckets:[1 2] n_buckets:[1 2]}}')),
    '{count:20, sum:10, [-2,-1):2, [-1,-0.5):1, [-0.001,0.001]:2, (0.5,1]:1, (1,2]:2}',
  );
});

t.test('addition reduces to the coarser schema and the wider zero bucket', async (t) => {
  const a = h('{{schema:1 count:4 sum:4 buckets:[1 1 1 1]}}'); // (0.707,1] (1,1.41] (1.41,2] (2,2.83]
  const b = h('{{schema:0 count:1 sum:1 offset:1 buckets:[1]}}'); // (1,2]
  const sum = addHistograms(a, b).histogram;
  t.ok(histogramsEqual(sum, h('{{schema:0 count:5 sum:5 buckets:[1 3 1]}}')), histogramTestExpression(sum));
  const wide = h('{{schema:0 count:2 sum:0 z_bucket:1 z_bucket_w:1 offset:2 buckets:[1]}}');
  const narrow = h('{{schema:0 count:2 sum:0 z_bucket:1 z_bucket_w:0.001 buckets:[1]}}'); // (0.5,1] falls in [-1,1]
  const widened = addHistograms(narrow, wide).histogram;
  t.equal(widened.zeroThreshold, 1);
  t.equal(widened.zeroCount, 3);
  t.same(widened.positive, { index: [2], count: [1] });
});

t.test('custom buckets meet on their shared bounds; mixing with exponential is refused', async (t) => {
  const a = h('{{schema:-53 count:3 sum:3 custom_values:[5 10] buckets:[1 1 1]}}');
  const b = h('{{schema:-53 count:2 sum:2 custom_values:[10] buckets:[1 1]}}');
  const r = subHistograms(a, b);
  t.ok(r.customBoundsReconciled);
  t.same(r.histogram.customValues, [10]);
  t.same(r.histogram.positive, { index: [0, 1], count: [1, 0] });
  t.throws(() => addHistograms(a, h('{{count:1 sum:1}}')), { name: 'HistogramSchemaMixError' });
});

t.test('counter resets', async (t) => {
  const before = h('{{schema:0 count:4 sum:4 buckets:[2 2]}}');
  t.notOk(isCounterReset(h('{{schema:0 count:5 sum:5 buckets:[2 3]}}'), before));
  t.ok(isCounterReset(h('{{schema:0 count:5 sum:5 buckets:[3 1 1]}}'), before), 'a bucket went down');
  t.ok(isCounterReset(h('{{schema:1 count:9 sum:9 buckets:[2 2 2 3]}}'), before), 'finer schema');
  t.notOk(isCounterReset(h('{{schema:0 count:1 sum:1 counter_reset_hint:not_reset}}'), before), 'the hint decides');
  t.notOk(
    isCounterReset(h('{{schema:-1 count:4 sum:4 buckets:[2 2]}}'), h('{{schema:0 count:4 sum:4 buckets:[2 0 2]}}')),
    'a coarser schema is compared after merging the previous buckets',
  );
});

t.test('quantile, fraction and variance estimations', async (t) => {
  // Two observations in (1,2] and two in (2,4]: the median is the boundary 2.
  const x = h('{{schema:0 count:4 sum:10 offset:1 buckets:[2 2]}}');
  t.equal(histogramQuantile(0.5, x).value, 2);
  t.ok(Math.abs(histogramQuantile(0.25, x).value - Math.SQRT2) < 1e-12, 'exponential within the bucket');
  t.equal(histogramFraction(0, 2, x).value, 0.5);
  t.equal(histogramFraction(2, 2, x).value, 0);
  const custom = h('{{schema:-53 count:4 sum:10 custom_values:[10 20] buckets:[0 4]}}');
  t.equal(histogramQuantile(0.5, custom).value, 15, 'linear within a custom bucket');
  t.ok(Number.isNaN(histogramQuantile(0.5, h('{{count:0 sum:0}}')).value));
  t.equal(histogramQuantile(1.5, x).value, Number.POSITIVE_INFINITY);
  // Representatives √2 and √8 around the mean 2.5.
  const expected = (2 * (Math.SQRT2 - 2.5) ** 2 + 2 * (Math.sqrt(8) - 2.5) ** 2) / 4;
  t.ok(Math.abs(histogramVariance(x) - expected) < 1e-12);
});

t.test('compensated sums keep small values next to huge ones', async (t) => {
  const r = sumHistograms([
    h('{{count:1 sum:1}}'),
    h('{{count:2 sum:1e100}}'),
    h('{{count:3 sum:1}}'),
    h('{{count:4 sum:-1e100}}'),
  ]);
  t.equal(r.histogram.sum, 2);
  t.equal(r.histogram.count, 10);
});

t.test('the engine reads histograms from the in-memory source', async (t) => {
  const source = new MemorySource();
  const labels = labelsFromPairs([['__name__', 'latency']]);
  for (let k = 0; k < 6; k++) source.addHistogram(labels, k * 60_000, h(`{{count:${2 * k} sum:${3 * k}}}`));
  const count = await instantQuery('histogram_count(rate(latency[5m]))', 300_000, { source });
  t.equal(count.resultType, 'vector');
  if (count.resultType === 'vector') t.equal(count.samples[0]?.v, 10 / 300);
  const raw = await instantQuery('latency', 300_000, { source });
  if (raw.resultType === 'vector') t.equal(raw.samples[0]?.h?.count, 10);
  const mixed = await instantQuery('max(latency)', 300_000, { source });
  t.match(mixed.infos, [/ignored histogram in max aggregation/]);
});

t.test('histograms cross the shard boundary packed, field for field', async (t) => {
  const a = newStepSeries([{ name: 'i', value: 'a' }], true, 3);
  setHistogram(a, 0, {
    ...h('{{schema:1 count:10 sum:-0 z_bucket:1 z_bucket_w:0.001 offset:-1 buckets:[3 0 2] n_buckets:[4]}}'),
    hint: 'reset',
  });
  a.values[1] = 7;
  a.present[1] = 1;
  setHistogram(a, 2, h('{{schema:-53 sum:5 count:4 custom_values:[0.1 1] buckets:[1 2 1] counter_reset_hint:gauge}}'));
  const floats = newStepSeries([{ name: 'i', value: 'b' }], false, 3);
  floats.values.set([1, Number.NaN, 3]);
  floats.present.set([1, 1, 0]);
  const packed = structuredClone(packSeries([a, floats], 3));
  t.ok(packed.histograms instanceof Float64Array, 'histograms travel in one Float64Array');
  t.same(unpackSeries(packed, 3), [a, floats]);
  t.ok(Object.is(unpackSeries(packed, 3)[0]?.histograms?.[0]?.sum, -0), '-0 stays -0');
  t.equal(packSeries([floats], 3).histograms, undefined, 'float-only replies carry no histogram buffer');
});
