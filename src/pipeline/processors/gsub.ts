/**
 * `gsub`: replaces every match of `pattern` with `replacement`, which may refer to groups as
 * `$1`, `${1}`, `$name`, `${name}` (Rust `regex` expansion rules, shared with the SQL functions).
 * Successive matches follow Rust's iteration: an empty match right after a match is skipped.
 */
import type { RE2JS } from 're2js';
import { expandTemplate } from '../../query/re2.js';
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { type PipelineRecord, typeNameOf } from '../value.js';
import { compileUserRegex } from './regex.js';

function replaceAll(re: RE2JS, text: string, replacement: string, literal: boolean): string {
  let out = '';
  let last = 0;
  let lastEnd = -1;
  for (const m of re.matchAll(text)) {
    const start = m.index as number;
    const end = start + (m[0] as string).length;
    if (start === end && start === lastEnd) continue;
    out += text.slice(last, start) + (literal ? replacement : expandTemplate(replacement, m));
    last = end;
    lastEnd = end;
  }
  return out + text.slice(last);
}

export const gsub: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const re = compileUserRegex(options, options.requiredString('pattern'), 'pattern');
  const replacement = options.requiredString('replacement');
  const literal = !replacement.includes('$');

  return {
    name: 'gsub',
    exec(record: PipelineRecord) {
      for (const field of fields) {
        const v = inputOf('gsub', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor gsub: expect string value, but got ${typeNameOf(v)}`);
        }
        record[field.output] = replaceAll(re, v, replacement, literal);
      }
      return undefined;
    },
  };
};
