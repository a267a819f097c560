/**
 * The error catalogue over real routes: one error per route family, answered with the status the
 * catalogue gives its kind on that family and the body shape the family documents.
 */
import t, { type Test } from 'tap';
import { allErrorKinds, type ErrorFamily } from '../../src/router/errors/catalogue.js';
import { OtlpTypes } from '../../src/shared/proto/otlp.js';
import { startServer } from '../helpers/server.js';

function statusOf(kind: string, family: ErrorFamily): number {
  const found = allErrorKinds().find((k) => k.name === kind);
  if (!found) throw new Error(`no kind ${kind}`);
  return found.answers[family].status;
}

async function expectJson(
  t: Test,
  res: Response,
  kind: string,
  family: ErrorFamily,
  keys: string[],
): Promise<Record<string, unknown>> {
  t.equal(res.status, statusOf(kind, family), `${kind} on ${family}: status`);
  t.equal(res.headers.get('content-type'), 'application/json', `${kind} on ${family}: content type`);
  const body = (await res.json()) as Record<string, unknown>;
  t.same(Object.keys(body), keys, `${kind} on ${family}: body keys`);
  return body;
}

t.test('each route family answers its documented shape', async (t) => {
  const server = await startServer({ httpToml: 'body_limit = "1KiB"' });
  t.teardown(() => server.stop());
  const url = server.url;

  const sql = await fetch(`${url}/v1/sql?sql=${encodeURIComponent('SELEC 1')}`);
  t.equal(sql.headers.get('x-greptime-err-code'), '2000');
  const native = await expectJson(t, sql, 'InvalidSyntax', 'greptime', ['code', 'error', 'execution_time_ms']);
  t.equal(native.code, 2000);

  const parse = await fetch(`${url}/v1/sql/parse?sql=${encodeURIComponent('SELEC 1')}`);
  await expectJson(t, parse, 'InvalidSyntax', 'short', ['error']);

  const prom = await fetch(`${url}/v1/metricsapi/api/v1/query_range?query=up&start=1&end=0&step=1`);
  const promBody = await expectJson(t, prom, 'PromBadData', 'prometheus', ['status', 'errorType', 'error']);
  t.equal(promBody.errorType, 'bad_data');

  const hec = await fetch(`${url}/v1/eventcollector/services/collector`, { method: 'POST', body: '' });
  t.same(await expectJson(t, hec, 'HecNoData', 'hec', ['text', 'code']), { text: 'No data', code: 5 });

  const otlp = await fetch(`${url}/v1/otlp/v1/metrics`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body: Buffer.from([0xff, 0xff, 0xff]),
  });
  t.equal(otlp.status, statusOf('OtlpBadRequest', 'otlp'));
  t.equal(otlp.headers.get('content-type'), 'application/x-protobuf');
  const status = OtlpTypes.rpcStatus.decode(new Uint8Array(await otlp.arrayBuffer())) as unknown as {
    message: string;
  };
  t.match(status.message, /^Failed to decode OTLP metrics request/);

  const loki = await fetch(`${url}/v1/logpush/api/v1/push`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
  });
  await expectJson(t, loki, 'LokiUnsupportedContent', 'short', ['error']);

  const remote = await fetch(`${url}/v1/metricsapi/write`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
  });
  t.equal(remote.status, statusOf('UnsupportedMediaType', 'remote-write'));
  t.equal(remote.headers.get('content-type'), 'text/plain; charset=utf-8');

  const missing = await fetch(`${url}/no/such/route`);
  t.equal(missing.status, statusOf('RouteNotFound', 'text'));
  t.equal(await missing.text(), '');
  const wrongMethod = await fetch(`${url}/v1/sql`, { method: 'DELETE' });
  t.equal(wrongMethod.status, statusOf('MethodNotAllowed', 'text'));
  t.match(wrongMethod.headers.get('allow'), /GET/);
  const tooLarge = await fetch(`${url}/v1/lineproto/write`, { method: 'POST', body: 'x'.repeat(4096) });
  t.equal(tooLarge.status, statusOf('BodyTooLarge', 'short'));
  t.equal(await tooLarge.text(), 'Failed to buffer the request body: length limit exceeded');
});

t.test('the auth stage answers 401 natively, and Splunk token errors on the event collector', async (t) => {
  const server = await startServer({ topLevelToml: 'user_provider = "static_user_provider:cmd:admin=pw"' });
  t.teardown(() => server.stop());
  const sql = await fetch(`${server.url}/v1/sql?sql=SELECT%201`);
  const body = await expectJson(t, sql, 'AuthHeaderNotFound', 'auth', ['code', 'error', 'execution_time_ms']);
  t.equal(body.code, 7003);
  const hec = await fetch(`${server.url}/v1/eventcollector/services/collector`, { method: 'POST', body: '{}' });
  t.same(await expectJson(t, hec, 'HecTokenRequired', 'hec', ['text', 'code']), {
    text: 'Token is required',
    code: 2,
  });
});
