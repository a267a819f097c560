import t from 'tap';
import { DROP, ProcessorOptions, type ProcessorResult } from '../../../src/pipeline/processor.js';
import { jsonParse } from '../../../src/pipeline/processors/json-parse.js';
import type { PipelineRecord } from '../../../src/pipeline/value.js';

interface Case {
  name: string;
  options: Record<string, unknown>;
  input: PipelineRecord;
  /** The record after the processor, or DROP; absent when an error is expected. */
  expected?: PipelineRecord | typeof DROP;
  error?: string | RegExp;
}

function check(cases: Case[]): void {
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const processor = jsonParse(new ProcessorOptions('json_parse', c.options));
      const record = structuredClone(c.input);
      if (c.error !== undefined) {
        t.throws(() => processor.exec(record), { name: 'RecordError', message: c.error });
        return;
      }
      const result: ProcessorResult = processor.exec(record);
      if (c.expected === DROP) t.equal(result, DROP);
      else {
        t.equal(result, undefined);
        t.strictSame(record, c.expected);
      }
    });
  }
}

function checkCompileErrors(cases: { name: string; options: Record<string, unknown>; error: string | RegExp }[]): void {
  for (const c of cases) {
    t.test(`compile: ${c.name}`, async (t) => {
      t.throws(() => jsonParse(new ProcessorOptions('json_parse', c.options)), {
        name: 'PipelineError',
        message: c.error,
      });
    });
  }
}

const objectText = '{"commitTime": "1573840000.000", "commitAuthor": "test"}';
const parsedObject = { commitTime: '1573840000.000', commitAuthor: 'test' };

check([
  {
    name: 'object in place',
    options: { field: 'commit' },
    input: { commit: objectText },
    expected: { commit: parsedObject },
  },
  {
    name: 'object to a new field',
    options: { field: 'commit, commit_json' },
    input: { commit: objectText },
    expected: { commit: objectText, commit_json: parsedObject },
  },
  { name: 'array', options: { field: 'c' }, input: { c: '["test1", "test2"]' }, expected: { c: ['test1', 'test2'] } },
  {
    name: 'nested values keep their types',
    options: { field: 'c' },
    input: { c: '{"a": {"b": [1, 2.5, true, null]}}' },
    expected: { c: { a: { b: [1, 2.5, true, null] } } },
  },
  { name: 'ignore_missing', options: { field: 'c', ignore_missing: true }, input: {}, expected: {} },
  {
    name: 'a JSON scalar is refused',
    options: { field: 'c' },
    input: { c: '42' },
    error: 'Processor json_parse: expect an object or an array, got integer',
  },
  {
    name: 'invalid JSON',
    options: { field: 'c' },
    input: { c: '{"a":' },
    error: /^Processor json_parse: failed to parse JSON/,
  },
  {
    name: 'input must be a string',
    options: { field: 'c' },
    input: { c: { a: 1 } },
    error: 'Processor json_parse: expect string value, but got object',
  },
  { name: 'missing field', options: { field: 'c' }, input: {}, error: 'Processor json_parse: missing field: c' },
]);

checkCompileErrors([{ name: 'no field', options: {}, error: /missing option: field or fields/ }]);
