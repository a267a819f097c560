/**
 * Prometheus remote write (`POST /v1/metricsapi/write`) end to end: requests built with the
 * server's protobuf schema and snappyjs, read back through SQL and through remote read.
 */
import t from 'tap';
import {
  bitsOf,
  numberOfBits,
  postRemoteWrite,
  remoteRead,
  remoteWrite,
  snappyBlock,
  type TestSeries,
  writeRequestBytes,
} from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const STALE_BITS = '7ff0000000000002';
const T0 = 1_700_000_000_000;

async function tables(url: string, db = 'public'): Promise<string[]> {
  const res = await sql(url, 'SHOW TABLES', db);
  return rowsOf(res.body).map((r) => r[0] as string);
}

async function metricSum(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

t.test('remote write', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  t.test('stores one table per metric with the timestamp, the value and one tag per label', async (t) => {
    const res = await remoteWrite(url, [
      {
        labels: { __name__: 'http_requests_total', job: 'api', code: '200' },
        samples: [
          { value: 5, timestamp: T0 },
          { value: 7, timestamp: T0 + 15_000 },
        ],
      },
      { labels: { __name__: 'http_requests_total', job: 'api', code: '500' }, samples: [{ value: 1, timestamp: T0 }] },
      { labels: { __name__: 'up', job: 'api', instance: 'h:1' }, samples: [{ value: 1, timestamp: T0 }] },
    ]);
    t.equal(res.status, 204, res.text);
    t.equal(res.text, '');

    const desc = await sql(url, 'DESC TABLE http_requests_total');
    t.same(
      rowsOf(desc.body).map((r) => [r[0], r[1], r[5]]),
      [
        ['greptime_timestamp', 'TimestampMillisecond', 'TIMESTAMP'],
        ['greptime_value', 'Float64', 'FIELD'],
        ['code', 'String', 'TAG'],
        ['job', 'String', 'TAG'],
      ],
    );
    const rows = await sql(url, 'SELECT * FROM http_requests_total ORDER BY code, greptime_timestamp');
    t.same(rowsOf(rows.body), [
      [T0, 5, '200', 'api'],
      [T0 + 15_000, 7, '200', 'api'],
      [T0, 1, '500', 'api'],
    ]);
    t.same(rowsOf((await sql(url, 'SELECT instance, job, greptime_value FROM up')).body), [['h:1', 'api', 1]]);
  });

  t.test('database labels and the db parameter pick the database and are not stored', async (t) => {
    for (const db of ['metrics_a', 'metrics_b', 'metrics_c']) {
      t.equal((await sql(url, `CREATE DATABASE ${db}`)).status, 200);
    }
    const series: TestSeries[] = [
      { labels: { __name__: 'm_db', __database__: 'metrics_a', host: 'x' }, samples: [{ value: 1, timestamp: T0 }] },
      {
        labels: { __name__: 'm_db', x_greptime_database: 'metrics_a', __schema__: 'metrics_b', host: 'y' },
        samples: [{ value: 2, timestamp: T0 }],
      },
      {
        labels: { __name__: 'm_db', __physical_table__: 'phy', x_greptime_physical_table: 'phy2', host: 'z' },
        samples: [{ value: 3, timestamp: T0 }],
      },
    ];
    const res = await remoteWrite(url, series, 'db=metrics_c&physical_table=my_physical');
    t.equal(res.status, 204, res.text);
    t.same(rowsOf((await sql(url, 'SELECT * FROM m_db', 'metrics_a')).body), [[T0, 1, 'x']]);
    t.same(rowsOf((await sql(url, 'SELECT * FROM m_db', 'metrics_b')).body), [[T0, 2, 'y']], '__schema__ wins');
    t.same(rowsOf((await sql(url, 'SELECT * FROM m_db', 'metrics_c')).body), [[T0, 3, 'z']]);
    t.notOk(await tables(url).then((names) => names.includes('m_db')), 'nothing in public');

    const header = await postRemoteWrite(
      url,
      snappyBlock(writeRequestBytes([{ labels: { __name__: 'm_hdr' }, samples: [{ value: 4, timestamp: T0 }] }])),
      '',
      { 'x-greptime-db-name': 'metrics_a' },
    );
    t.equal(header.status, 204, header.text);
    t.same(rowsOf((await sql(url, 'SELECT * FROM m_hdr', 'metrics_a')).body), [[T0, 4]]);

    const missing = await remoteWrite(url, [
      { labels: { __name__: 'm_nodb', __database__: 'no_such_db' }, samples: [{ value: 1, timestamp: T0 }] },
    ]);
    t.equal(missing.status, 400);
    t.match(JSON.parse(missing.text), { error: /no_such_db/ });
  });

  t.test('the last write of a series and timestamp wins, samples come back in time order', async (t) => {
    const labels = { __name__: 'dup_metric', job: 'j' };
    let res = await remoteWrite(url, [
      {
        labels,
        samples: [
          { value: 3, timestamp: T0 + 2000 },
          { value: 1, timestamp: T0 },
          { value: 10, timestamp: T0 + 1000 },
          { value: 11, timestamp: T0 + 1000 },
        ],
      },
      { labels, samples: [{ value: 12, timestamp: T0 + 1000 }] },
    ]);
    t.equal(res.status, 204, res.text);
    res = await remoteWrite(url, [{ labels, samples: [{ value: 30, timestamp: T0 + 2000 }] }]);
    t.equal(res.status, 204, res.text);
    const rows = await sql(
      url,
      'SELECT greptime_timestamp, greptime_value FROM dup_metric ORDER BY greptime_timestamp',
    );
    t.same(rowsOf(rows.body), [
      [T0, 1],
      [T0 + 1000, 12],
      [T0 + 2000, 30],
    ]);
  });

  t.test('a label seen later becomes a new column; earlier rows read NULL', async (t) => {
    t.equal(
      (await remoteWrite(url, [{ labels: { __name__: 'grow', a: '1' }, samples: [{ value: 1, timestamp: T0 }] }]))
        .status,
      204,
    );
    t.equal(
      (
        await remoteWrite(url, [
          { labels: { __name__: 'grow', a: '1', b: '2' }, samples: [{ value: 2, timestamp: T0 }] },
        ])
      ).status,
      204,
    );
    const rows = await sql(url, 'SELECT a, b, greptime_value FROM grow ORDER BY greptime_value');
    t.same(rowsOf(rows.body), [
      ['1', null, 1],
      ['1', '2', 2],
    ]);
  });

  t.test('metadata, exemplars and native histograms are accepted; metadata and histograms are kept', async (t) => {
    const message = {
      timeseries: [
        {
          labels: [
            { name: '__name__', value: 'ex_metric' },
            { name: 'job', value: 'j' },
          ],
          samples: [{ value: 1.5, timestamp: T0 }],
          exemplars: [{ labels: [{ name: 'trace_id', value: 'abc' }], value: 1.5, timestamp: T0 }],
        },
        {
          labels: [{ name: '__name__', value: 'native_histogram_only' }],
          histograms: [
            {
              count_int: 3,
              sum: 4.5,
              schema: 0,
              zero_threshold: 0.001,
              positive_spans: [{ offset: 0, length: 1 }],
              positive_deltas: [3],
              timestamp: T0,
            },
          ],
        },
      ],
      metadata: [
        { type: 1, metric_family_name: 'ex_metric', help: 'An example counter.', unit: 'seconds' },
        { type: 3, metric_family_name: 'req_duration', help: 'Durations.', unit: '' },
      ],
    };
    const { prometheusTypes } = await import('../../src/shared/proto/prometheus.js');
    const bytes = prometheusTypes.WriteRequest.encode(prometheusTypes.WriteRequest.fromObject(message)).finish();
    const res = await postRemoteWrite(url, snappyBlock(bytes));
    t.equal(res.status, 204, res.text);
    t.same(rowsOf((await sql(url, 'SELECT job, greptime_value FROM ex_metric')).body), [['j', 1.5]]);
    // Native histograms are stored (prom-remote-histograms.test.ts follows them through queries).
    t.same(rowsOf((await sql(url, 'SELECT count(greptime_histogram) FROM native_histogram_only')).body), [[1]]);
    const meta = await sql(
      url,
      "SELECT metric, type, help, unit FROM prometheus_metadata WHERE db = 'public' ORDER BY metric",
      'greptime_private',
    );
    t.same(rowsOf(meta.body), [
      ['ex_metric', 'counter', 'An example counter.', 'seconds'],
      ['req_duration', 'histogram', 'Durations.', ''],
    ]);
    // Metadata alone (Prometheus sends it in separate requests) replaces the earlier entry.
    const again = await remoteWrite(url, [], '', [{ type: 2, metric_family_name: 'ex_metric', help: 'Now a gauge.' }]);
    t.equal(again.status, 204, again.text);
    const updated = await sql(
      url,
      "SELECT type, help FROM prometheus_metadata WHERE db = 'public' AND metric = 'ex_metric'",
      'greptime_private',
    );
    t.same(rowsOf(updated.body), [['gauge', 'Now a gauge.']]);
  });

  t.test('the VictoriaMetrics handshake answers 1', async (t) => {
    const res = await fetch(`${url}/v1/metricsapi/write?get_vm_proto_version=1`, { method: 'POST' });
    t.equal(res.status, 200);
    t.equal(await res.text(), '1');
  });

  t.test('malformed requests are refused with 400 and nothing of them is stored', async (t) => {
    const good = { labels: { __name__: 'must_not_exist', job: 'j' }, samples: [{ value: 1, timestamp: T0 }] };
    const valid = writeRequestBytes([good]);
    const invalidUtf8 = writeRequestBytes([
      good,
      { labels: { __name__: 'x', v: 'MARK' }, samples: [{ value: 1, timestamp: T0 }] },
    ]);
    const at = Buffer.from(invalidUtf8).indexOf('MARK');
    invalidUtf8[at] = 0xff;
    const wrongWireType = new Uint8Array([...valid, (1 << 3) | 7]);
    const cases: Array<{ name: string; body: Uint8Array; error: RegExp }> = [
      {
        name: 'not snappy at all',
        body: new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        error: /decompress snappy/,
      },
      {
        name: 'truncated snappy block',
        body: snappyBlock(valid).subarray(0, snappyBlock(valid).length - 3),
        error: /decompress snappy/,
      },
      { name: 'truncated protobuf', body: snappyBlock(valid.subarray(0, valid.length - 5)), error: /Failed to decode/ },
      { name: 'invalid wire type', body: snappyBlock(wrongWireType), error: /Failed to decode.*wire type/ },
      {
        name: 'garbage protobuf',
        body: snappyBlock(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f])),
        error: /Failed to decode/,
      },
      { name: 'invalid UTF-8 in a label value', body: snappyBlock(invalidUtf8), error: /not valid UTF-8/ },
      {
        name: 'missing metric name',
        body: snappyBlock(writeRequestBytes([good, { labels: { job: 'j' }, samples: [{ value: 1, timestamp: T0 }] }])),
        error: /Missing metric name/,
      },
      {
        name: 'empty metric name',
        body: snappyBlock(
          writeRequestBytes([good, { labels: { __name__: '' }, samples: [{ value: 1, timestamp: T0 }] }]),
        ),
        error: /Missing metric name/,
      },
      {
        name: 'label name starting with a digit',
        body: snappyBlock(
          writeRequestBytes([good, { labels: { __name__: 'x', '1abc': 'v' }, samples: [{ value: 1, timestamp: T0 }] }]),
        ),
        error: /Invalid label name: "1abc"/,
      },
      {
        name: 'label name with a dash',
        body: snappyBlock(
          writeRequestBytes([good, { labels: { __name__: 'x', 'a-b': 'v' }, samples: [{ value: 1, timestamp: T0 }] }]),
        ),
        error: /Invalid label name: "a-b"/,
      },
      {
        name: 'duplicate label',
        body: snappyBlock(
          writeRequestBytes([
            good,
            {
              labels: [
                ['__name__', 'x'],
                ['a', '1'],
                ['a', '2'],
              ],
              samples: [{ value: 1, timestamp: T0 }],
            },
          ]),
        ),
        error: /Duplicate label name a/,
      },
      {
        name: 'label colliding with the value column',
        body: snappyBlock(
          writeRequestBytes([
            good,
            { labels: { __name__: 'x', greptime_value: 'v' }, samples: [{ value: 1, timestamp: T0 }] },
          ]),
        ),
        error: /collides with the value column/,
      },
    ];
    for (const c of cases) {
      const res = await postRemoteWrite(url, c.body);
      t.equal(res.status, 400, `${c.name}: status`);
      t.match(JSON.parse(res.text), { error: c.error }, `${c.name}: message ${res.text}`);
    }
    t.notOk((await tables(url)).includes('must_not_exist'), 'no table was created');
    t.notOk((await tables(url)).includes('x'), 'no table was created');

    const v2 = await postRemoteWrite(url, snappyBlock(valid), '', {
      'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request',
    });
    // 2.0 reserves 1.0's fields: a 1.0 body labelled 2.0 reads as an empty request (prom-remote-v2.test.ts).
    t.equal(v2.status, 204, 'a 1.0 body sent as 2.0 writes nothing');
    const zstd = await postRemoteWrite(url, snappyBlock(valid), '', { 'content-encoding': 'zstd' });
    t.equal(zstd.status, 415, 'zstd is refused with 415');
    const wrongType = await postRemoteWrite(url, snappyBlock(valid), '', { 'content-type': 'text/plain' });
    t.equal(wrongType.status, 415);
    t.notOk((await tables(url)).includes('must_not_exist'), 'still no table');
  });

  t.test('per-protocol counters appear in /metrics', async (t) => {
    t.ok((await metricSum(url, 'shoaldb_ingest_rows_total', 'protocol="metricsapi-write"')) >= 10);
    t.ok((await metricSum(url, 'shoaldb_ingest_bytes_total', 'protocol="metricsapi-write"')) > 0);
    t.ok((await metricSum(url, 'shoaldb_ingest_requests_total', 'outcome="ok"')) > 0);
    t.ok((await metricSum(url, 'shoaldb_ingest_requests_total', 'outcome="rejected"')) >= 12);
  });
});

t.test('bodies over the body limit, compressed or once decompressed, get 413', async (t) => {
  const server = await startServer({ httpToml: 'body_limit = "64KiB"' });
  t.teardown(() => server.stop());
  // Highly compressible: a few KiB on the wire, far more than 64 KiB once decompressed.
  const big = { __name__: 'big', pad: 'x'.repeat(100_000) };
  const compressed = snappyBlock(writeRequestBytes([{ labels: big, samples: [{ value: 1, timestamp: T0 }] }]));
  t.ok(compressed.length < 64 * 1024);
  const res = await postRemoteWrite(server.url, compressed);
  t.equal(res.status, 413, res.text);

  const random = Buffer.alloc(100 * 1024);
  for (let i = 0; i < random.length; i++) random[i] = (i * 7919) % 251;
  const raw = await postRemoteWrite(server.url, random);
  t.equal(raw.status, 413, 'a body over the limit on the wire');
  t.notOk((await tables(server.url)).includes('big'));
});

t.test('NaN and stale markers keep their bits through WAL replay, flush and compaction', async (t) => {
  let server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  const values = [
    STALE_BITS,
    '7ff8000000000001',
    'fff8000000000000',
    '0000000000000000',
    '8000000000000000',
    '3ff0000000000000',
  ];
  const write = (metric: string, offsetMs: number) =>
    remoteWrite(server.url, [
      {
        labels: { __name__: metric, job: 'nan' },
        samples: values.map((bits, i) => ({ value: numberOfBits(bits), timestamp: T0 + offsetMs + i * 1000 })),
      },
    ]);
  const bytes = writeRequestBytes([
    { labels: { __name__: 'probe' }, samples: [{ value: numberOfBits(STALE_BITS), timestamp: 1 }] },
  ]);
  t.ok(
    Buffer.from(bytes).includes(Buffer.from('020000000000f07f', 'hex')),
    'the request itself carries the stale bits',
  );

  const readBits = async (metric: string): Promise<string[]> => {
    const [result] = await remoteRead(server.url, [{ start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', metric]] }]);
    return (result ?? []).flatMap((s) => s.bits);
  };
  const expectBits = (offsets: number[]) => offsets.flatMap(() => values);

  t.equal((await write('nan_metric', 0)).status, 204);
  t.same(await readBits('nan_metric'), expectBits([0]), 'from the memtable');

  await server.kill();
  server = await startServer({ dataDir: server.dataDir, shards: 1 });
  t.same(await readBits('nan_metric'), expectBits([0]), 'after WAL replay');

  t.equal((await sql(server.url, "ADMIN flush_table('nan_metric')")).status, 200);
  t.same(await readBits('nan_metric'), expectBits([0]), 'from a segment');

  t.equal((await write('nan_metric', 100_000)).status, 204);
  t.equal((await sql(server.url, "ADMIN flush_table('nan_metric')")).status, 200);
  t.equal((await sql(server.url, "ADMIN compact_table('nan_metric')")).status, 200);
  t.ok((await metricSum(server.url, 'shoaldb_compactions_total', 'shard="0"')) > 0, 'segments were compacted');
  t.same(await readBits('nan_metric'), expectBits([0, 100_000]), 'after compaction');

  await server.stop();
  server = await startServer({ dataDir: server.dataDir, shards: 1 });
  t.same(await readBits('nan_metric'), expectBits([0, 100_000]), 'after a restart from segments');
  t.equal(bitsOf(numberOfBits(STALE_BITS)), STALE_BITS);
});
