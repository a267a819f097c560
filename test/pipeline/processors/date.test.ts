import t from 'tap';
import { ProcessorOptions } from '../../../src/pipeline/processor.js';
import { date } from '../../../src/pipeline/processors/date.js';
import { type PipelineRecord, PipelineTimestamp } from '../../../src/pipeline/value.js';

function exec(options: Record<string, unknown>, record: PipelineRecord): PipelineRecord | string {
  const p = date(new ProcessorOptions('date', options));
  try {
    p.exec(record);
    return record;
  } catch (err) {
    return (err as Error).message;
  }
}

const ns = (v: bigint) => new PipelineTimestamp(v, 'ns');

const cases: {
  name: string;
  options: Record<string, unknown>;
  input: PipelineRecord;
  expected: PipelineRecord | RegExp;
}[] = [
  {
    name: 'default formats: Z',
    options: { field: 't' },
    input: { t: '2024-06-27T06:13:36.991Z' },
    expected: { t: ns(1719468816991000000n) },
  },
  {
    name: 'default formats: offset with nanoseconds',
    options: { field: 't' },
    input: { t: '2024-06-27T06:13:36.123456789+02:00' },
    expected: { t: ns(1719461616123456789n) },
  },
  {
    name: 'default formats: no zone',
    options: { field: 't' },
    input: { t: '2024-06-27T06:13:36' },
    expected: { t: ns(1719468816000000000n) },
  },
  {
    name: 'user formats are sorted: the first that parses wins',
    options: { field: 't', formats: ['%Y-%m-%d %H:%M:%S%.3f', '%Y-%m-%d %H:%M:%S'] },
    input: { t: '2024-05-25 20:16:37' },
    expected: { t: ns(1716668197000000000n) },
  },
  {
    name: 'timezone applies without an offset',
    options: { field: 't', formats: ['%Y-%m-%d %H:%M:%S'], timezone: 'Europe/Paris', locale: 'fr_FR' },
    input: { t: '2024-07-01 12:00:00' },
    expected: { t: ns(1719828000000000000n) },
  },
  {
    name: 'renamed output keeps the input',
    options: { field: 't, ts', formats: ['%Y-%m-%d %H:%M:%S'] },
    input: { t: '2024-05-25 20:16:37' },
    expected: { t: '2024-05-25 20:16:37', ts: ns(1716668197000000000n) },
  },
  {
    name: 'several fields',
    options: { fields: ['a', 'b'], formats: ['%Y-%m-%d %H:%M:%S'] },
    input: { a: '1970-01-01 00:00:01', b: '1970-01-01 00:00:02' },
    expected: { a: ns(1_000_000_000n), b: ns(2_000_000_000n) },
  },
  {
    name: 'no format parses',
    options: { field: 't', formats: ['%Y'] },
    input: { t: 'yesterday' },
    expected: /failed to parse "yesterday"/,
  },
  { name: 'not a string', options: { field: 't' }, input: { t: 5 }, expected: /expect string value, but got integer/ },
  { name: 'missing', options: { field: 't' }, input: {}, expected: /missing field: t/ },
  { name: 'missing ignored', options: { field: 't', ignore_missing: true }, input: { t: null }, expected: { t: null } },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const got = exec(c.options, c.input);
    if (c.expected instanceof RegExp) t.match(got, c.expected);
    else t.same(got, c.expected);
  });
}

t.test('compile errors', async (t) => {
  t.throws(() => date(new ProcessorOptions('date', { formats: ['%Y'] })), /missing option: field/);
  t.throws(() => date(new ProcessorOptions('date', { field: 'a', formats: [] })), /formats must not be empty/);
  t.throws(() => date(new ProcessorOptions('date', { field: 'a', timezone: 'Nowhere/Land' })), /invalid timezone/);
});
