/**
 * `filter`: drops the record when a listed field's string value matches `targets` (required,
 * non-empty list): `match_op: in` (default) drops on equality with a target, `not_in` when it
 * equals none. Comparison ignores case unless `case_insensitive: false`. Missing (or null)
 * fields are skipped; other non-string values fail the record. `mode` only knows `simple`.
 */
import { DROP, type ProcessorFactory, RecordError } from '../processor.js';
import { typeNameOf } from '../value.js';

export const filter: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const mode = options.string('mode') ?? 'simple';
  if (mode !== 'simple') options.fail(`invalid mode: ${mode}, expected simple`, 'mode');
  const op = options.string('match_op') ?? 'in';
  if (op !== 'in' && op !== 'not_in') options.fail(`invalid match_op: ${op}, expected one of in, not_in`, 'match_op');
  const caseInsensitive = options.boolean('case_insensitive') ?? true;
  const fold = (s: string) => (caseInsensitive ? s.toLowerCase() : s);
  const targets = new Set((options.strings('targets') ?? []).filter((s) => s !== '').map(fold));
  if (targets.size === 0) options.fail('missing option: targets', 'targets');
  const dropIn = op === 'in';

  return {
    name: 'filter',
    exec(record) {
      for (const field of fields) {
        const v = record[field.input];
        if (v === undefined || v === null) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor filter: expect string value, but got ${typeNameOf(v)}`);
        }
        if (targets.has(fold(v)) === dropIn) return DROP;
      }
      return undefined;
    },
  };
};
