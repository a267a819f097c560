/**
 * `select`: `type: include` (default) keeps only the listed keys, renaming `"a, b"` entries
 * (a's value moves to b); `exclude` deletes the listed keys. Missing keys are never an error.
 */
import type { ProcessorFactory } from '../processor.js';

export const select: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const type = options.string('type') ?? 'include';
  if (type !== 'include' && type !== 'exclude') {
    options.fail(`invalid type: ${type}, expected one of include, exclude`, 'type');
  }
  return {
    name: 'select',
    exec(record) {
      if (type === 'exclude') {
        for (const field of fields) delete record[field.input];
        return undefined;
      }
      const keep = new Set<string>();
      for (const field of fields) {
        const v = record[field.input];
        if (field.renamed && v !== undefined) {
          delete record[field.input];
          record[field.output] = v;
        }
        keep.add(field.output);
      }
      for (const key of Object.keys(record)) if (!keep.has(key)) delete record[key];
      return undefined;
    },
  };
};
