import t from 'tap';
import { DROP, ProcessorOptions, type ProcessorResult } from '../../../src/pipeline/processor.js';
import { select } from '../../../src/pipeline/processors/select.js';
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
      const processor = select(new ProcessorOptions('select', c.options));
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
      t.throws(() => select(new ProcessorOptions('select', c.options)), { name: 'PipelineError', message: c.error });
    });
  }
}

check([
  {
    name: 'include keeps only listed keys',
    options: { field: 'hello' },
    input: { hello: 'world', hello2: 'world2' },
    expected: { hello: 'world' },
  },
  {
    name: 'include with rename',
    options: { field: 'hello, hello3' },
    input: { hello: 'world', hello2: 'world2' },
    expected: { hello3: 'world' },
  },
  {
    name: 'include several, missing ones ignored',
    options: { fields: ['a', 'b', 'zz', { key: 'c', rename_to: 'd' }], type: 'include' },
    input: { a: 1, b: null, c: [1], e: 'x' },
    expected: { a: 1, b: null, d: [1] },
  },
  {
    name: 'include rename of a missing key keeps an existing target',
    options: { field: 'x, y' },
    input: { y: 1, z: 2 },
    expected: { y: 1 },
  },
  {
    name: 'exclude deletes listed keys',
    options: { fields: ['hello', 'nope'], type: 'exclude' },
    input: { hello: 'world', hello2: 'world2' },
    expected: { hello2: 'world2' },
  },
  { name: 'include of nothing present empties the record', options: { field: 'q' }, input: { a: 1 }, expected: {} },
]);

checkCompileErrors([
  { name: 'unknown type', options: { field: 'a', type: 'keep' }, error: /Processor select: invalid type: keep/ },
  { name: 'fields required', options: { type: 'exclude' }, error: /missing option: field or fields/ },
]);
