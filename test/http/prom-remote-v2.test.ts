/**
 * Prometheus remote write 2.0 (`Content-Type: application/x-protobuf;proto=io.prometheus.write.v2.Request`)
 * over real HTTP: symbols and label references, float samples, native histograms, exemplars and
 * metadata; the `X-Prometheus-Remote-Write-*-Written` response headers; malformed requests
 * answered 400 with nothing stored. Requests are built with the 2.0 schema of
 * src/shared/proto/prometheus.ts (the server decodes it by hand).
 */
import t from 'tap';
import { prometheusTypes } from '../../src/shared/proto/prometheus.js';
import { type HistogramSpec, histogramMessage } from '../helpers/prom-histograms.js';
import { snappyBlock } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const Request = prometheusTypes.WriteRequestV2;

const T0 = 1_700_000_000_000;
const CONTENT_TYPE = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';

function requestBody(message: Record<string, unknown>): Buffer {
  return snappyBlock(Request.encode(Request.fromObject(message)).finish());
}

async function postV2(url: string, body: Uint8Array) {
  const res = await fetch(`${url}/v1/metricsapi/write`, {
    method: 'POST',
    headers: {
      'content-type': CONTENT_TYPE,
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '2.0.0',
    },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function written(headers: Headers): [string | null, string | null, string | null] {
  return [
    headers.get('x-prometheus-remote-write-samples-written'),
    headers.get('x-prometheus-remote-write-histograms-written'),
    headers.get('x-prometheus-remote-write-exemplars-written'),
  ];
}

const SPEC: HistogramSpec = {
  float: false,
  count: 6,
  sum: 9,
  schema: 0,
  zeroThreshold: 0,
  zeroCount: 0,
  negative: [],
  positive: [
    [0, 2],
    [2, 4],
  ],
  timestamp: T0,
};

// Symbols: index 0 must be the empty string.
const SYMBOLS = [
  '',
  '__name__',
  'rw2_requests_total',
  'job',
  'api',
  'rw2_latency_seconds',
  'Requests.',
  'seconds',
  'trace_id',
  'abc',
];

async function instant(url: string, query: string): Promise<unknown[]> {
  const params = new URLSearchParams({ query, time: String(T0 / 1000 + 30) });
  const body = (await (await fetch(`${url}/v1/metricsapi/api/v1/query?${params}`)).json()) as {
    data: { result: unknown[] };
  };
  return body.data.result;
}

t.test('remote write 2.0', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const url = server.url;

  t.test('stores samples and histograms and answers with what it wrote', async (t) => {
    const res = await postV2(
      url,
      requestBody({
        symbols: SYMBOLS,
        timeseries: [
          {
            labels_refs: [1, 2, 3, 4],
            samples: [
              { value: 5, timestamp: T0 },
              { value: 7, timestamp: T0 + 15_000 },
            ],
            exemplars: [{ labels_refs: [8, 9], value: 7, timestamp: T0 + 15_000 }],
            metadata: { type: 1, help_ref: 6, unit_ref: 0 },
          },
          {
            labels_refs: [1, 5, 3, 4],
            histograms: [
              histogramMessage(SPEC),
              histogramMessage({
                ...SPEC,
                count: 12,
                sum: 18,
                positive: [
                  [0, 4],
                  [2, 8],
                ],
                timestamp: T0 + 15_000,
              }),
            ],
            metadata: { type: 3, help_ref: 0, unit_ref: 7 },
          },
        ],
      }),
    );
    t.equal(res.status, 204, res.text);
    t.same(written(res.headers), ['2', '2', '0'], 'samples, histograms, exemplars (not stored) written');

    t.same(await instant(url, 'rw2_requests_total'), [
      { metric: { __name__: 'rw2_requests_total', job: 'api' }, value: [T0 / 1000 + 30, '7'] },
    ]);
    t.same(await instant(url, 'histogram_count(rw2_latency_seconds)'), [
      { metric: { job: 'api' }, value: [T0 / 1000 + 30, '12'] },
    ]);
    const meta = await sql(
      url,
      "SELECT metric, type, help, unit FROM prometheus_metadata WHERE db = 'public' ORDER BY metric",
      'greptime_private',
    );
    t.same(rowsOf(meta.body), [
      ['rw2_latency_seconds', 'histogram', '', 'seconds'],
      ['rw2_requests_total', 'counter', 'Requests.', ''],
    ]);
  });

  t.test('an empty request writes nothing and says so', async (t) => {
    const res = await postV2(url, requestBody({ symbols: [''] }));
    t.equal(res.status, 204, res.text);
    t.same(written(res.headers), ['0', '0', '0']);
  });

  t.test('malformed requests are refused with 400 and store nothing', async (t) => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        'a label reference past the symbols',
        {
          symbols: ['', '__name__', 'v2_bad'],
          timeseries: [{ labels_refs: [1, 7], samples: [{ value: 1, timestamp: T0 }] }],
        },
        /symbol reference 7 is out of range of 3 symbols/,
      ],
      [
        'an odd number of label references',
        {
          symbols: ['', '__name__', 'v2_bad'],
          timeseries: [{ labels_refs: [1, 2, 1], samples: [{ value: 1, timestamp: T0 }] }],
        },
        /odd length 3/,
      ],
      [
        'a histogram whose spans and deltas disagree',
        {
          symbols: ['', '__name__', 'v2_bad'],
          timeseries: [{ labels_refs: [1, 2], histograms: [{ ...histogramMessage(SPEC), positive_deltas: [2] }] }],
        },
        /spans need 2 buckets, have 1 buckets/,
      ],
      [
        'no metric name',
        { symbols: ['', 'job', 'x'], timeseries: [{ labels_refs: [1, 2], samples: [{ value: 1, timestamp: T0 }] }] },
        /Missing metric name/,
      ],
    ];
    for (const [what, message, error] of cases) {
      const res = await postV2(url, requestBody(message));
      t.equal(res.status, 400, `${what}: 400`);
      t.match(JSON.parse(res.text), { error }, `${what}: says why`);
    }
    const tables = rowsOf((await sql(url, 'SHOW TABLES')).body).map((r) => r[0]);
    t.notOk(tables.includes('v2_bad'), 'no table was made');
  });

  t.test('2.0 cannot go through a pipeline', async (t) => {
    const res = await fetch(`${url}/v1/metricsapi/write`, {
      method: 'POST',
      headers: { 'content-type': CONTENT_TYPE, 'content-encoding': 'snappy', 'x-greptime-pipeline-name': 'p' },
      body: requestBody({ symbols: [''] }),
    });
    t.equal(res.status, 415);
  });
});
