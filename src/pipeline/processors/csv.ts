/**
 * `csv`: parses the first CSV record of a string into `target_fields` ("a,b,c"). Column i goes to
 * the i-th target; targets without a column get `empty_value` (or null); extra columns are
 * dropped. `separator` and `quote` are one character (default `,` and `"`); a doubled quote
 * inside a quoted field is a literal quote; `trim` strips whitespace around every value.
 */
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { typeNameOf } from '../value.js';

export const csv: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const targets = (options.string('target_fields') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  // A csv processor without targets would only type-check its input; surely a mistake.
  if (targets.length === 0) options.fail('missing option: target_fields', 'target_fields');
  const separator = oneChar(options.string('separator') ?? ',', 'separator');
  const quote = oneChar(options.string('quote') ?? '"', 'quote');
  const trim = options.boolean('trim') ?? false;
  const emptyValue = options.string('empty_value') ?? null;

  function oneChar(s: string, key: string): string {
    if ([...s].length !== 1) options.fail(`${key} must be a single character, got ${JSON.stringify(s)}`, key);
    return s;
  }

  return {
    name: 'csv',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('csv', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor csv: expect string value, but got ${typeNameOf(v)}`);
        }
        const values = firstRecord(v, separator, quote);
        if (values === undefined) throw new RecordError(`Processor csv: no record found in ${JSON.stringify(v)}`);
        targets.forEach((target, i) => {
          const col = values[i];
          record[target] = col === undefined ? emptyValue : trim ? col.trim() : col;
        });
      }
      return undefined;
    },
  };
};

/** The fields of the first non-empty line (quoted newlines included), or undefined if none. */
export function firstRecord(text: string, separator: string, quote: string): string[] | undefined {
  let i = 0;
  // Blank lines before the first record hold no record, as in the Rust csv reader.
  while (i < text.length && (text[i] === '\n' || text[i] === '\r')) i++;
  if (i >= text.length) return undefined;
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  // A quote opens a quoted section only at the start of a field; elsewhere it is text.
  let fieldStart = true;
  for (; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c !== quote) cur += c;
      else if (text[i + 1] === quote) {
        cur += quote;
        i++;
      } else quoted = false;
    } else if (c === quote && fieldStart) quoted = true;
    else if (c === separator) {
      out.push(cur);
      cur = '';
      fieldStart = true;
      continue;
    } else if (c === '\n' || c === '\r') break;
    else cur += c;
    fieldStart = false;
  }
  out.push(cur);
  return out;
}
