/**
 * Every OTLP signal checks write permission the same way: a read-only user is refused with 403 and
 * an OTLP `google.rpc.Status` body in the request's encoding, and nothing of the request is stored;
 * a user allowed to write succeeds.
 */
import t from 'tap';
import { OtlpTypes } from '../../src/shared/proto/otlp.js';
import { sql, startServer } from '../helpers/server.js';

const NANOS = 1_700_000_000_000_000_000n;
const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'perm' } }] };

function body(signal: 'metrics' | 'traces' | 'logs'): Uint8Array {
  switch (signal) {
    case 'metrics': {
      const point = { timeUnixNano: NANOS.toString(), asDouble: 1.5 };
      const resourceMetrics = [
        { resource, scopeMetrics: [{ metrics: [{ name: 'perm_gauge', gauge: { dataPoints: [point] } }] }] },
      ];
      return OtlpTypes.exportMetricsRequest
        .encode(OtlpTypes.exportMetricsRequest.fromObject({ resourceMetrics }))
        .finish();
    }
    case 'traces': {
      const span = {
        traceId: Buffer.alloc(16, 1),
        spanId: Buffer.alloc(8, 2),
        name: 'op',
        startTimeUnixNano: NANOS.toString(),
        endTimeUnixNano: (NANOS + 1000n).toString(),
      };
      const resourceSpans = [{ resource, scopeSpans: [{ spans: [span] }] }];
      return OtlpTypes.exportTraceRequest.encode(OtlpTypes.exportTraceRequest.fromObject({ resourceSpans })).finish();
    }
    case 'logs': {
      const record = { timeUnixNano: NANOS.toString(), body: { stringValue: 'hello' } };
      const resourceLogs = [{ resource, scopeLogs: [{ logRecords: [record] }] }];
      return OtlpTypes.exportLogsRequest.encode(OtlpTypes.exportLogsRequest.fromObject({ resourceLogs })).finish();
    }
  }
}

const TABLES = { metrics: 'perm_gauge', traces: 'opentelemetry_traces', logs: 'opentelemetry_logs' } as const;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

t.test('a read-only user is refused alike on every OTLP endpoint; a writer is not', async (t) => {
  const server = await startServer({
    topLevelToml: 'user_provider = "static_user_provider:cmd:writer=pw,reader:ro=rpw"',
  });
  t.teardown(() => server.stop());
  for (const signal of ['metrics', 'traces', 'logs'] as const) {
    const post = (authorization: string) =>
      fetch(`${server.url}/v1/otlp/v1/${signal}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', authorization },
        body: body(signal),
      });
    const refused = await post(basic('reader', 'rpw'));
    t.equal(refused.status, 403, `${signal}: read-only user`);
    t.match(refused.headers.get('content-type'), /application\/x-protobuf/, `${signal}: answered in OTLP's encoding`);
    const status = OtlpTypes.rpcStatus.decode(new Uint8Array(await refused.arrayBuffer())) as unknown as {
      message: string;
    };
    t.equal(status.message, 'User is not authorized to perform this action', `${signal}: the Status says why`);
    const stored = await sql(server.url, `SELECT count(*) FROM ${TABLES[signal]}`, undefined, {
      authorization: basic('writer', 'pw'),
    });
    t.equal(stored.body.code, 4001, `${signal}: nothing was stored (${stored.text})`);

    const accepted = await post(basic('writer', 'pw'));
    t.equal(accepted.status, 200, `${signal}: writer`);
    const after = await sql(server.url, `SELECT count(*) FROM ${TABLES[signal]}`, undefined, {
      authorization: basic('writer', 'pw'),
    });
    t.same(after.body.output?.[0]?.records?.rows, [[1]], `${signal}: the writer's request was stored`);
  }
});
