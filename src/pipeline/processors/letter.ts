/**
 * `letter`: ASCII case change of a string, `method` lower (default), upper or capital (first
 * character upper-cased, the rest untouched). Non-ASCII letters are left alone, as the reference
 * specifies, so the result never changes length.
 */
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { typeNameOf } from '../value.js';

const METHODS: Record<string, (s: string) => string> = {
  lower: (s) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase()),
  upper: (s) => s.replace(/[a-z]+/g, (m) => m.toUpperCase()),
  capital: (s) => (/^[a-z]/.test(s) ? s.charAt(0).toUpperCase() + s.slice(1) : s),
};

export const letter: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const method = options.string('method') ?? 'lower';
  const apply: ((s: string) => string) | undefined = METHODS[method];
  if (apply === undefined)
    return options.fail(`invalid method: ${method}, expected one of lower, upper, capital`, 'method');
  return {
    name: 'letter',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('letter', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor letter: expect string value, but got ${typeNameOf(v)}`);
        }
        record[field.output] = apply(v);
      }
      return undefined;
    },
  };
};
