/**
 * protobufjs and the schemas load on first use, not when a module naming them is imported
 * (src/shared/proto/protobufjs.ts): every thread imports these modules at start-up.
 */
import { createRequire } from 'node:module';
import t from 'tap';

const require = createRequire(import.meta.url);
const PROTOBUFJS = require.resolve('protobufjs');

t.test('importing the schema modules loads no protobufjs; the first type read does, once', async (t) => {
  t.notOk(PROTOBUFJS in require.cache, 'not loaded before the imports');
  const { prometheusTypes } = await import('../../../src/shared/proto/prometheus.js');
  const { OtlpTypes } = await import('../../../src/shared/proto/otlp.js');
  const { lokiTypes } = await import('../../../src/shared/proto/loki.js');
  t.notOk(PROTOBUFJS in require.cache, 'importing Prometheus, OTLP and Loki schemas loads nothing');

  const write = prometheusTypes.WriteRequest;
  t.ok(PROTOBUFJS in require.cache, 'the first type read loads it');
  t.equal(write.fullName, '.prometheus.WriteRequest');
  t.equal(prometheusTypes.WriteRequest, write, 'a type is looked up once');
  t.equal(prometheusTypes.WriteRequestV2.fullName, '.io.prometheus.write.v2.Request', 'both texts in one root');
  t.same(Object.keys(lokiTypes), ['PushRequest'], 'the types are enumerable by name');
  t.equal(lokiTypes.PushRequest.fullName, '.logproto.PushRequest');
  t.equal(OtlpTypes.rpcStatus.fullName, '.google.rpc.Status');

  // Types still work as protobufjs types: a write request round-trips.
  const bytes = write
    .encode(
      write.fromObject({
        timeseries: [{ labels: [{ name: '__name__', value: 'up' }], samples: [{ value: 1, timestamp: 5 }] }],
      }),
    )
    .finish();
  const back = write.toObject(write.decode(bytes), { longs: Number }) as {
    timeseries: Array<{ samples: Array<{ value: number; timestamp: number }> }>;
  };
  t.same(back.timeseries[0]?.samples, [{ value: 1, timestamp: 5 }]);
});
