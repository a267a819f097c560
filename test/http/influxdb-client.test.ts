/** The official InfluxDB v2 client library writes through /v1/lineproto/api/v2/write unmodified. */
import { InfluxDB, Point } from '@influxdata/influxdb-client';
import t from 'tap';
import { sql, startServer } from '../helpers/server.js';

t.test('@influxdata/influxdb-client writes points that read back through SQL', async (t) => {
  const server = await startServer({ topLevelToml: 'user_provider = "static_user_provider:cmd:admin=pw"' });
  t.teardown(() => server.stop());
  const influx = new InfluxDB({ url: `${server.url}/v1/lineproto`, token: 'admin:pw' });
  // Large enough batches that the client gzips them (its threshold is 1000 bytes).
  // Batches go out when the client calls flush(); close() alone does not wait for batches that
  // writePoint already started, so the client is driven the way an application awaiting its
  // writes would drive it.
  const writeApi = influx.getWriteApi('any-org', 'public', 'ms', { batchSize: 10_000, maxRetries: 0 });
  const base = 1_700_000_000_000;
  for (let i = 0; i < 1000; i++) {
    writeApi.writePoint(
      new Point('weather')
        .tag('city', `c${i % 4}`)
        .floatField('temp', i / 10)
        .intField('reading', i)
        .stringField('note', `n ${i}, "quoted"`)
        .booleanField('sunny', i % 2 === 0)
        .timestamp(new Date(base + i)),
    );
    if (i % 500 === 499) await writeApi.flush();
  }
  await writeApi.close();

  const auth = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };
  const count = await sql(server.url, 'SELECT count(*), sum(reading) FROM weather', undefined, auth);
  t.same(count.body.output?.[0]?.records?.rows, [[1000, 499500]]);
  const one = await sql(
    server.url,
    'SELECT city, temp, reading, note, sunny, greptime_timestamp FROM weather WHERE reading = 7',
    undefined,
    auth,
  );
  t.same(one.body.output?.[0]?.records?.rows, [['c3', 0.7, 7, 'n 7, "quoted"', false, (base + 7) * 1_000_000]]);

  const bad = new InfluxDB({ url: `${server.url}/v1/lineproto`, token: 'admin:wrong' }).getWriteApi(
    'o',
    'public',
    'ms',
    {
      maxRetries: 0,
    },
  );
  bad.writePoint(new Point('weather').floatField('temp', 1));
  await t.rejects(bad.close(), 'a wrong token is refused');
});
