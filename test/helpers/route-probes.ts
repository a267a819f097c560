/**
 * One cheap request per registered route and method, with what it needs of the caller: nothing
 * (`exempt`), a login only (`login`), or a login with read or write permission. `ok` is the
 * status it answers a caller who may do it (auth off, or a read-write user). The table is run in
 * order; the setup statements create what the reads look at.
 */
import { readRequestBytes, snappyBlock, writeRequestBytes } from './prom-remote.js';

export type Access = 'exempt' | 'login' | 'read' | 'write';

export interface Probe {
  /** `METHOD pattern` of the route, as registered. */
  route: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  access: Access;
  ok: number;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const PB = { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' };
const YAML = 'processors:\n  - epoch:\n      field: ts\n      resolution: ms\n';
const HEC = '/v1/eventcollector/services/collector';
const API = '/v1/metricsapi/api/v1';

/** SQL the matrix needs before it starts (run with full rights). */
export const SETUP_SQL = ['CREATE TABLE IF NOT EXISTS auth_logs (ts TIMESTAMP TIME INDEX, message STRING)'];

const remoteWriteBody = snappyBlock(
  writeRequestBytes([{ labels: { __name__: 'auth_up', job: 'j' }, samples: [{ value: 1, timestamp: 1000 }] }]),
);
const remoteReadBody = snappyBlock(
  readRequestBytes([{ start: 0, end: 2000, matchers: [['__name__', 'EQ', 'auth_up']] }]),
);
const logsQuery = JSON.stringify({
  table: { catalog_name: 'greptime', schema_name: 'public', table_name: 'auth_logs' },
  time_filter: { start: '2024' },
  limit: {},
  columns: [],
  filters: { And: [] },
  context: 'None',
  exprs: [],
});

const get = (route: string, path: string, access: Access, ok: number): Probe => ({
  route: `GET ${route}`,
  method: 'GET',
  path,
  access,
  ok,
});
const post = (
  route: string,
  path: string,
  access: Access,
  ok: number,
  body: string | Uint8Array = '',
  headers: Record<string, string> = {},
): Probe => ({ route: `POST ${route}`, method: 'POST', path, access, ok, body, headers });

/** A Prometheus-API route by GET with the query in the URL and by POST with it as a form. */
function promApi(name: string, query: string, access: Access): Probe[] {
  const pattern = `${API}/${name.replace(/^label\/\w+/, 'label/:name')}`;
  return [
    get(pattern, `${API}/${name}?${query}`, access, 200),
    post(pattern, `${API}/${name}`, access, 200, query, FORM),
  ];
}

export const PROBES: Probe[] = [
  ...['/health', '/ready', '/v1/health'].flatMap((p) => [get(p, p, 'exempt', 200), post(p, p, 'exempt', 200)]),
  get('/status', '/status', 'exempt', 200),
  get('/metrics', '/metrics', 'exempt', 200),
  get('/config', '/config', 'exempt', 200),
  get('/', '/', 'exempt', 200),
  // The dashboard's assets are open, as in GreptimeDB; its own /v1 calls carry the credentials.
  get('/dashboard', '/dashboard', 'exempt', 308),
  post('/dashboard', '/dashboard', 'exempt', 308),
  get('/dashboard/*', '/dashboard/', 'exempt', 200),
  post('/dashboard/*', '/dashboard/index.html', 'exempt', 200),
  // Debug routes: refusals of bad input, which prove the handler ran without credentials.
  post('/debug/log_level', '/debug/log_level', 'exempt', 400, 'no-such-level!'),
  post('/debug/enable_trace', '/debug/enable_trace', 'exempt', 400, 'maybe'),
  post('/debug/prof/cpu', '/debug/prof/cpu?seconds=x', 'exempt', 400),
  post('/debug/prof/mem', '/debug/prof/mem', 'exempt', 400),
  get('/debug/prof/mem/status', '/debug/prof/mem/status', 'exempt', 200),
  post('/debug/prof/mem/activate', '/debug/prof/mem/activate', 'exempt', 200),
  post('/debug/prof/mem/deactivate', '/debug/prof/mem/deactivate', 'exempt', 200),
  get('/debug/prof/mem/gdump', '/debug/prof/mem/gdump', 'exempt', 200),
  post('/debug/prof/mem/gdump', '/debug/prof/mem/gdump', 'exempt', 422, 'x=1', FORM),
  post('/debug/prof/mem/symbol', '/debug/prof/mem/symbol', 'exempt', 500),
  get('/v1/sql', '/v1/sql?sql=SELECT%20*%20FROM%20auth_logs', 'read', 200),
  post('/v1/sql', '/v1/sql', 'write', 200, "sql=INSERT INTO auth_logs VALUES (1, 'm')", FORM),
  {
    route: 'GET /v1/logs',
    method: 'GET',
    path: '/v1/logs',
    access: 'read',
    ok: 200,
    body: logsQuery,
    headers: JSON_TYPE,
  },
  post('/v1/logs', '/v1/logs', 'read', 200, logsQuery, JSON_TYPE),
  get('/v1/sql/format', '/v1/sql/format?sql=SELECT%201', 'login', 200),
  post('/v1/sql/format', '/v1/sql/format', 'login', 200, 'sql=SELECT 1', FORM),
  get('/v1/sql/parse', '/v1/sql/parse?sql=SELECT%201', 'login', 200),
  post('/v1/sql/parse', '/v1/sql/parse', 'login', 200, 'sql=SELECT 1', FORM),
  post('/v1/lineproto/write', '/v1/lineproto/write?db=public', 'write', 204, 'auth_lp v=1 1'),
  post('/v1/lineproto/api/v2/write', '/v1/lineproto/api/v2/write?bucket=public', 'write', 204, 'auth_lp v=2 2'),
  get('/v1/lineproto/ping', '/v1/lineproto/ping', 'exempt', 204),
  get('/v1/lineproto/health', '/v1/lineproto/health', 'exempt', 200),
  post(
    '/v1/logpush/api/v1/push',
    '/v1/logpush/api/v1/push',
    'write',
    204,
    JSON.stringify({ streams: [{ stream: { app: 'a' }, values: [['1000000000000000000', 'line']] }] }),
    JSON_TYPE,
  ),
  ...['', '/event', '/event/1.0'].map((s) => post(`${HEC}${s}`, `${HEC}${s}`, 'write', 200, '{"event":"hi"}')),
  ...['/raw', '/raw/1.0'].map((s) => post(`${HEC}${s}`, `${HEC}${s}`, 'write', 200, 'hi')),
  ...['/ack', '/ack/1.0'].map((s) => post(`${HEC}${s}`, `${HEC}${s}`, 'write', 400, '{"acks":[0]}')),
  ...['/health', '/health/1.0'].map((s) => get(`${HEC}${s}`, `${HEC}${s}`, 'exempt', 200)),
  post(
    '/v1/tsjson/api/put',
    '/v1/tsjson/api/put',
    'write',
    204,
    '{"metric":"auth_tsdb","timestamp":1,"value":1,"tags":{"h":"a"}}',
  ),
  post('/v1/metricsapi/write', '/v1/metricsapi/write', 'write', 204, remoteWriteBody, PB),
  post('/v1/metricsapi/read', '/v1/metricsapi/read', 'read', 200, remoteReadBody, PB),
  ...['metrics', 'traces', 'logs'].map((s) =>
    post(`/v1/otlp/v1/${s}`, `/v1/otlp/v1/${s}`, 'write', 200, '{}', JSON_TYPE),
  ),
  post(
    '/v1/pipelines/_dryrun',
    '/v1/pipelines/_dryrun',
    'read',
    200,
    JSON.stringify({ pipeline: YAML, data: '{"ts":1}' }),
    JSON_TYPE,
  ),
  post('/v1/pipelines/:name', '/v1/pipelines/auth_p', 'write', 200, YAML, { 'content-type': 'application/x-yaml' }),
  get('/v1/pipelines/:name', '/v1/pipelines/auth_p', 'read', 200),
  get('/v1/pipelines/:name/ddl', '/v1/pipelines/auth_p/ddl?table=t', 'read', 400),
  {
    route: 'DELETE /v1/pipelines/:name',
    method: 'DELETE',
    path: '/v1/pipelines/auth_gone?version=1',
    access: 'write',
    ok: 400,
  },
  post(
    '/v1/ingest',
    '/v1/ingest?table=auth_ingest&pipeline_name=greptime_identity',
    'write',
    200,
    '{"a":1}',
    JSON_TYPE,
  ),
  ...promApi('query', 'query=auth_up&time=1', 'read'),
  ...promApi('query_range', 'query=auth_up&start=0&end=2&step=1', 'read'),
  ...promApi('labels', 'match[]=auth_up', 'read'),
  ...promApi('label/job/values', 'match[]=auth_up', 'read'),
  ...promApi('series', 'match[]=auth_up', 'read'),
  ...promApi('metadata', '', 'read'),
  ...promApi('format_query', 'query=auth_up', 'login'),
  ...promApi('parse_query', 'query=auth_up', 'login'),
  ...promApi('status/buildinfo', '', 'login'),
  get('/v1/pql', '/v1/pql?query=auth_up&start=0&end=2&step=1', 'read', 200),
  post('/v1/pql', '/v1/pql?query=auth_up&start=0&end=2&step=1', 'read', 200),
];
