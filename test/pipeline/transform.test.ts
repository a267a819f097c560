import t from 'tap';
import { compilePipeline } from '../../src/pipeline/compile.js';
import type { Cell, RunResult } from '../../src/pipeline/output.js';
import { RecordError } from '../../src/pipeline/processor.js';
import { type PipelineRecord, PipelineTimestamp, type PipelineValue, toJsonText } from '../../src/pipeline/value.js';

const NOW = 1_700_000_000_123_456_789n;

function run(yaml: string, records: PipelineRecord[], skipError = false): RunResult {
  return compilePipeline(yaml).run(records, { skipError, nowNanos: () => NOW });
}

/** The cell one value becomes in a column of `type`, or the RecordError message. */
function convert(type: string, value: PipelineValue, extra = ''): Cell | string {
  const yaml = `transform:\n  - field: v\n    type: ${type}\n${extra}`;
  try {
    return run(yaml, [{ v: value }]).tables[0]?.rows[0]?.[0] ?? null;
  } catch (err) {
    if (err instanceof RecordError) return `error: ${err.message}`;
    throw err;
  }
}

const ts = new PipelineTimestamp(1_500n, 'ms');
const coercions: [string, PipelineValue, Cell | RegExp][] = [
  // integers
  ['int8', 127, 127],
  ['int8', 128, /cannot convert integer of field v to Int8/],
  ['uint8', -1, /cannot convert/],
  ['int32', 2147483647, 2147483647],
  ['int64', 9007199254740993n, 9007199254740993n],
  ['uint64', 18446744073709551615n, 18446744073709551615n],
  ['uint64', -1, /cannot convert/],
  ['float64', 3, 3],
  ['boolean', 0, false],
  ['boolean', 2, true],
  ['string', 42, '42'],
  ['time, ms', 1500, 1500n],
  ['epoch, s', 7, 7n],
  ['json', 1, /cannot convert integer/],
  // floats
  ['int32', 3.9, 3],
  ['int32', -3.9, -3],
  ['uint8', 300.5, 255],
  ['uint8', -1.5, 0],
  ['float32', 0.1, Math.fround(0.1)],
  ['float64', 2.5, 2.5],
  ['boolean', 0.5, true],
  ['string', 2.5, '2.5'],
  ['time', 1.5, /cannot convert float/],
  // booleans
  ['int16', true, 1],
  ['float64', false, 0],
  ['boolean', true, true],
  ['string', false, 'false'],
  ['time', true, /cannot convert boolean/],
  // strings
  ['int64', '-42', -42],
  ['int64', ' 42', /cannot convert string " 42"/],
  ['uint32', '4294967296', /cannot convert/],
  ['int64', '9223372036854775807', 9223372036854775807n],
  ['int64', '+7', 7],
  ['int64', '-0', 0],
  ['int64', '', /cannot convert string ""/],
  ['int64', '-', /cannot convert/],
  ['int64', '12a', /cannot convert/],
  ['uint8', '255', 255],
  ['uint8', '256', /cannot convert/],
  ['uint32', '-1', /cannot convert/],
  ['int32', '-2147483648', -2147483648],
  ['int64', '123456789012345', 123456789012345],
  ['int64', '1234567890123456', 1234567890123456],
  ['int64', '0009007199254740993', 9007199254740993n],
  ['float64', '1e3', 1000],
  ['float64', '.5', 0.5],
  ['float64', 'inf', Number.POSITIVE_INFINITY],
  ['float64', 'abc', /cannot convert/],
  ['boolean', 'true', true],
  ['boolean', 'True', /cannot convert/],
  ['string', 'x', 'x'],
  ['time', '2024-01-01', /cannot convert string/],
  ['json', '{}', /cannot convert string/],
  // timestamps
  ['time', ts, 1_500_000_000n],
  ['time, s', ts, 1n],
  ['epoch, us', ts, 1_500_000n],
  ['int64', ts, /cannot convert timestamp/],
  ['string', ts, /cannot convert timestamp/],
  // objects and arrays
  ['json', { b: 1, a: [true, null, 'x'] }, '{"a":[true,null,"x"],"b":1}'],
  ['json', [1, 2.5, 'x'], '[1,2.5,"x"]'],
  ['string', { a: 1 }, /cannot convert object/],
  ['int64', [1], /cannot convert array/],
];

for (const [type, value, expected] of coercions) {
  t.test(`coerce ${toJsonText(value)} to ${type}`, async (t) => {
    const got = convert(type, value);
    if (expected instanceof RegExp) t.match(got, expected);
    else t.equal(got, expected);
  });
}

const failures: [string, string, PipelineValue | undefined, Cell | RegExp][] = [
  ['missing, no on_failure', '', undefined, null],
  ['missing, on_failure ignore', '    on_failure: ignore\n', undefined, null],
  ['missing, on_failure default without default', '    on_failure: default\n', undefined, null],
  ['missing, default', '    default: 7\n', undefined, 7],
  ['null counts as missing', '    default: 7\n', null, 7],
  ['bad, on_failure ignore', '    on_failure: ignore\n', 'x', null],
  ['bad, on_failure default → zero', '    on_failure: default\n', 'x', 0],
  ['bad, default', '    default: "9"\n', 'x', 9],
  ['bad, no on_failure', '', 'x', /cannot convert string "x" of field v to Int32/],
];
for (const [name, extra, value, expected] of failures) {
  t.test(`on_failure: ${name}`, async (t) => {
    const got = convert('int32', value === undefined ? (undefined as unknown as PipelineValue) : value, extra);
    if (expected instanceof RegExp) t.match(got, expected);
    else t.equal(got, expected);
  });
}

t.test('zero values per type with on_failure: default', async (t) => {
  t.equal(convert('string', { a: 1 }, '    on_failure: default\n'), '');
  t.equal(convert('boolean', 'maybe', '    on_failure: default\n'), false);
  t.equal(convert('float64', 'x', '    on_failure: default\n'), 0);
  t.equal(convert('time, ms', 'x', '    on_failure: default\n'), 0n);
});

t.test('time index: missing fails, default now, default value', async (t) => {
  const base = 'transform:\n  - field: ts\n    type: epoch, ms\n    index: timestamp\n';
  t.throws(() => run(base, [{}]), { name: 'RecordError', message: 'Time index must be non null.' });
  t.throws(() => run(`${base}    on_failure: ignore\n`, [{ ts: 'x' }]), { message: 'Time index must be non null.' });
  t.same(run(`${base}    on_failure: default\n`, [{}]).tables[0]?.rows, [[NOW / 1_000_000n]]);
  t.same(run(`${base}    default: 5\n`, [{}]).tables[0]?.rows, [[5n]]);
});

t.test('v1 keeps only declared columns', async (t) => {
  const r = run('transform:\n  - {field: a, type: int64}\n', [{ a: 1, b: 'dropped' }]);
  t.same(r.tables, [
    {
      tableSuffix: '',
      columns: [
        { name: 'a', type: 'Int64', semantic: 'FIELD' },
        { name: 'greptime_timestamp', type: 'TimestampNanosecond', semantic: 'TIMESTAMP' },
      ],
      rows: [[1, NOW]],
    },
  ]);
});

const V2 = `
version: 2
processors:
  - date:
      field: time
      formats: ["%Y-%m-%d %H:%M:%S%.3f"]
transform:
  - field: id1
    type: int32
    index: inverted
  - field: time
    type: time
    index: timestamp
`;

t.test('v2: declared columns, then leftovers inferred (reference §9.5 example)', async (t) => {
  const r = run(V2, [
    { id1: '123', id2: '2436', time: '2024-05-25 20:16:37.217' },
    { id1: 5, time: '2024-05-25 20:16:38.000', z: 1.5, a: true, n: null, o: { k: [1] }, big: 12345678901234567890n },
  ]);
  const table = r.tables[0];
  t.same(
    table?.columns.map((c) => [c.name, c.type, c.semantic]),
    [
      ['id1', 'Int32', 'FIELD'],
      ['time', 'TimestampNanosecond', 'TIMESTAMP'],
      ['id2', 'String', 'FIELD'],
      ['a', 'Boolean', 'FIELD'],
      ['big', 'UInt64', 'FIELD'],
      ['o', 'Json', 'FIELD'],
      ['z', 'Float64', 'FIELD'],
    ],
  );
  t.same(table?.rows, [
    [123, 1716668197217000000n, '2436'],
    [5, 1716668198000000000n, null, true, 12345678901234567890n, '{"k":[1]}', 1.5],
  ]);
  t.same(
    compilePipeline(V2)
      .declaredColumns()
      ?.map((c) => c.name),
    ['id1', 'time'],
  );
});

t.test('v2: renamed inputs are consumed, timestamps infer as ns', async (t) => {
  const yaml = `
version: 2
processors:
  - epoch: {field: "t, t2", resolution: s}
transform:
  - field: a, b
    type: string
  - field: t
    type: epoch, s
    index: timestamp
`;
  const r = run(yaml, [{ a: 'x', t: 3 }]);
  t.same(
    r.tables[0]?.columns.map((c) => [c.name, c.type]),
    [
      ['b', 'String'],
      ['t', 'TimestampSecond'],
      ['t2', 'TimestampNanosecond'],
    ],
  );
  t.same(r.tables[0]?.rows, [['x', 3n, 3_000_000_000n]]);
});

t.test('type conflict between records fails that record only', async (t) => {
  const records = (): PipelineRecord[] => [
    { id1: 1, time: '2024-05-25 20:16:37.217', x: 1 },
    { id1: 2, time: '2024-05-25 20:16:37.217', x: 'one', y: true },
    { id1: 3, time: '2024-05-25 20:16:37.217', x: 3 },
  ];
  t.throws(() => run(V2, records()), {
    name: 'RecordError',
    message: 'Column datatype mismatch. For column: x, expected datatype: Int64, actual datatype: String',
  });
  const r = run(V2, records(), true);
  t.same(r.failures, [
    { index: 1, message: 'Column datatype mismatch. For column: x, expected datatype: Int64, actual datatype: String' },
  ]);
  // The failed record's new column `y` is rolled back with it.
  t.same(
    r.tables[0]?.columns.map((c) => c.name),
    ['id1', 'time', 'x'],
  );
  t.same(
    r.tables[0]?.rows.map((row) => row[0]),
    [1, 3],
  );
});

t.test('auto-transform: time index first, then sorted keys', async (t) => {
  const yaml = `
processors:
  - dissect:
      field: line
      pattern: "%{ts} %{level} %{msg}"
  - epoch:
      field: ts
      resolution: ms
`;
  const r = run(yaml, [{ line: '1716668197217 INFO hello', extra: 2 }]);
  t.same(
    r.tables[0]?.columns.map((c) => [c.name, c.type, c.semantic]),
    [
      ['ts', 'TimestampMillisecond', 'TIMESTAMP'],
      ['extra', 'Int64', 'FIELD'],
      ['level', 'String', 'FIELD'],
      ['line', 'String', 'FIELD'],
      ['msg', 'String', 'FIELD'],
    ],
  );
  t.same(r.tables[0]?.rows, [[1716668197217n, 2, 'INFO', '1716668197217 INFO hello', 'hello']]);
});

t.test('auto-transform with date: TIMESTAMP(9)', async (t) => {
  const r = run('processors:\n  - date:\n      field: t\n', [{ t: '2024-05-25T20:16:37.217Z' }]);
  t.same(r.tables[0]?.columns[0], { name: 't', type: 'TimestampNanosecond', semantic: 'TIMESTAMP' });
  t.same(r.tables[0]?.rows, [[1716668197217000000n]]);
});

t.test('processor failures: thrown, or skipped with skipError', async (t) => {
  const yaml = 'processors:\n  - epoch: {field: t, resolution: s}\n';
  t.throws(() => run(yaml, [{ t: 1 }, { t: 'soon' }]), { name: 'RecordError', message: /Processor epoch/ });
  t.throws(() => run(yaml, [{}]), { message: 'Processor epoch: missing field: t' });
  const r = run(yaml, [{ t: 1 }, { t: 'soon' }, { t: 3 }], true);
  t.same(r.tables[0]?.rows, [[1n], [3n]]);
  t.same(
    r.failures.map((f) => f.index),
    [1],
  );
});

t.test('greptime_* hint keys become per-row options, grouped', async (t) => {
  const yaml = 'transform:\n  - {field: a, type: string}\n';
  const r = run(yaml, [
    { a: 'x', greptime_ttl: '7d', greptime_append_mode: true },
    { a: 'y' },
    { a: 'z', greptime_append_mode: true, greptime_ttl: '7d', greptime_table_suffix: '_s' },
  ]);
  t.same(
    r.tables.map((x) => [x.tableSuffix, x.options, x.rows.map((row) => row[0])]),
    [
      ['', { ttl: '7d', append_mode: 'true' }, ['x']],
      ['', undefined, ['y']],
      ['_s', { append_mode: 'true', ttl: '7d' }, ['z']],
    ],
  );
});
