/**
 * `digest`: writes `<input>_digest` (always; a rename is ignored) with every match of the
 * configured patterns removed, a message "template" for grouping similar log lines. Patterns are
 * the `presets` (numbers, quoted, bracketed, uuid, ip) and user `regex`es, applied in the order
 * the two options appear. Users' patterns run on re2js: linear time whatever the pattern.
 */
import { RE2JS, RE2JSException } from 're2js';
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { typeNameOf } from '../value.js';

const QUOTES = `"'“”‘’`;
const OPEN = '({\\[<「『【〔［｛〈《';
const CLOSE = ')}\\]>」』】〕］｝〉》';
const HEX = '[0-9a-fA-F]';

const PRESETS: Record<string, string> = {
  numbers: '\\d+',
  quoted: `[${QUOTES}][^${QUOTES}]*[${QUOTES}]`,
  bracketed: `[${OPEN}][^${OPEN}${CLOSE}]*[${CLOSE}]`,
  uuid: `\\b${HEX}{8}\\b-${HEX}{4}\\b-${HEX}{4}\\b-${HEX}{4}\\b-${HEX}{12}\\b`,
  ip: '((\\d{1,3}\\.){3}\\d{1,3}(:\\d+)?|(\\[[0-9a-fA-F:]+\\])(:\\d+)?)',
};

export const digest: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const patterns: RE2JS[] = [];
  for (const key of Object.keys(options.raw)) {
    if (key === 'presets') {
      for (const name of options.strings('presets') ?? []) {
        const source = PRESETS[name];
        if (source === undefined) {
          return options.fail(`invalid preset: ${name}, expected one of ${Object.keys(PRESETS).join(', ')}`, 'presets');
        }
        patterns.push(RE2JS.compile(source));
      }
    } else if (key === 'regex') {
      for (const source of options.strings('regex') ?? []) patterns.push(compileUserPattern(source));
    }
  }
  options.used.add('presets').add('regex');
  // Without patterns the digest is a copy of the input: a configuration mistake.
  if (patterns.length === 0) options.fail('missing option: presets or regex', 'presets');

  function compileUserPattern(source: string): RE2JS {
    try {
      return RE2JS.compile(source);
    } catch (err) {
      if (!(err instanceof RE2JSException)) throw err;
      return options.fail(`invalid regex ${JSON.stringify(source)}: ${err.message}`, 'regex');
    }
  }

  return {
    name: 'digest',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('digest', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor digest: expect string value, but got ${typeNameOf(v)}`);
        }
        let text = v;
        for (const re of patterns) text = re.matcher(text).replaceAll('');
        record[`${field.input}_digest`] = text;
      }
      return undefined;
    },
  };
};
