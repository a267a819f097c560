/**
 * Non-finite sample values through remote write: +Inf, -Inf, NaN and the stale marker must read
 * back as they were sent through PromQL, remote read and SQL (Prometheus' histograms carry an
 * `le="+Inf"` bucket and gauges may legitimately be infinite).
 */
import t from 'tap';
import { bitsOf, numberOfBits, remoteRead, remoteWrite } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const STALE_BITS = '7ff0000000000002';
// Bit patterns, not numbers: a JS array of doubles quiets a signalling NaN such as the stale marker.
const SENT_BITS = [
  '7ff0000000000000', // +Inf
  'fff0000000000000', // -Inf
  '7ff8000000000000', // NaN
  STALE_BITS,
  '3ff8000000000000', // 1.5
  '8000000000000000', // -0
  '7fefffffffffffff', // max double
];

t.test('±Inf, NaN and stale markers round-trip through remote write', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const samples = SENT_BITS.map((bits, i) => ({ value: numberOfBits(bits), timestamp: T0 + i * 1000 }));
  t.equal(bitsOf(samples[3]?.value as number), STALE_BITS, 'the client sends the stale marker itself');
  t.equal((await remoteWrite(server.url, [{ labels: { __name__: 'special', job: 'x' }, samples }])).status, 204);

  const [read] = await remoteRead(server.url, [{ start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', 'special']] }]);
  t.same(
    (read ?? []).flatMap((s) => s.bits),
    SENT_BITS,
    'remote read returns every value bit for bit',
  );

  // PromQL: an instant query per sample time. Stale markers end the series, so that step is empty.
  const promql = async (at: number): Promise<string[]> => {
    const q = new URLSearchParams({ query: 'special', time: String(at / 1000) });
    const res = await fetch(`${server.url}/v1/metricsapi/api/v1/query?${q}`);
    const body = (await res.json()) as { data: { result: Array<{ value: [number, string] }> } };
    return body.data.result.map((r) => r.value[1]);
  };
  t.same(await promql(T0), ['+Inf'], '+Inf through PromQL');
  t.same(await promql(T0 + 1000), ['-Inf'], '-Inf through PromQL');
  t.same(await promql(T0 + 2000), ['NaN'], 'NaN through PromQL');
  t.same(await promql(T0 + 3000), [], 'a stale marker hides the series');
  t.same(await promql(T0 + 4000), ['1.5'], 'a finite value after it');

  const res = await sql(
    server.url,
    'SELECT greptime_value > 1e308, greptime_value < -1e308, isnan(greptime_value) FROM special ORDER BY greptime_timestamp LIMIT 4',
  );
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.same(rowsOf(res.body), [
    [true, false, false],
    [false, true, false],
    // Arrow's float comparisons (so DataFusion's, so GreptimeDB's) order NaN above +Inf.
    [true, false, true],
    [true, false, true],
  ]);
  // JSON has no infinities: GreptimeDB answers null for them (reference admin §4.3).
  const json = await sql(server.url, 'SELECT greptime_value FROM special ORDER BY greptime_timestamp');
  t.same(
    rowsOf(json.body).map((r) => r[0]),
    [null, null, null, null, 1.5, -0, Number.MAX_VALUE],
  );
});
