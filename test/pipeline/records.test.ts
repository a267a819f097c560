/** Request bodies of /v1/ingest into records, by content type (reference §7). */
import t from 'tap';
import { InvalidRecords, parseRecords } from '../../src/pipeline/records.js';
import type { PipelineRecord } from '../../src/pipeline/value.js';

interface Case {
  name: string;
  contentType: string;
  body: string | Buffer;
  ignoreErrors?: boolean;
  expected?: PipelineRecord[];
  error?: string | RegExp;
}

const JSON_TYPE = 'application/json';
const NDJSON = 'application/x-ndjson';
const TEXT = 'text/plain';
const NOT_OBJECT = 'json format error, please check the date is valid JSON.';

const cases: Case[] = [
  { name: 'json: one object', contentType: JSON_TYPE, body: '{"a": 1}', expected: [{ a: 1 }] },
  { name: 'json: an array', contentType: JSON_TYPE, body: '[{"a": 1}, {"b": 2}]', expected: [{ a: 1 }, { b: 2 }] },
  {
    name: 'json: concatenated objects and arrays',
    contentType: JSON_TYPE,
    body: '{"a": 1}\n{"b": 2}[{"c": 3}] \t\r\n [{"d": 4},{"e":5}]{"f":6}',
    expected: [{ a: 1 }, { b: 2 }, { c: 3 }, { d: 4 }, { e: 5 }, { f: 6 }],
  },
  {
    name: 'json: nested values and types',
    contentType: JSON_TYPE,
    body: '{"s":"x}{\\"]","i":-3,"f":1.5,"b":false,"n":null,"o":{"p":[1,{"q":"r"}]}}',
    expected: [{ s: 'x}{"]', i: -3, f: 1.5, b: false, n: null, o: { p: [1, { q: 'r' }] } }],
  },
  { name: 'json: empty body', contentType: JSON_TYPE, body: ' \n', expected: [] },
  { name: 'json: arrays are flattened one level only', contentType: JSON_TYPE, body: '[[{"a":1}]]', error: NOT_OBJECT },
  { name: 'json: a scalar item', contentType: JSON_TYPE, body: '[{"a":1}, 2]', error: NOT_OBJECT },
  { name: 'json: a top-level scalar', contentType: JSON_TYPE, body: '"text"', error: NOT_OBJECT },
  {
    name: 'json: bad items skipped with ignore_errors',
    contentType: JSON_TYPE,
    body: '[{"a":1}, 2, "x", null, {"b":2}] 3 {"c":3}',
    ignoreErrors: true,
    expected: [{ a: 1 }, { b: 2 }, { c: 3 }],
  },
  { name: 'json: invalid JSON', contentType: JSON_TYPE, body: '{"a": 1}\n{"b": 2"}\n{"c": 1}', error: /^invalid JSON/ },
  { name: 'json: truncated', contentType: JSON_TYPE, body: '[{"a": 1}', error: /^invalid JSON/ },
  {
    name: 'json: invalid JSON ends the body with ignore_errors',
    contentType: JSON_TYPE,
    body: '{"a": 1}\n{"b": 2"}\n{"c": 1}',
    ignoreErrors: true,
    expected: [{ a: 1 }],
  },
  {
    name: 'json: with charset',
    contentType: 'application/json; charset=utf-8',
    body: '{"a":"é"}',
    expected: [{ a: 'é' }],
  },
  { name: 'json: type is case-insensitive', contentType: 'Application/JSON', body: '{"a":1}', expected: [{ a: 1 }] },
  {
    name: 'ndjson: lines, empty ones skipped, CRLF allowed',
    contentType: NDJSON,
    body: '{"a":1}\r\n\n{"b":{"c":2}}\n',
    expected: [{ a: 1 }, { b: { c: 2 } }],
  },
  {
    name: 'ndjson: a bad line',
    contentType: NDJSON,
    body: '{"a":1}\n\n{"b":2"}\n{"c":1}',
    error: 'invalid JSON at index: 2',
  },
  { name: 'ndjson: a non-object line', contentType: NDJSON, body: '{"a":1}\n[1]', error: 'invalid JSON at index: 1' },
  {
    name: 'ndjson: bad lines skipped with ignore_errors',
    contentType: NDJSON,
    body: '{"a": 1}\n{"b": 2"}\n{"c": 1}',
    ignoreErrors: true,
    expected: [{ a: 1 }, { c: 1 }],
  },
  {
    name: 'ndjson: a line that is not UTF-8',
    contentType: NDJSON,
    body: Buffer.concat([Buffer.from('{"a":1}\n{"b":"'), Buffer.from([0xff]), Buffer.from('"}')]),
    error: 'invalid line at index: 1',
  },
  {
    name: 'text: non-empty lines become messages',
    contentType: TEXT,
    body: 'first line\r\n\nsecond {not json}\n',
    expected: [{ message: 'first line' }, { message: 'second {not json}' }],
  },
  { name: 'text: with charset', contentType: 'text/plain; charset=utf-8', body: 'x', expected: [{ message: 'x' }] },
  {
    name: 'unsupported content type',
    contentType: 'application/xml',
    body: '<a/>',
    error: 'invalid content type: application/xml, expected: one of application/json, application/x-ndjson, text/plain',
  },
  {
    name: 'empty content type',
    contentType: '',
    body: '',
    error: 'invalid content type: , expected: one of application/json, application/x-ndjson, text/plain',
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const body = typeof c.body === 'string' ? Buffer.from(c.body) : c.body;
    const parse = () => parseRecords(body, c.contentType, c.ignoreErrors ?? false);
    if (c.error !== undefined) {
      t.throws(parse, { name: 'InvalidRecords', message: c.error });
      t.throws(parse, InvalidRecords);
    } else {
      t.strictSame(parse(), c.expected);
    }
  });
}
