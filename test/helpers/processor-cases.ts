/**
 * Table-driven processor tests: each case compiles the processor from its options, runs it on a
 * copy of the input record and compares the record (or the drop, or the error) with the
 * expectation; compile cases expect a PipelineError.
 */
import t from 'tap';
import { DROP, type ProcessorFactory, ProcessorOptions, type ProcessorResult } from '../../src/pipeline/processor.js';
import type { PipelineRecord } from '../../src/pipeline/value.js';

export interface ProcessorCase {
  name: string;
  options: Record<string, unknown>;
  input: PipelineRecord;
  /** The record after the processor, or DROP; absent when an error is expected. */
  expected?: PipelineRecord | typeof DROP;
  error?: string | RegExp;
}

export interface CompileCase {
  name: string;
  options: Record<string, unknown>;
  error: string | RegExp;
}

export function checkProcessor(processorName: string, factory: ProcessorFactory, cases: ProcessorCase[]): void {
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const processor = factory(new ProcessorOptions(processorName, c.options));
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

export function checkCompileErrors(processorName: string, factory: ProcessorFactory, cases: CompileCase[]): void {
  for (const c of cases) {
    t.test(`compile: ${c.name}`, async (t) => {
      t.throws(() => factory(new ProcessorOptions(processorName, c.options)), {
        name: 'PipelineError',
        message: c.error,
      });
    });
  }
}
