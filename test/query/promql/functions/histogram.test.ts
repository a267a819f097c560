import t from 'tap';
import {
  bucketFraction,
  bucketQuantile,
  type ClassicBucket,
} from '../../../../src/query/promql/functions/histogram.js';

const inf = Number.POSITIVE_INFINITY;
const buckets = (...pairs: [number, number][]): ClassicBucket[] =>
  pairs.map(([upperBound, count]) => ({ upperBound, count }));

t.test('interpolates linearly inside the bucket holding the rank, starting the first at 0', async (t) => {
  const histogram = buckets([1, 2], [2, 4], [inf, 4]);
  t.equal(bucketQuantile(0.5, histogram), 1);
  t.equal(bucketQuantile(0.25, histogram), 0.5);
  t.equal(bucketQuantile(0.75, histogram), 1.5);
  t.equal(bucketQuantile(1, histogram), 2);
  t.equal(bucketQuantile(0, histogram), 0);
});

t.test('a rank in the +Inf bucket answers the highest finite bound', async (t) => {
  t.equal(bucketQuantile(0.9, buckets([1, 2], [inf, 4])), 1);
});

t.test('a first bucket at or below zero answers its own bound', async (t) => {
  t.equal(bucketQuantile(0.25, buckets([-1, 2], [0, 3], [inf, 4])), -1);
  // Past the first bucket the interpolation is linear between its neighbours' bounds.
  t.ok(Math.abs(bucketQuantile(0.6, buckets([-1, 2], [0, 3], [inf, 4])) + 0.6) < 1e-12);
});

t.test('quantiles outside [0, 1] saturate and NaN stays NaN', async (t) => {
  const histogram = buckets([1, 2], [inf, 4]);
  t.equal(bucketQuantile(-0.1, histogram), Number.NEGATIVE_INFINITY);
  t.equal(bucketQuantile(1.1, histogram), inf);
  t.ok(Number.isNaN(bucketQuantile(Number.NaN, histogram)));
  t.equal(bucketQuantile(-1, []), Number.NEGATIVE_INFINITY, 'checked before the buckets');
});

t.test('NaN without a +Inf bucket, with a lone bucket, or with no observations', async (t) => {
  t.ok(Number.isNaN(bucketQuantile(0.5, buckets([1, 2], [2, 4]))));
  t.ok(Number.isNaN(bucketQuantile(0.5, buckets([inf, 4]))));
  t.ok(Number.isNaN(bucketQuantile(0.5, buckets([1, 0], [inf, 0]))));
  t.ok(Number.isNaN(bucketQuantile(0.5, [])));
});

t.test('sorts buckets, merges equal bounds and leaves its input untouched', async (t) => {
  const input = buckets([inf, 4], [2, 4], [1, 2]);
  t.equal(bucketQuantile(0.75, input), 1.5);
  t.same(input, buckets([inf, 4], [2, 4], [1, 2]));
  t.equal(bucketQuantile(0.5, buckets([1, 1], [1, 1], [inf, 2])), 0.5, 'le="1" and le="1.0" add up');
});

t.test('raises decreasing cumulative counts to make them monotonic', async (t) => {
  const input = buckets([1, 5], [2, 3], [inf, 6]);
  t.equal(bucketQuantile(0.5, input), 0.6);
  t.equal(input[1]?.count, 3, 'the caller keeps its counts');
});

t.test('ignores numerically insignificant increases between buckets', async (t) => {
  // Without flattening, 10.0000000000001 would put the rank just above 10 into the 1..2 bucket
  // and interpolate to about 1.5; flattened, the rank falls into the 2..3 bucket.
  const histogram = buckets([1, 10], [2, 10.0000000000001], [3, 20], [inf, 20]);
  const q = 10.00000000000005 / 20;
  const result = bucketQuantile(q, histogram);
  t.ok(result >= 2 && result < 2.01, `got ${result}`);
});

t.test('bucketFraction interpolates the share of observations between two values', async (t) => {
  const histogram = buckets([1, 2], [2, 4], [inf, 4]);
  t.equal(bucketFraction(0, 1, histogram), 0.5);
  t.equal(bucketFraction(0.5, 1.5, histogram), 0.5);
  t.equal(bucketFraction(Number.NEGATIVE_INFINITY, inf, histogram), 1);
  t.equal(bucketFraction(2, 1, histogram), 0);
  t.ok(Number.isNaN(bucketFraction(Number.NaN, 1, histogram)));
  t.ok(Number.isNaN(bucketFraction(0, 1, buckets([1, 2], [2, 4]))));
  // Nothing is interpolated in a bucket reaching down to -Inf: a bound inside it counts the whole
  // bucket, and a bound inside the +Inf bucket adds none of it.
  t.equal(bucketFraction(-5, 0, buckets([0, 2], [inf, 4])), 0);
  t.equal(bucketFraction(-5, 1, buckets([0, 2], [inf, 4])), 0);
  // Half of the (-10, 0] bucket lies above -5: (2 - 1.5) / 4.
  t.equal(bucketFraction(-5, 1, buckets([-10, 1], [0, 2], [inf, 4])), 0.125);
});
