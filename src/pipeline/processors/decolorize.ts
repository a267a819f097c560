/** `decolorize`: removes ANSI colour sequences (`ESC[<digits and ;>m`) from a string. */
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { typeNameOf } from '../value.js';

const ANSI_COLOR = /\x1b\[[0-9;]*m/g;

export const decolorize: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  return {
    name: 'decolorize',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('decolorize', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor decolorize: expect string value, but got ${typeNameOf(v)}`);
        }
        record[field.output] = v.replace(ANSI_COLOR, '');
      }
      return undefined;
    },
  };
};
