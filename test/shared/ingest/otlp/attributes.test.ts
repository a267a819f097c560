/**
 * Attribute values as stored: the direct JSON writer must give the canonical text of the JSON
 * node path for any key order, repeated keys and value kinds, also when it reuses the previous
 * record's key shape.
 */
import t from 'tap';
import {
  anyValueToColumnValue,
  anyValueToLabel,
  anyValueToText,
  attributesToJsonNode,
  attributesToJsonText,
  coerceColumnValue,
} from '../../../../src/shared/ingest/otlp/attributes.js';
import { jsonText } from '../../../../src/shared/json-value.js';
import type { KeyValue } from '../../../../src/shared/proto/otlp.js';

const kv = (key: string, value: KeyValue['value']): KeyValue => ({ key, value });

const LISTS: KeyValue[][] = [
  [],
  [kv('a', { stringValue: 'x' })],
  [kv('b', { intValue: -3n }), kv('a', { stringValue: 'q"uote\\\n' }), kv('b', { boolValue: true })],
  [kv('b', { intValue: 4n }), kv('a', { stringValue: 'other' }), kv('b', { boolValue: false })],
  [
    kv('d', { doubleValue: 2 }),
    kv('e', { doubleValue: 0.1 }),
    kv('f', { doubleValue: -0 }),
    kv('g', { doubleValue: 1e21 }),
  ],
  [kv('z', null), kv('y', {}), kv('x', { bytesValue: Buffer.from([0, 171]) })],
  [
    kv('n', {
      arrayValue: { values: [{ intValue: 1n }, { kvlistValue: { values: [kv('k', { stringValue: 'v' })] } }] },
    }),
  ],
  [
    kv('é', { stringValue: '1' }),
    kv('e', { stringValue: '2' }),
    kv('😀', { stringValue: '3' }),
    kv('\uffff', { stringValue: '4' }),
  ],
  [kv('b', { intValue: 1n }), kv('a', { intValue: 2n })],
  [kv('b', { intValue: 1n }), kv('a', { intValue: 2n })],
];

t.test('the direct JSON writer matches the canonical JSON of the node path', async (t) => {
  for (const list of LISTS) {
    t.equal(attributesToJsonText(list), jsonText(attributesToJsonNode(list)), JSON.stringify(list.map((e) => e.key)));
  }
  t.equal(attributesToJsonText(LISTS[2] as KeyValue[]), '{"a":"q\\"uote\\\\\\n","b":true}');
  t.equal(attributesToJsonText(LISTS[4] as KeyValue[]), '{"d":2.0,"e":0.1,"f":-0.0,"g":1e21}');
});

t.test('single values as text, labels and typed columns', async (t) => {
  t.equal(anyValueToText({ stringValue: 'plain' }), 'plain');
  t.equal(anyValueToText({ bytesValue: Buffer.from('hi') }), '6869');
  t.equal(anyValueToText({ kvlistValue: { values: [kv('b', { intValue: 1n }), kv('a', null)] } }), '{"a":null,"b":1}');
  t.equal(anyValueToText({}), null);
  t.equal(anyValueToText(null), null);
  t.equal(anyValueToLabel({ doubleValue: 1 }), '1');
  t.equal(anyValueToLabel({ intValue: 12n }), '12');
  t.equal(anyValueToLabel({ boolValue: true }), null);
  t.same(anyValueToColumnValue({ bytesValue: Buffer.from([0xff, 0x00]) }), { type: 'Binary', value: '\u00ff\u0000' });
  t.same(anyValueToColumnValue({ arrayValue: { values: [{ stringValue: 'a' }] } }), { type: 'Json', value: '["a"]' });
  t.equal(coerceColumnValue({ type: 'String', value: ' 42 ' }, 'Int64'), 42n);
  t.equal(coerceColumnValue({ type: 'String', value: '4.5' }, 'Float64'), 4.5);
  t.equal(coerceColumnValue({ type: 'String', value: 'true' }, 'Boolean'), true);
  t.equal(coerceColumnValue({ type: 'String', value: 'yes' }, 'Boolean'), undefined);
  t.equal(coerceColumnValue({ type: 'Int64', value: 3n }, 'Float64'), 3);
  t.equal(coerceColumnValue({ type: 'Float64', value: 3.5 }, 'Int64'), undefined);
  t.equal(coerceColumnValue({ type: 'Boolean', value: false }, 'String'), 'false');
});
