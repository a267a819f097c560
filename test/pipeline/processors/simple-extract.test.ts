import t from 'tap';
import { DROP, ProcessorOptions, type ProcessorResult } from '../../../src/pipeline/processor.js';
import { simpleExtract } from '../../../src/pipeline/processors/simple-extract.js';
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
      const processor = simpleExtract(new ProcessorOptions('simple_extract', c.options));
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
      t.throws(() => simpleExtract(new ProcessorOptions('simple_extract', c.options)), {
        name: 'PipelineError',
        message: c.error,
      });
    });
  }
}

const commit = { commitTime: '1573840000.000', commitAuthor: 'test' };

check([
  {
    name: 'one level',
    options: { field: 'commit, commit_author', key: 'commitAuthor' },
    input: { commit },
    expected: { commit, commit_author: 'test' },
  },
  {
    name: 'nested path in place',
    options: { field: 'a', key: 'b.c.d' },
    input: { a: { b: { c: { d: 7 } } } },
    expected: { a: 7 },
  },
  {
    name: 'an object result',
    options: { field: 'a, x', key: 'b' },
    input: { a: { b: { c: 1 } } },
    expected: { a: { b: { c: 1 } }, x: { c: 1 } },
  },
  {
    name: 'missing step gives null',
    options: { field: 'a, x', key: 'b.zz' },
    input: { a: { b: {} } },
    expected: { a: { b: {} }, x: null },
  },
  {
    name: 'non-object on the way gives null',
    options: { field: 'a, x', key: 'b.c' },
    input: { a: { b: 'str' } },
    expected: { a: { b: 'str' }, x: null },
  },
  {
    name: 'input not an object gives null',
    options: { field: 'a, x', key: 'b' },
    input: { a: 3 },
    expected: { a: 3, x: null },
  },
  { name: 'ignore_missing', options: { field: 'a', key: 'b', ignore_missing: true }, input: {}, expected: {} },
  {
    name: 'missing input',
    options: { field: 'a', key: 'b' },
    input: {},
    error: 'Processor simple_extract: missing field: a',
  },
]);

checkCompileErrors([
  { name: 'key is required', options: { field: 'a' }, error: /Processor simple_extract: missing option: key/ },
  { name: 'empty step', options: { field: 'a', key: 'a..b' }, error: /invalid key: a\.\.b/ },
]);
