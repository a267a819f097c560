/**
 * `join`: an array becomes the text of its elements joined by `separator` (required), e.g.
 * `[1, true, "a", 1.1]` with `-` → `"1-true-a-1.1"`.
 */
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { PipelineTimestamp, type PipelineValue, typeNameOf } from '../value.js';

export const join: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const separator = options.requiredString('separator');
  return {
    name: 'join',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('join', options, record, field);
        if (v === undefined) continue;
        if (!Array.isArray(v)) {
          throw new RecordError(`Processor join: expect array value, but got ${typeNameOf(v)}`);
        }
        record[field.output] = v.map(textOf).join(separator);
      }
      return undefined;
    },
  };
};

function textOf(v: PipelineValue): string {
  if (typeof v === 'string') return v;
  if (v === null) return 'null';
  if (typeof v === 'object') {
    if (v instanceof PipelineTimestamp) return v.nanos.toString();
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  }
  return String(v);
}
