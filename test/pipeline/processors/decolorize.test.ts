import t from 'tap';
import { DROP, ProcessorOptions, type ProcessorResult } from '../../../src/pipeline/processor.js';
import { decolorize } from '../../../src/pipeline/processors/decolorize.js';
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
      const processor = decolorize(new ProcessorOptions('decolorize', c.options));
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
      t.throws(() => decolorize(new ProcessorOptions('decolorize', c.options)), {
        name: 'PipelineError',
        message: c.error,
      });
    });
  }
}

check([
  {
    name: 'colours removed',
    options: { field: 'm' },
    input: { m: '\x1b[31mERROR\x1b[0m: \x1b[1;33mdisk\x1b[m full' },
    expected: { m: 'ERROR: disk full' },
  },
  { name: 'no colours', options: { field: 'm' }, input: { m: 'plain' }, expected: { m: 'plain' } },
  {
    name: 'other escapes stay',
    options: { field: 'm' },
    input: { m: '\x1b[2Jclear\x1b[31' },
    expected: { m: '\x1b[2Jclear\x1b[31' },
  },
  {
    name: 'rename',
    options: { field: 'm, clean' },
    input: { m: '\x1b[32mok\x1b[0m' },
    expected: { m: '\x1b[32mok\x1b[0m', clean: 'ok' },
  },
  { name: 'ignore_missing', options: { fields: ['m'], ignore_missing: true }, input: {}, expected: {} },
  { name: 'missing', options: { field: 'm' }, input: {}, error: 'Processor decolorize: missing field: m' },
  {
    name: 'type error',
    options: { field: 'm' },
    input: { m: [1] },
    error: 'Processor decolorize: expect string value, but got array',
  },
]);

checkCompileErrors([{ name: 'no field', options: {}, error: /missing option: field or fields/ }]);
