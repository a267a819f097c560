/**
 * Prometheus remote read (`POST /v1/metricsapi/read`) end to end: matchers, time ranges,
 * database selection, non-Prometheus tables, response negotiation, SAMPLES and streamed XOR
 * chunks (checked with an independent decoder).
 */
import t from 'tap';
import { prometheusTypes } from '../../src/shared/proto/prometheus.js';
import {
  bitsOf,
  decodeChunkedBody,
  decodeXorChunk,
  numberOfBits,
  postRemoteRead,
  type ReadSeries,
  readRequestBytes,
  remoteRead,
  remoteWrite,
  STREAMED_CONTENT_TYPE,
  snappyBlock,
  type TestQuery,
} from '../helpers/prom-remote.js';
import { sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

/** Series of one query as `labels → [t, v][]`, keyed by the label set's text. */
function byLabels(series: ReadSeries[]): Record<string, Array<[number, number]>> {
  const out: Record<string, Array<[number, number]>> = {};
  for (const s of series) {
    const key = Object.entries(s.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out[key] = s.samples;
  }
  return out;
}

t.test('remote read', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  const res = await remoteWrite(url, [
    {
      labels: { __name__: 'api_requests', job: 'api', code: '200' },
      samples: [0, 1, 2, 3, 4].map((i) => ({ value: 10 + i, timestamp: T0 + i * 1000 })),
    },
    { labels: { __name__: 'api_requests', job: 'api', code: '500' }, samples: [{ value: 1, timestamp: T0 }] },
    { labels: { __name__: 'api_requests', job: 'apiserver', code: '200' }, samples: [{ value: 2, timestamp: T0 }] },
    { labels: { __name__: 'api_latency', job: 'api' }, samples: [{ value: 0.5, timestamp: T0 }] },
    { labels: { __name__: 'node_load', job: 'node', instance: 'n1' }, samples: [{ value: 3, timestamp: T0 }] },
  ]);
  t.equal(res.status, 204, res.text);

  const read = async (q: Omit<TestQuery, 'start' | 'end'> & Partial<TestQuery>, query = '') => {
    const [result] = await remoteRead(url, [{ start: T0 - 60_000, end: T0 + 60_000, ...q }], query);
    return result ?? [];
  };

  t.test('equality matchers select one metric; labels come sorted with __name__; samples in time order', async (t) => {
    const series = await read({
      matchers: [
        ['__name__', 'EQ', 'api_requests'],
        ['code', 'EQ', '200'],
        ['job', 'EQ', 'api'],
      ],
    });
    t.equal(series.length, 1);
    t.same(Object.keys(series[0]?.labels ?? {}), ['__name__', 'code', 'job'], 'label names are sorted');
    t.same(
      series[0]?.samples,
      [0, 1, 2, 3, 4].map((i) => [T0 + i * 1000, 10 + i]),
    );
  });

  t.test('NEQ, RE and NRE matchers; regexes are anchored', async (t) => {
    t.same(
      Object.keys(
        byLabels(
          await read({
            matchers: [
              ['__name__', 'EQ', 'api_requests'],
              ['code', 'NEQ', '200'],
            ],
          }),
        ),
      ),
      ['__name__=api_requests,code=500,job=api'],
    );
    t.same(
      Object.keys(
        byLabels(
          await read({
            matchers: [
              ['__name__', 'EQ', 'api_requests'],
              ['job', 'RE', 'api'],
            ],
          }),
        ),
      ),
      ['__name__=api_requests,code=200,job=api', '__name__=api_requests,code=500,job=api'],
      'RE "api" does not match "apiserver"',
    );
    t.same(
      Object.keys(
        byLabels(
          await read({
            matchers: [
              ['__name__', 'EQ', 'api_requests'],
              ['job', 'NRE', 'api'],
            ],
          }),
        ),
      ),
      ['__name__=api_requests,code=200,job=apiserver'],
    );
    t.same(
      Object.keys(
        byLabels(
          await read({
            matchers: [
              ['__name__', 'EQ', 'api_requests'],
              ['job', 'RE', 'api.*'],
              ['code', 'RE', '2..|404'],
            ],
          }),
        ),
      ),
      ['__name__=api_requests,code=200,job=api', '__name__=api_requests,code=200,job=apiserver'],
    );
    t.same(
      await read({
        matchers: [
          ['__name__', 'EQ', 'api_requests'],
          ['missing_label', 'RE', '.+'],
        ],
      }),
      [],
      'a label no series has is empty',
    );
    t.equal(
      (
        await read({
          matchers: [
            ['__name__', 'EQ', 'api_requests'],
            ['missing_label', 'EQ', ''],
          ],
        })
      ).length,
      3,
      'and matches the empty string',
    );
  });

  t.test('no __name__ matcher is needed; name regexes resolve against the tables', async (t) => {
    t.same(Object.keys(byLabels(await read({ matchers: [['job', 'EQ', 'api']] }))), [
      '__name__=api_latency,job=api',
      '__name__=api_requests,code=200,job=api',
      '__name__=api_requests,code=500,job=api',
    ]);
    t.same(
      (
        await read({
          matchers: [
            ['__name__', 'RE', 'api_.*'],
            ['code', 'EQ', ''],
          ],
        })
      ).map((s) => s.labels.__name__),
      ['api_latency'],
    );
    t.same(
      [...new Set((await read({ matchers: [['__name__', 'NRE', 'api_.*']] })).map((s) => s.labels.__name__))],
      ['node_load'],
    );
  });

  t.test('the time range is inclusive at both ends', async (t) => {
    const matchers: TestQuery['matchers'] = [
      ['__name__', 'EQ', 'api_requests'],
      ['code', 'EQ', '200'],
      ['job', 'EQ', 'api'],
    ];
    const series = await read({ start: T0 + 1000, end: T0 + 3000, matchers });
    t.same(
      series[0]?.samples.map((s) => s[0]),
      [T0 + 1000, T0 + 2000, T0 + 3000],
    );
    t.same(await read({ start: T0 + 5000, end: T0 + 9000, matchers }), [], 'no samples, no series');
  });

  t.test('several queries answer in order; unknown metrics and databases answer empty', async (t) => {
    const results = await remoteRead(url, [
      { start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', 'node_load']] },
      { start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', 'no_such_metric']] },
      { start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', 'api_latency']] },
      {
        start: 0,
        end: T0 * 2,
        matchers: [
          ['__name__', 'EQ', 'node_load'],
          ['__database__', 'EQ', 'no_such_db'],
        ],
      },
    ]);
    t.same(
      results.map((r) => r.map((s) => s.labels.__name__)),
      [['node_load'], [], ['api_latency'], []],
    );
  });

  t.test('the db parameter and database labels pick the database', async (t) => {
    t.equal((await sql(url, 'CREATE DATABASE other')).status, 200);
    t.equal(
      (
        await remoteWrite(
          url,
          [{ labels: { __name__: 'node_load', host: 'o1' }, samples: [{ value: 9, timestamp: T0 }] }],
          'db=other',
        )
      ).status,
      204,
    );
    const viaParam = await read({ matchers: [['__name__', 'EQ', 'node_load']] }, 'db=other');
    t.same(
      viaParam.map((s) => s.labels),
      [{ __name__: 'node_load', host: 'o1' }],
    );
    for (const label of ['__database__', 'x_greptime_database', '__schema__']) {
      const viaLabel = await read({
        matchers: [
          ['__name__', 'EQ', 'node_load'],
          [label, 'EQ', 'other'],
        ],
      });
      t.same(
        viaLabel.map((s) => s.labels),
        [{ __name__: 'node_load', host: 'o1' }],
        label,
      );
    }
  });

  t.test('any table with a time index reads as metrics: tags are labels, __field__ picks the value', async (t) => {
    t.equal(
      (
        await sql(
          url,
          'CREATE TABLE cpu (host STRING, region STRING, usage DOUBLE, idle BIGINT, note STRING, ts TIMESTAMP(9) TIME INDEX, PRIMARY KEY (host, region))',
        )
      ).status,
      200,
    );
    const insert = await sql(
      url,
      `INSERT INTO cpu VALUES ('a', 'eu', 0.5, 10, 'x', ${T0}000000), ('a', 'eu', NULL, 11, 'y', ${T0 + 1}999999), ('b', NULL, 0.25, 12, 'z', ${T0 + 2000}000000)`,
    );
    t.equal(insert.status, 200, insert.text);
    const usage = await read({ matchers: [['__name__', 'EQ', 'cpu']] });
    t.same(
      usage.map((s) => [s.labels, s.samples]),
      [
        [{ __name__: 'cpu', host: 'a', region: 'eu' }, [[T0, 0.5]]],
        [{ __name__: 'cpu', host: 'b' }, [[T0 + 2000, 0.25]]],
      ],
      'first numeric field; NULL values skipped; ns → ms',
    );
    const idle = await read({
      matchers: [
        ['__name__', 'EQ', 'cpu'],
        ['__field__', 'EQ', 'idle'],
        ['host', 'EQ', 'a'],
      ],
    });
    t.same(idle[0]?.samples, [
      [T0, 10],
      [T0 + 1, 11],
    ]);
    t.same(
      await read({
        matchers: [
          ['__name__', 'EQ', 'cpu'],
          ['__field__', 'EQ', 'note'],
        ],
      }),
      [],
      'string fields are not values',
    );
  });

  t.test('response types are negotiated as Prometheus does', async (t) => {
    const q: TestQuery[] = [{ start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', 'node_load']] }];
    const samples = await postRemoteRead(url, snappyBlock(readRequestBytes(q, [0, 1])));
    t.equal(samples.status, 200);
    t.equal(samples.headers.get('content-type'), 'application/x-protobuf');
    t.equal(samples.headers.get('content-encoding'), 'snappy');
    const chunked = await postRemoteRead(url, snappyBlock(readRequestBytes(q, [1, 0])));
    t.equal(chunked.status, 200);
    t.equal(chunked.headers.get('content-type'), STREAMED_CONTENT_TYPE);
    t.equal(chunked.headers.get('content-encoding'), null);
    const unknownFirst = await postRemoteRead(url, snappyBlock(readRequestBytes(q, [7, 1])));
    t.equal(unknownFirst.headers.get('content-type'), STREAMED_CONTENT_TYPE);
    const none = await postRemoteRead(url, snappyBlock(readRequestBytes(q, [7])));
    t.equal(none.status, 400);
    t.match(JSON.parse(new TextDecoder().decode(none.body)), {
      error: /does not support any of the requested response types/,
    });
  });

  t.test('streamed XOR chunks carry every sample bit for bit', async (t) => {
    // Irregular steps exercise every delta-of-delta width; varied values every XOR case.
    const times: number[] = [];
    let ts = T0;
    const steps = [15_000, 15_000, 15_001, 14_000, 30_000, 1, 200_000, 15_000, 9_000_000, 15_000, 3, 600_000_000];
    for (let i = 0; i < 300; i++) {
      times.push(ts);
      ts += steps[i % steps.length] as number;
    }
    const bits = times.map((_, i) => {
      if (i % 50 === 7) return '7ff0000000000002';
      if (i % 50 === 8) return '7ff8000000000000';
      if (i % 3 === 0) return bitsOf(i);
      if (i % 3 === 1) return bitsOf(i * 1.000001);
      return bitsOf(-(2 ** (i % 60)));
    });
    const w = await remoteWrite(url, [
      {
        labels: { __name__: 'xor_metric', job: 'chunks' },
        samples: times.map((timestamp, i) => ({ timestamp, value: numberOfBits(bits[i] as string) })),
      },
      {
        labels: { __name__: 'xor_metric', job: 'single' },
        samples: [{ timestamp: T0, value: numberOfBits('7ff0000000000002') }],
      },
    ]);
    t.equal(w.status, 204, w.text);
    const body = readRequestBytes(
      [
        { start: 0, end: ts, matchers: [['__name__', 'EQ', 'xor_metric']] },
        { start: 0, end: ts, matchers: [['__name__', 'EQ', 'node_load']] },
      ],
      [1],
    );
    const res = await postRemoteRead(url, snappyBlock(body));
    t.equal(res.status, 200);
    const frames = decodeChunkedBody(res.body);
    t.same(
      frames.map((f) => f.queryIndex),
      [0, 1],
    );
    const series = frames[0]?.series ?? [];
    t.same(
      series.map((s) => s.labels),
      [
        { __name__: 'xor_metric', job: 'chunks' },
        { __name__: 'xor_metric', job: 'single' },
      ],
    );
    const chunks = series[0]?.chunks ?? [];
    t.same(
      chunks.map((c) => c.type),
      [1, 1, 1],
      '300 samples in three XOR chunks of at most 120',
    );
    const decoded = chunks.flatMap((c) => {
      const samples = decodeXorChunk(c.data);
      t.equal(c.min, samples[0]?.[0]);
      t.equal(c.max, samples[samples.length - 1]?.[0]);
      return samples;
    });
    t.same(
      decoded.map((s) => s[0]),
      times,
      'timestamps',
    );
    t.same(
      decoded.map((s) => s[1].toString(16).padStart(16, '0')),
      bits,
      'value bits, NaN payloads included',
    );
    const single = decodeXorChunk(series[1]?.chunks[0]?.data ?? new Uint8Array(2));
    t.same(single, [[T0, 0x7ff0000000000002n]]);
    t.same(
      frames[1]?.series.map((s) => s.labels.__name__),
      ['node_load'],
    );
  });

  t.test('malformed requests are refused with 400', async (t) => {
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['not snappy', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), /decompress snappy/],
      ['garbage protobuf', snappyBlock(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f])), /Failed to decode/],
      [
        'invalid regex',
        snappyBlock(readRequestBytes([{ start: 0, end: 1, matchers: [['job', 'RE', '(unclosed']] }])),
        /invalid regular expression/,
      ],
      [
        'unknown matcher type',
        snappyBlock(
          prometheusTypes.ReadRequest.encode({
            queries: [{ matchers: [{ type: 9, name: 'job', value: 'x' }] }],
          }).finish(),
        ),
        /unknown label matcher type 9/,
      ],
    ];
    for (const [name, body, error] of cases) {
      const res = await postRemoteRead(url, body);
      t.equal(res.status, 400, name);
      t.match(JSON.parse(new TextDecoder().decode(res.body)), { error }, name);
    }
  });
});
