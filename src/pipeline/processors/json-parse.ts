/**
 * `json_parse`: a string holding a JSON object or array becomes that value (nested objects as
 * records, numbers as JS numbers); any other JSON, or text that is not JSON, fails the record.
 */
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { type PipelineValue, typeNameOf } from '../value.js';

export const jsonParse: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  return {
    name: 'json_parse',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('json_parse', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor json_parse: expect string value, but got ${typeNameOf(v)}`);
        }
        let parsed: PipelineValue;
        try {
          parsed = JSON.parse(v) as PipelineValue;
        } catch (err) {
          throw new RecordError(`Processor json_parse: failed to parse JSON: ${(err as Error).message}`);
        }
        if (typeof parsed !== 'object' || parsed === null) {
          throw new RecordError(`Processor json_parse: expect an object or an array, got ${typeNameOf(parsed)}`);
        }
        record[field.output] = parsed;
      }
      return undefined;
    },
  };
};
