/**
 * The hand-written logs decoder must give exactly what protobufjs + toObject give (the decoded
 * shape every mapping relies on), and refuse what protobufjs refuses.
 */
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import { decodeLogsRequest } from '../../../../src/router/ingest/otlp/logs-wire-decode.js';
import { decodeOtlp, OtlpTypes } from '../../../../src/shared/proto/otlp.js';

const type = OtlpTypes.exportLogsRequest;

function encode(request: Record<string, unknown>): Uint8Array {
  return type.encode(type.fromObject(request)).finish();
}

const FULL_REQUEST = {
  resourceLogs: [
    {
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: 'svc' } },
          { key: 'neg', value: { intValue: '-5' } },
          { key: 'min', value: { intValue: '-9223372036854775808' } },
          { key: 'max', value: { intValue: '9223372036854775807' } },
          { key: 'empty', value: {} },
          { key: 'none' },
        ],
        droppedAttributesCount: 3,
        entityRefs: [{ schemaUrl: 's', type: 'host', idKeys: ['host.id'], descriptionKeys: ['a', 'b'] }],
      },
      schemaUrl: 'https://example.com/resource',
      scopeLogs: [
        {
          scope: {
            name: 'lib',
            version: '1',
            attributes: [{ key: 'x', value: { boolValue: true } }],
            droppedAttributesCount: 1,
          },
          schemaUrl: 'https://example.com/scope',
          logRecords: [
            {
              timeUnixNano: '18446744073709551615',
              observedTimeUnixNano: '1700000000123456789',
              severityNumber: 17,
              severityText: 'ERROR',
              body: {
                kvlistValue: {
                  values: [
                    {
                      key: 'a',
                      value: {
                        arrayValue: { values: [{ doubleValue: 1.5 }, { bytesValue: Buffer.from([0, 255]) }, {}] },
                      },
                    },
                    { key: 'é', value: { stringValue: 'ünïcode ✓' } },
                  ],
                },
              },
              attributes: [{ key: 'k', value: { doubleValue: -0 } }],
              droppedAttributesCount: 2,
              flags: 0xffffffff,
              traceId: Buffer.alloc(16, 7),
              spanId: Buffer.alloc(8, 9),
              eventName: 'evt',
            },
            {},
            { severityNumber: -1, body: { stringValueStrindex: 4 } },
          ],
        },
        {},
      ],
    },
    {},
  ],
};

t.test('decodes every field exactly as protobufjs does', async (t) => {
  const bytes = encode(FULL_REQUEST);
  const fast = decodeLogsRequest(bytes);
  const reference = decodeOtlp(type, bytes);
  t.ok(isDeepStrictEqual(fast, reference), 'deep equal');
  t.same(fast, reference);
  t.same(decodeLogsRequest(new Uint8Array(0)), { resourceLogs: [] });
});

t.test('skips unknown fields of every wire type', async (t) => {
  const known = encode({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityText: 'x' }] }] }] });
  // field 99 varint, field 98 fixed64, field 97 bytes, field 96 fixed32 at the top level
  const unknown = Buffer.from([
    0x98, 0x06, 0x01, 0x91, 0x06, 1, 2, 3, 4, 5, 6, 7, 8, 0x8a, 0x06, 0x02, 0xaa, 0xbb, 0x85, 0x06, 1, 2, 3, 4,
  ]);
  const bytes = Buffer.concat([unknown, known, unknown]);
  t.same(decodeLogsRequest(bytes), decodeOtlp(type, bytes));
});

t.test('refuses truncated and malformed input', async (t) => {
  const bytes = encode(FULL_REQUEST);
  for (const cut of [1, 7, 30, bytes.length - 1]) {
    t.throws(() => decodeLogsRequest(bytes.subarray(0, cut)), /index out of range|invalid/, `cut at ${cut}`);
    t.throws(() => decodeOtlp(type, bytes.subarray(0, cut)), `protobufjs refuses the cut at ${cut} too`);
  }
  t.throws(() => decodeLogsRequest(Buffer.from([0x0d, 0, 0, 0, 0])), /invalid wire type 5 for resource_logs/);
  t.throws(() => decodeLogsRequest(Buffer.from([0x0f])), /invalid wire type 7/);
});
