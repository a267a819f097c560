/**
 * The Prometheus API's value encodings (src/router/prom-api/encode.ts), as Prometheus' JSON codec
 * writes them: timestamps as seconds with three digits of milliseconds only when they are not
 * whole, samples as the shortest round-trip decimal with Prometheus' special values, and a
 * matrix's points in order, comma-separated.
 */
import t from 'tap';
import { formatTimestamp, resultJson } from '../../src/router/prom-api/encode.js';

t.test('timestamps: whole seconds bare, milliseconds as three digits, negatives signed', async (t) => {
  const cases: Array<[number, string]> = [
    [0, '0'],
    [1000, '1'],
    [1795939500000, '1795939500'],
    [1500, '1.500'],
    [1001, '1.001'],
    [1795939500123, '1795939500.123'],
    [999, '0.999'],
    [-1000, '-1'],
    [-1500, '-1.500'],
    [-1, '-0.001'],
    [1500.4, '1.500'],
  ];
  for (const [ms, text] of cases) t.equal(formatTimestamp(ms), text, `${ms} ms`);
});

t.test("a matrix's points in order, with Prometheus' special values", async (t) => {
  const labels = [
    { name: '__name__', value: 'm' },
    { name: 'host', value: 'a"b' },
  ];
  const json = resultJson({
    resultType: 'matrix',
    series: [
      {
        labels,
        t: [1000, 2500, 3000, 4000, 5000, 6000],
        v: [12.34, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e-7, 1e21],
      },
    ],
  });
  t.equal(
    json,
    '[{"metric":{"__name__":"m","host":"a\\"b"},"values":' +
      '[[1,"12.34"],[2.500,"NaN"],[3,"+Inf"],[4,"-Inf"],[5,"1e-07"],[6,"1e+21"]]}]',
  );
  t.same(JSON.parse(json)[0].values.length, 6);
});

t.test('a series without float points has no "values"', async (t) => {
  const json = resultJson({ resultType: 'matrix', series: [{ labels: [], t: [], v: [] }] });
  t.equal(json, '[{"metric":{}}]');
});
