/**
 * `regex`: each named group of each matching pattern becomes `<prefix>_<group>`, prefix being the
 * target (or input) field. Patterns run on re2js, a linear-time RE2 port with the syntax of Rust's
 * `regex` crate (both `(?P<n>...)` and `(?<n>...)`), so no pattern can make a record stall.
 */
import { RE2JS } from 're2js';
import { inputOf, type ProcessorFactory, type ProcessorOptions, RecordError } from '../processor.js';
import { type PipelineRecord, typeNameOf } from '../value.js';

/** Compiles a user pattern, failing the processor with the engine's message. */
export function compileUserRegex(options: ProcessorOptions, pattern: string, key: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    return options.fail(`invalid regex ${JSON.stringify(pattern)}: ${(err as Error).message}`, key);
  }
}

interface Compiled {
  re: RE2JS;
  /** Group names with their indexes, in pattern order. */
  groups: [string, number][];
}

export const regex: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const key = options.has('pattern') ? 'pattern' : 'patterns';
  const sources = [...(options.strings('pattern') ?? []), ...(options.strings('patterns') ?? [])];
  if (sources.length === 0) options.fail('missing option: pattern or patterns', 'pattern');
  const patterns: Compiled[] = sources.map((src) => {
    const re = compileUserRegex(options, src, key);
    const groups = Object.entries(re.namedGroups() as Record<string, number>).sort((a, b) => a[1] - b[1]);
    if (groups.length === 0) options.fail(`pattern ${JSON.stringify(src)} has no named group`, key);
    return { re, groups };
  });
  // Output keys per field and group, built once rather than per record.
  const outputs = fields.map((f) => patterns.map((p) => p.groups.map(([name]) => `${f.output}_${name}`)));

  return {
    name: 'regex',
    exec(record: PipelineRecord) {
      for (let f = 0; f < fields.length; f++) {
        const v = inputOf('regex', options, record, fields[f]!);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor regex: expect string value, but got ${typeNameOf(v)}`);
        }
        for (let p = 0; p < patterns.length; p++) {
          const { re, groups } = patterns[p]!;
          const m = re.matcher(v);
          if (!m.find()) continue;
          const keys = outputs[f]![p]!;
          for (let g = 0; g < groups.length; g++) {
            const text = m.group(groups[g]![1]);
            if (text !== null) record[keys[g]!] = text;
          }
        }
      }
      return undefined;
    },
  };
};
