/**
 * `date`: parses strings into timestamps (ns) with strftime patterns (chrono's dialect, see
 * strftime.ts). Like GreptimeDB, user formats are sorted and de-duplicated before use, so their
 * order in the YAML does not matter; the first one that parses wins.
 */
import { type FieldSpec, fieldsIo, inputOf, type Processor, type ProcessorFactory, RecordError } from '../processor.js';
import { compileStrftime, type LocalOffset, parseStrftime, type StrftimeFormat, timeZoneOffset } from '../strftime.js';
import { type PipelineRecord, PipelineTimestamp, typeNameOf } from '../value.js';

/** GreptimeDB's defaults: ISO 8601 with an optional fraction and `Z`, an offset or no zone. */
export const DEFAULT_DATE_FORMATS = [
  '%Y-%m-%dT%H:%M:%S%:z',
  '%Y-%m-%dT%H:%M:%S%.3f%:z',
  '%Y-%m-%dT%H:%M:%S%.6f%:z',
  '%Y-%m-%dT%H:%M:%S%.9f%:z',
  '%Y-%m-%dT%H:%M:%SZ',
  '%Y-%m-%dT%H:%M:%S',
  '%Y-%m-%dT%H:%M:%S%.3fZ',
  '%Y-%m-%dT%H:%M:%S%.6fZ',
  '%Y-%m-%dT%H:%M:%S%.9fZ',
  '%Y-%m-%dT%H:%M:%S%.3f',
  '%Y-%m-%dT%H:%M:%S%.6f',
  '%Y-%m-%dT%H:%M:%S%.9f',
  '%Y-%m-%dT%H:%M:%S%z',
];

/** What auto-transform needs to know of a time-producing processor. */
export interface TimeProcessor extends Processor {
  readonly fields: readonly FieldSpec[];
  readonly ignoreMissing: boolean;
  readonly unit: 'ns' | 'us' | 'ms' | 's';
}

export const date: ProcessorFactory = (options): TimeProcessor => {
  const fields = options.requiredFields();
  const given = options.strings('formats');
  const sources = given === undefined ? DEFAULT_DATE_FORMATS : [...new Set(given)].sort();
  if (sources.length === 0) options.fail('formats must not be empty', 'formats');
  const formats: StrftimeFormat[] = sources.map((f) => {
    try {
      return compileStrftime(f);
    } catch (err) {
      return options.fail(`invalid format ${JSON.stringify(f)}: ${(err as Error).message}`, 'formats');
    }
  });
  const timezone = options.string('timezone');
  let zone: LocalOffset | undefined;
  try {
    zone = timezone === undefined ? undefined : timeZoneOffset(timezone);
  } catch {
    options.fail(`invalid timezone: ${timezone}`, 'timezone');
  }
  options.string('locale'); // accepted, as GreptimeDB does, but month names are English only
  const { ignoreMissing } = options;
  // Consecutive log lines mostly share their timestamp text (many lines a second): one entry of
  // memory spares most parses.
  let lastText = '';
  let lastNs: bigint | undefined;

  return {
    name: 'date',
    io: fieldsIo(fields),
    fields,
    ignoreMissing,
    unit: 'ns',
    exec(record: PipelineRecord) {
      for (const field of fields) {
        const v = inputOf('date', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor date: expect string value, but got ${typeNameOf(v)}`);
        }
        let ns: bigint | undefined;
        if (v === lastText && lastNs !== undefined) ns = lastNs;
        else {
          for (const f of formats) {
            ns = parseStrftime(f, v, zone);
            if (ns !== undefined) break;
          }
          lastText = v;
          lastNs = ns;
        }
        if (ns === undefined) {
          throw new RecordError(
            `Processor date: failed to parse ${JSON.stringify(v)} with formats ${sources.join(', ')}`,
          );
        }
        record[field.output] = new PipelineTimestamp(ns, 'ns');
      }
      return undefined;
    },
  };
};
