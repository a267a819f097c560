/**
 * The Prometheus HTTP query API (`/v1/metricsapi/api/v1/*`) end to end over real HTTP: every
 * endpoint by GET and POST form, Prometheus' envelope, value encodings, error types and statuses,
 * timeouts, database selection and result order. Data goes in through remote write.
 */
import t from 'tap';
import { remoteWrite } from '../helpers/prom-remote.js';
import { sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const T0_SECONDS = T0 / 1000;
const API = '/v1/metricsapi/api/v1';
/** Prometheus' metric type number for counters in remote write metadata. */
const COUNTER = 1;

interface ApiAnswer {
  status: number;
  text: string;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field.
  body: any;
}

async function answerOf(res: Response): Promise<ApiAnswer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, text, headers: res.headers, body };
}

function get(url: string, path: string, params: Record<string, string | string[]> = {}, headers = {}) {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) search.append(k, one);
  const query = search.toString();
  return fetch(`${url}${API}/${path}${query ? `?${query}` : ''}`, { headers }).then(answerOf);
}

function post(url: string, path: string, params: Record<string, string | string[]> = {}, urlQuery = '') {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  return fetch(`${url}${API}/${path}${urlQuery ? `?${urlQuery}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  }).then(answerOf);
}

t.test('metrics query API', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  const steps = Array.from({ length: 21 }, (_, i) => i);
  const written = await remoteWrite(
    url,
    [
      {
        labels: { __name__: 'up', job: 'node', instance: 'h1:9100' },
        samples: steps.map((i) => ({ value: 1, timestamp: T0 + i * 15_000 })),
      },
      {
        labels: { __name__: 'up', job: 'node', instance: 'h2:9100' },
        samples: steps.map((i) => ({ value: 0, timestamp: T0 + i * 15_000 })),
      },
      {
        labels: { __name__: 'http_requests_total', job: 'api', code: '200' },
        samples: steps.map((i) => ({ value: i * 30, timestamp: T0 + i * 15_000 })),
      },
      {
        labels: { __name__: 'http_requests_total', job: 'api', code: '500' },
        samples: steps.map((i) => ({ value: i * 3, timestamp: T0 + i * 15_000 })),
      },
      { labels: { __name__: 'weird', kind: 'inf' }, samples: [{ value: Number.POSITIVE_INFINITY, timestamp: T0 }] },
      { labels: { __name__: 'weird', kind: 'ninf' }, samples: [{ value: Number.NEGATIVE_INFINITY, timestamp: T0 }] },
      { labels: { __name__: 'weird', kind: 'nan' }, samples: [{ value: Number.NaN, timestamp: T0 }] },
      { labels: { __name__: 'weird', kind: 'small' }, samples: [{ value: 1e-7, timestamp: T0 }] },
      { labels: { __name__: 'weird', kind: 'big' }, samples: [{ value: 1.5e21, timestamp: T0 }] },
      { labels: { __name__: 'weird', kind: 'half' }, samples: [{ value: 0.5, timestamp: T0 }] },
    ],
    '',
    [{ type: COUNTER, metric_family_name: 'http_requests_total', help: 'Requests served.', unit: '' }],
  );
  t.equal(written.status, 204, written.text);
  t.equal((await sql(url, 'CREATE DATABASE other')).status, 200);
  const otherWrite = await remoteWrite(
    url,
    [{ labels: { __name__: 'other_metric', job: 'x' }, samples: [{ value: 42, timestamp: T0 }] }],
    'db=other',
  );
  t.equal(otherWrite.status, 204, otherWrite.text);
  const at = String(T0_SECONDS + 60);

  t.test('status/buildinfo answers Prometheus build info by GET and POST', async (t) => {
    for (const answer of [await get(url, 'status/buildinfo'), await post(url, 'status/buildinfo')]) {
      t.equal(answer.status, 200);
      t.equal(answer.headers.get('content-type'), 'application/json');
      t.equal(answer.body.status, 'success');
      t.strictSame(Object.keys(answer.body.data), [
        'version',
        'revision',
        'branch',
        'buildUser',
        'buildDate',
        'goVersion',
      ]);
      t.match(answer.body.data.version, /^\d+\.\d+\.\d+$/);
    }
  });

  t.test('an instant query answers a vector in the exact Prometheus encoding', async (t) => {
    const answer = await get(url, 'query', { query: 'up', time: `${T0_SECONDS + 60}.5` });
    t.equal(answer.status, 200);
    t.equal(
      answer.text,
      '{"status":"success","data":{"resultType":"vector","result":[' +
        `{"metric":{"__name__":"up","instance":"h1:9100","job":"node"},"value":[${T0_SECONDS + 60}.500,"1"]},` +
        `{"metric":{"__name__":"up","instance":"h2:9100","job":"node"},"value":[${T0_SECONDS + 60}.500,"0"]}]}}`,
    );
  });

  t.test('POST form bodies work and URL values win over form values', async (t) => {
    const answer = await post(url, 'query', { query: 'up{instance="h1:9100"}', time: at });
    t.equal(answer.status, 200);
    t.equal(answer.body.data.result.length, 1);
    const both = await post(url, 'query', { query: 'up{instance="h1:9100"}', time: at }, 'query=up');
    t.equal(both.body.data.result.length, 2, 'the URL query wins');
    const raw = await fetch(`${url}${API}/query`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'query=up',
    });
    t.equal(raw.status, 415, 'a POST body must be a form');
  });

  t.test('time accepts RFC 3339 and defaults to now', async (t) => {
    const rfc = await get(url, 'query', { query: 'up', time: new Date(T0 + 60_000).toISOString() });
    t.equal(rfc.body.data.result[0].value[0], T0_SECONDS + 60);
    const now = await get(url, 'query', { query: 'vector(1)' });
    t.ok(Math.abs(now.body.data.result[0].value[0] - Date.now() / 1000) < 60, 'evaluated now');
    const bad = await get(url, 'query', { query: 'up', time: 'yesterday' });
    t.equal(bad.status, 400);
    t.strictSame(bad.body, {
      status: 'error',
      errorType: 'bad_data',
      error: `invalid parameter "time": invalid time value for 'time': cannot parse "yesterday" to a valid timestamp`,
    });
  });

  t.test('infinities, NaN and tiny values are written as Prometheus writes them', async (t) => {
    const answer = await get(url, 'query', { query: 'weird', time: String(T0_SECONDS) });
    const byKind = Object.fromEntries(
      answer.body.data.result.map((s: { metric: { kind: string }; value: [number, string] }) => [
        s.metric.kind,
        s.value[1],
      ]),
    );
    t.strictSame(byKind, { big: '1.5e+21', half: '0.5', inf: '+Inf', nan: 'NaN', ninf: '-Inf', small: '1e-07' });
  });

  t.test('scalars and strings have their own result types', async (t) => {
    const scalar = await get(url, 'query', { query: '1 + 1', time: '100' });
    t.equal(scalar.text, '{"status":"success","data":{"resultType":"scalar","result":[100,"2"]}}');
    const text = await get(url, 'query', { query: '"hello"', time: '100.25' });
    t.equal(text.text, '{"status":"success","data":{"resultType":"string","result":[100.250,"hello"]}}');
  });

  t.test('a range selector in an instant query answers a matrix', async (t) => {
    const answer = await get(url, 'query', { query: 'up{instance="h1:9100"}[30s]', time: at });
    t.equal(answer.body.data.resultType, 'matrix');
    t.strictSame(answer.body.data.result[0].values, [
      [T0_SECONDS + 45, '1'],
      [T0_SECONDS + 60, '1'],
    ]);
  });

  t.test('unknown metrics give an empty result, not an error', async (t) => {
    const instant = await get(url, 'query', { query: 'no_such_metric', time: at });
    t.equal(instant.text, '{"status":"success","data":{"resultType":"vector","result":[]}}');
    const range = await get(url, 'query_range', {
      query: 'rate(no_such_metric[5m])',
      start: '0',
      end: '60',
      step: '15',
    });
    t.equal(range.text, '{"status":"success","data":{"resultType":"matrix","result":[]}}');
  });

  t.test('a bad query is bad_data 400 with the parser position', async (t) => {
    const answer = await get(url, 'query', { query: 'sum(up', time: at });
    t.equal(answer.status, 400);
    t.equal(answer.body.errorType, 'bad_data');
    t.match(answer.body.error, /^invalid parameter "query": 1:\d+: parse error: /);
    t.equal(answer.text.indexOf('{"status":"error","errorType":"bad_data","error":'), 0, 'Prometheus key order');
  });

  t.test('an evaluation failure is execution 422', async (t) => {
    const answer = await get(url, 'query', { query: 'up / on() up', time: at });
    t.equal(answer.status, 422);
    t.equal(answer.body.errorType, 'execution');
    t.match(answer.body.error, /many-to-many matching not allowed/);
  });

  t.test('a range query answers a matrix sorted by labels with ascending samples', async (t) => {
    const answer = await post(url, 'query_range', {
      query: 'up',
      start: String(T0_SECONDS),
      end: String(T0_SECONDS + 60),
      step: '30',
    });
    t.equal(answer.status, 200);
    t.equal(
      answer.text,
      '{"status":"success","data":{"resultType":"matrix","result":[' +
        `{"metric":{"__name__":"up","instance":"h1:9100","job":"node"},"values":[[${T0_SECONDS},"1"],[${T0_SECONDS + 30},"1"],[${T0_SECONDS + 60},"1"]]},` +
        `{"metric":{"__name__":"up","instance":"h2:9100","job":"node"},"values":[[${T0_SECONDS},"0"],[${T0_SECONDS + 30},"0"],[${T0_SECONDS + 60},"0"]]}]}}`,
    );
    const durationStep = await get(url, 'query_range', {
      query: 'up',
      start: String(T0_SECONDS),
      end: String(T0_SECONDS + 60),
      step: '30s',
    });
    t.equal(durationStep.text, answer.text, 'step as a duration');
  });

  t.test('rate drops the metric name as Prometheus does', async (t) => {
    const answer = await get(url, 'query', { query: 'rate(http_requests_total[1m])', time: at });
    t.strictSame(
      answer.body.data.result.map((s: { metric: unknown }) => s.metric),
      [
        { code: '200', job: 'api' },
        { code: '500', job: 'api' },
      ],
    );
    t.ok(Math.abs(Number(answer.body.data.result[0].value[1]) - 2) < 1e-9, 'two requests per second');
  });

  t.test('sort_desc order survives in an instant vector', async (t) => {
    const answer = await get(url, 'query', { query: 'sort_desc(http_requests_total)', time: at });
    t.strictSame(
      answer.body.data.result.map((s: { metric: { code: string } }) => s.metric.code),
      ['200', '500'],
    );
    const ascending = await get(url, 'query', { query: 'sort(http_requests_total)', time: at });
    t.strictSame(
      ascending.body.data.result.map((s: { metric: { code: string } }) => s.metric.code),
      ['500', '200'],
    );
  });

  t.test('range parameters are checked like Prometheus', async (t) => {
    const base = { query: 'up', start: '100', end: '200', step: '10' };
    const backwards = await get(url, 'query_range', { ...base, start: '300' });
    t.equal(backwards.status, 400);
    t.strictSame(backwards.body, {
      status: 'error',
      errorType: 'bad_data',
      error: 'invalid parameter "end": end timestamp must not be before start time',
    });
    const zero = await get(url, 'query_range', { ...base, step: '0' });
    t.equal(zero.status, 400);
    t.equal(
      zero.body.error,
      'invalid parameter "step": zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
    const tooMany = await get(url, 'query_range', { ...base, start: '0', end: '11001', step: '1' });
    t.equal(tooMany.status, 400);
    t.strictSame(tooMany.body, {
      status: 'error',
      errorType: 'bad_data',
      error:
        'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)',
    });
    const exactlyMax = await get(url, 'query_range', { ...base, start: '0', end: '11000', step: '1' });
    t.equal(exactlyMax.status, 200, '11,000 steps are allowed');
    const missing = await get(url, 'query_range', { query: 'up', end: '200', step: '10' });
    t.equal(missing.body.error, 'invalid parameter "start": cannot parse "" to a valid timestamp');
    const badStep = await get(url, 'query_range', { ...base, step: 'often' });
    t.equal(badStep.body.error, 'invalid parameter "step": cannot parse "often" to a valid duration');
  });

  t.test('the timeout parameter stops a query with Prometheus timeout error', async (t) => {
    const answer = await get(url, 'query_range', {
      query: 'sum_over_time(up[10m:1s])',
      start: String(T0_SECONDS),
      end: String(T0_SECONDS + 3000),
      step: '1',
      timeout: '1ms',
    });
    t.equal(answer.status, 503);
    t.strictSame(answer.body, {
      status: 'error',
      errorType: 'timeout',
      error: 'query timed out in expression evaluation',
    });
    const generous = await get(url, 'query', { query: 'up', time: at, timeout: '1m' });
    t.equal(generous.status, 200);
    const bad = await get(url, 'query', { query: 'up', time: at, timeout: 'soon' });
    t.equal(bad.body.error, 'invalid parameter "timeout": cannot parse "soon" to a valid duration');
  });

  t.test('limit truncates results with a warning', async (t) => {
    const answer = await get(url, 'query', { query: 'up', time: at, limit: '1' });
    t.equal(answer.body.data.result.length, 1);
    t.strictSame(answer.body.warnings, ['results truncated due to limit']);
    const negative = await get(url, 'query', { query: 'up', time: at, limit: '-1' });
    t.equal(negative.body.error, 'invalid parameter "limit": limit must be non-negative');
  });

  t.test('annotations come back as infos', async (t) => {
    const answer = await get(url, 'query', { query: 'rate(up[1m])', time: at });
    t.equal(answer.status, 200);
    t.match(answer.body.infos, [/metric might not be a counter/]);
  });

  t.test('labels lists label names, filtered by match[] and time range', async (t) => {
    const all = await get(url, 'labels', { start: String(T0_SECONDS), end: String(T0_SECONDS + 600) });
    t.strictSame(all.body, { status: 'success', data: ['__name__', 'code', 'instance', 'job', 'kind'] });
    const up = await post(url, 'labels', { 'match[]': 'up' });
    t.strictSame(up.body.data, ['__name__', 'instance', 'job']);
    const several = await get(url, 'labels', { 'match[]': ['up', 'weird'] });
    t.strictSame(several.body.data, ['__name__', 'instance', 'job', 'kind']);
    const before = await get(url, 'labels', { end: String(T0_SECONDS - 1) });
    t.strictSame(before.body.data, []);
    const limited = await get(url, 'labels', { limit: '2' });
    t.strictSame(limited.body.data, ['__name__', 'code']);
    t.strictSame(limited.body.warnings, ['results truncated due to limit']);
    const bad = await get(url, 'labels', { 'match[]': '{job=~".*"}' });
    t.equal(bad.status, 400);
    t.equal(bad.body.error, '1:1: parse error: vector selector must contain at least one non-empty matcher');
  });

  t.test('label values: metric names, ordinary labels, limit and GreptimeDB special names', async (t) => {
    const names = await get(url, 'label/__name__/values', { start: String(T0_SECONDS), end: String(T0_SECONDS + 600) });
    t.strictSame(names.body, { status: 'success', data: ['http_requests_total', 'up', 'weird'] });
    const jobs = await get(url, 'label/job/values');
    t.strictSame(jobs.body.data, ['api', 'node']);
    const filtered = await post(url, 'label/job/values', { 'match[]': 'up' });
    t.strictSame(filtered.body.data, ['node']);
    const limited = await get(url, 'label/instance/values', { limit: '1' });
    t.strictSame(limited.body.data, ['h1:9100']);
    t.strictSame(limited.body.warnings, ['results truncated due to limit']);
    const none = await get(url, 'label/nonexistent/values');
    t.strictSame(none.body.data, []);
    const fields = await get(url, 'label/__field__/values', { 'match[]': 'up' });
    t.strictSame(fields.body.data, ['greptime_value']);
    const databases = await get(url, 'label/__database__/values');
    t.ok(databases.body.data.includes('other') && databases.body.data.includes('public'), databases.text);
    const holding = await get(url, 'label/__database__/values', { 'match[]': 'other_metric' });
    t.strictSame(holding.body.data, ['other']);
  });

  t.test('series lists label sets; match[] is required', async (t) => {
    const answer = await get(url, 'series', {
      'match[]': 'up',
      start: String(T0_SECONDS),
      end: String(T0_SECONDS + 600),
    });
    t.strictSame(answer.body, {
      status: 'success',
      data: [
        { __name__: 'up', instance: 'h1:9100', job: 'node' },
        { __name__: 'up', instance: 'h2:9100', job: 'node' },
      ],
    });
    const form = await post(url, 'series', {
      'match[]': ['up{instance="h2:9100"}', 'http_requests_total{code="500"}'],
    });
    t.strictSame(form.body.data, [
      { __name__: 'http_requests_total', code: '500', job: 'api' },
      { __name__: 'up', instance: 'h2:9100', job: 'node' },
    ]);
    const urlWins = await post(url, 'series', { 'match[]': 'http_requests_total' }, 'match[]=up');
    t.equal(urlWins.body.data.length, 2);
    t.ok(
      urlWins.body.data.every((s: { __name__: string }) => s.__name__ === 'up'),
      'the URL list wins',
    );
    const missing = await get(url, 'series');
    t.equal(missing.status, 400);
    t.strictSame(missing.body, { status: 'error', errorType: 'bad_data', error: 'no match[] parameter provided' });
    const badSelector = await get(url, 'series', { 'match[]': 'sum(up)' });
    t.equal(badSelector.status, 400);
    t.match(badSelector.body.error, /^invalid parameter "match\[\]": /);
    const limited = await get(url, 'series', { 'match[]': 'up', limit: '1' });
    t.equal(limited.body.data.length, 1);
    t.strictSame(limited.body.warnings, ['results truncated due to limit']);
  });

  t.test('metadata answers what remote write sent', async (t) => {
    const answer = await get(url, 'metadata');
    t.strictSame(answer.body, {
      status: 'success',
      data: { http_requests_total: [{ type: 'counter', help: 'Requests served.', unit: '' }] },
    });
    t.strictSame((await get(url, 'metadata', { metric: 'up' })).body.data, {});
    t.strictSame((await get(url, 'metadata', { limit: '0' })).body.data, {});
    t.strictSame((await get(url, 'metadata', { db: 'other' })).body.data, {});
    t.equal((await get(url, 'metadata', { limit: 'x' })).body.error, 'limit must be a number');
  });

  t.test('format_query and parse_query', async (t) => {
    const formatted = await get(url, 'format_query', { query: 'sum(rate(x[5m]))by(job)' });
    t.strictSame(formatted.body, { status: 'success', data: 'sum by (job) (rate(x[5m]))' });
    const posted = await post(url, 'format_query', { query: 'a/b' });
    t.equal(posted.body.data, 'a / b');
    const badFormat = await get(url, 'format_query', { query: 'a +' });
    t.equal(badFormat.status, 400);
    t.match(badFormat.body.error, /^invalid parameter "query": /);
    const parsed = await get(url, 'parse_query', { query: 'up' });
    t.match(parsed.body.data, {
      type: 'vectorSelector',
      name: 'up',
      matchers: [{ name: '__name__', type: '=', value: 'up' }],
    });
    const badParse = await post(url, 'parse_query', { query: '' });
    t.equal(badParse.status, 400);
    t.equal(badParse.body.errorType, 'bad_data');
  });

  t.test('the database comes from the db parameter or x-greptime-db-name', async (t) => {
    const byParam = await get(url, 'query', { query: 'other_metric', time: String(T0_SECONDS), db: 'other' });
    t.equal(byParam.body.data.result[0].value[1], '42');
    const byHeader = await get(
      url,
      'query',
      { query: 'other_metric', time: String(T0_SECONDS) },
      { 'x-greptime-db-name': 'other' },
    );
    t.equal(byHeader.body.data.result.length, 1);
    const paramWins = await get(
      url,
      'query',
      { query: 'other_metric', time: String(T0_SECONDS), db: 'public' },
      { 'x-greptime-db-name': 'other' },
    );
    t.equal(paramWins.body.data.result.length, 0);
    const inPublic = await get(url, 'query', { query: 'other_metric', time: String(T0_SECONDS) });
    t.equal(inPublic.body.data.result.length, 0);
    const unknown = await get(url, 'label/__name__/values', { db: 'nope' });
    t.strictSame(unknown.body, { status: 'success', data: [] });
    const selected = await get(url, 'query', { query: 'other_metric{__database__="other"}', time: String(T0_SECONDS) });
    t.equal(selected.body.data.result.length, 1, 'a database label matcher picks the database');
  });

  t.test('large answers are gzip-compressed for clients that accept it', async (t) => {
    const res = await fetch(`${url}${API}/query_range?query=up&start=${T0_SECONDS}&end=${T0_SECONDS + 3000}&step=1`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    t.equal(res.headers.get('content-encoding'), 'gzip');
    // fetch has already inflated it: parsing proves it was valid gzip.
    const body = (await res.json()) as { data: { result: unknown[] } };
    t.equal(body.data.result.length, 2);
    const plain = await fetch(`${url}${API}/query_range?query=up&start=${T0_SECONDS}&end=${T0_SECONDS + 3000}&step=1`, {
      headers: { 'accept-encoding': 'identity' },
    });
    t.equal(plain.headers.get('content-encoding'), null);
  });

  t.test('paths outside the API are 404', async (t) => {
    t.equal((await get(url, 'query_exemplars')).status, 404);
    t.equal((await get(url, 'rules')).status, 404);
  });
});
