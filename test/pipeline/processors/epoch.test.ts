import t from 'tap';
import { ProcessorOptions } from '../../../src/pipeline/processor.js';
import { epoch } from '../../../src/pipeline/processors/epoch.js';
import {
  type PipelineRecord,
  PipelineTimestamp,
  type PipelineValue,
  type TimeUnit,
} from '../../../src/pipeline/value.js';

const cases: [string | undefined, PipelineValue, bigint | RegExp, TimeUnit?][] = [
  [undefined, 1722580887794, 1722580887794n, 'ms'],
  ['s', '1722580862', 1722580862n, 's'],
  ['second', -5, -5n, 's'],
  ['us', 1.9, 1n, 'us'],
  ['ns', '1722580929863842048', 1722580929863842048n, 'ns'],
  ['ns', 1722580929863842048n, 1722580929863842048n, 'ns'],
  ['s', new PipelineTimestamp(1_500n, 'ms'), 1n, 's'],
  ['s', '1573840000.000', /cannot convert string "1573840000.000"/],
  ['s', true, /cannot convert boolean/],
  ['s', [1], /cannot convert array/],
];

for (const [resolution, input, expected, unit] of cases) {
  t.test(`${resolution ?? '(default)'}: ${String(input)}`, async (t) => {
    const options: Record<string, unknown> = { field: 'v, out' };
    if (resolution !== undefined) options.resolution = resolution;
    const p = epoch(new ProcessorOptions('epoch', options));
    const record: PipelineRecord = { v: input };
    if (expected instanceof RegExp) {
      t.throws(() => p.exec(record), expected);
      return;
    }
    p.exec(record);
    t.same(record.out, new PipelineTimestamp(expected, unit as TimeUnit));
  });
}

t.test('missing, ignore_missing, bad resolution', async (t) => {
  t.throws(() => epoch(new ProcessorOptions('epoch', { field: 'v' })).exec({}), /missing field: v/);
  const record = {};
  epoch(new ProcessorOptions('epoch', { field: 'v', ignore_missing: true })).exec(record);
  t.same(record, {});
  t.throws(
    () => epoch(new ProcessorOptions('epoch', { field: 'v', resolution: 'minute' })),
    /invalid resolution: minute/,
  );
});
