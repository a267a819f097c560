/**
 * `simple_extract`: walks nested objects along `key` ("a.b.c", required) from the input field;
 * a missing step (or a non-object on the way) yields null rather than an error.
 */
import { inputOf, type ProcessorFactory } from '../processor.js';
import { isRecord, type PipelineValue } from '../value.js';

export const simpleExtract: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const key = options.requiredString('key');
  const steps = key.split('.');
  if (steps.some((s) => s === '')) options.fail(`invalid key: ${key}`, 'key');
  return {
    name: 'simple_extract',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('simple_extract', options, record, field);
        if (v === undefined) continue;
        let at: PipelineValue = v;
        for (const step of steps) {
          const next: PipelineValue | undefined = isRecord(at) ? at[step] : undefined;
          at = next === undefined ? null : next;
          if (at === null) break;
        }
        record[field.output] = at;
      }
      return undefined;
    },
  };
};
