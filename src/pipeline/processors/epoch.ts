/**
 * `epoch`: numbers (or numeric strings) counting `resolution` units since the Unix epoch become
 * timestamps of that unit. Floats are truncated; an existing timestamp is converted.
 */
import { fieldsIo, inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { type PipelineRecord, PipelineTimestamp, type TimeUnit, typeNameOf } from '../value.js';
import type { TimeProcessor } from './date.js';

const RESOLUTIONS: Record<string, TimeUnit> = {
  s: 's',
  sec: 's',
  second: 's',
  ms: 'ms',
  milli: 'ms',
  millisecond: 'ms',
  us: 'us',
  micro: 'us',
  microsecond: 'us',
  ns: 'ns',
  nano: 'ns',
  nanosecond: 'ns',
};

/** A resolution name (`s`, `sec`, `second`, `ms`, ...) as a unit, or undefined. */
export function timeUnitOf(name: string): TimeUnit | undefined {
  return Object.hasOwn(RESOLUTIONS, name) ? RESOLUTIONS[name] : undefined;
}

const INTEGER = /^[+-]?\d+$/;

export const epoch: ProcessorFactory = (options): TimeProcessor => {
  const fields = options.requiredFields();
  const resolution = options.string('resolution') ?? 'ms';
  const unit = timeUnitOf(resolution) ?? options.fail(`invalid resolution: ${resolution}`, 'resolution');
  const { ignoreMissing } = options;

  return {
    name: 'epoch',
    io: fieldsIo(fields),
    fields,
    ignoreMissing,
    unit,
    exec(record: PipelineRecord) {
      for (const field of fields) {
        const v = inputOf('epoch', options, record, field);
        if (v === undefined) continue;
        let count: bigint;
        if (typeof v === 'bigint') count = v;
        else if (typeof v === 'number' && Number.isFinite(v)) count = BigInt(Math.trunc(v));
        else if (typeof v === 'string' && INTEGER.test(v)) count = BigInt(v);
        else if (v instanceof PipelineTimestamp) count = v.in(unit);
        else {
          const what = typeof v === 'string' ? `string ${JSON.stringify(v)}` : typeNameOf(v);
          throw new RecordError(`Processor epoch: cannot convert ${what} to an epoch timestamp`);
        }
        record[field.output] = new PipelineTimestamp(count, unit);
      }
      return undefined;
    },
  };
};
