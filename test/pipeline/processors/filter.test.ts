import t from 'tap';
import { DROP, ProcessorOptions, type ProcessorResult } from '../../../src/pipeline/processor.js';
import { filter } from '../../../src/pipeline/processors/filter.js';
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
      const processor = filter(new ProcessorOptions('filter', c.options));
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
      t.throws(() => filter(new ProcessorOptions('filter', c.options)), { name: 'PipelineError', message: c.error });
    });
  }
}

check([
  {
    name: 'in: match drops',
    options: { field: 'name', targets: ['John'], case_insensitive: false },
    input: { name: 'John' },
    expected: DROP,
  },
  {
    name: 'in: no match keeps',
    options: { field: 'name', targets: ['John'], case_insensitive: false },
    input: { name: 'Wick' },
    expected: { name: 'Wick' },
  },
  {
    name: 'not_in: match keeps',
    options: { field: 'name', targets: ['John'], match_op: 'not_in', case_insensitive: false },
    input: { name: 'John' },
    expected: { name: 'John' },
  },
  {
    name: 'not_in: no match drops',
    options: { field: 'name', targets: ['John'], match_op: 'not_in', case_insensitive: false },
    input: { name: 'Wick' },
    expected: DROP,
  },
  {
    name: 'case-insensitive by default',
    options: { field: 'name', targets: ['john'] },
    input: { name: 'JoHN' },
    expected: DROP,
  },
  {
    name: 'case-sensitive when asked',
    options: { field: 'name', targets: ['john'], case_insensitive: false },
    input: { name: 'JoHN' },
    expected: { name: 'JoHN' },
  },
  {
    name: 'case-insensitive targets fold too',
    options: { field: 'level', targets: ['DEBUG', 'Trace'], mode: 'simple' },
    input: { level: 'trace' },
    expected: DROP,
  },
  {
    name: 'any listed field may match',
    options: { fields: ['a', 'b'], targets: ['x'] },
    input: { a: 'y', b: 'x' },
    expected: DROP,
  },
  {
    name: 'missing and null fields are ignored',
    options: { fields: ['a', 'b'], targets: ['x'] },
    input: { b: null },
    expected: { b: null },
  },
  {
    name: 'a non-string value fails',
    options: { field: 'a', targets: ['1'] },
    input: { a: 1 },
    error: 'Processor filter: expect string value, but got integer',
  },
]);

checkCompileErrors([
  { name: 'targets required', options: { field: 'a' }, error: /Processor filter: missing option: targets/ },
  { name: 'targets non-empty', options: { field: 'a', targets: [''] }, error: /missing option: targets/ },
  { name: 'unknown match_op', options: { field: 'a', targets: ['x'], match_op: 'eq' }, error: /invalid match_op: eq/ },
  { name: 'unknown mode', options: { field: 'a', targets: ['x'], mode: 'regex' }, error: /invalid mode: regex/ },
]);
