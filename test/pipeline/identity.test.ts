import t from 'tap';
import { identityPipeline } from '../../src/pipeline/identity.js';
import type { RunResult } from '../../src/pipeline/output.js';
import { HINT_KEYS, SUFFIX_KEY } from '../../src/pipeline/pipeline.js';
import { PipelineError } from '../../src/pipeline/processor.js';
import type { PipelineRecord } from '../../src/pipeline/value.js';

const NOW = 1_700_000_000_123_456_789n;

function run(
  records: PipelineRecord[],
  options: Parameters<typeof identityPipeline>[0] = {},
  skipError = false,
): RunResult {
  return identityPipeline(options).run(records, { skipError, nowNanos: () => NOW });
}

t.test('reference §7 example: time index first, sorted flattened keys, later keys appended', async (t) => {
  const r = run([
    { level: 'info', msg: 'started', http: { status: 200 } },
    { level: 'warn', msg: 'slow', latency_ms: 812.5 },
  ]);
  t.equal(r.tables.length, 1);
  t.same(
    r.tables[0]?.columns.map((c) => [c.name, c.type, c.semantic]),
    [
      ['greptime_timestamp', 'TimestampNanosecond', 'TIMESTAMP'],
      ['http.status', 'Int64', 'FIELD'],
      ['level', 'String', 'FIELD'],
      ['msg', 'String', 'FIELD'],
      ['latency_ms', 'Float64', 'FIELD'],
    ],
  );
  t.same(r.tables[0]?.rows, [
    [NOW, 200, 'info', 'started'],
    [NOW, null, 'warn', 'slow', 812.5],
  ]);
});

const flattenCases: { name: string; levels?: number; input: PipelineRecord; expected: Record<string, unknown> }[] = [
  {
    name: 'nested objects and arrays (GreptimeDB docs example, 10 levels)',
    input: {
      a: { b: { c: [1, 2, 3] } },
      d: ['foo', 'bar'],
      e: { f: [7, 8, 9], g: { h: 123, i: 'hello', j: { k: true } } },
    },
    expected: {
      'a.b.c': '[1,2,3]',
      d: '["foo","bar"]',
      'e.f': '[7,8,9]',
      'e.g.h': 123,
      'e.g.i': 'hello',
      'e.g.j.k': true,
    },
  },
  {
    name: 'max_nested_levels=3 keeps deeper objects as JSON text',
    levels: 3,
    input: { a: { b: { c: { d: [1, 2, 3] } } }, e: ['foo', 'bar'], f: { g: { h: 123, i: 'hello', j: { k: true } } } },
    expected: { 'a.b.c': '{"d":[1,2,3]}', e: '["foo","bar"]', 'f.g.h': 123, 'f.g.i': 'hello', 'f.g.j': '{"k":true}' },
  },
  {
    name: 'max_nested_levels=1',
    levels: 1,
    input: { a: { z: 1, b: 2 }, n: null },
    expected: { a: '{"b":2,"z":1}' },
  },
];
for (const c of flattenCases) {
  t.test(`flatten: ${c.name}`, async (t) => {
    const table = run([c.input], c.levels === undefined ? {} : { maxNestedLevels: c.levels }).tables[0];
    const got: Record<string, unknown> = {};
    table?.columns.forEach((col, i) => {
      if (col.name !== 'greptime_timestamp') got[col.name] = table.rows[0]?.[i];
    });
    t.same(got, c.expected);
    t.same(Object.keys(got), Object.keys(c.expected).sort());
  });
}

t.test('type conflicts fail the record (GreptimeDB message)', async (t) => {
  const records = () => [{ score: 99.5 }, { score: '88.5' }, { score: 88 }];
  t.throws(() => run(records()), {
    name: 'RecordError',
    message: 'Column datatype mismatch. For column: score, expected datatype: Float64, actual datatype: String',
  });
  const r = run(records(), {}, true);
  t.same(
    r.failures.map((f) => f.index),
    [1, 2],
  );
  t.same(r.tables[0]?.rows, [[NOW, 99.5]]);
});

const customCases: {
  name: string;
  index: string;
  record: PipelineRecord;
  column: [string, string];
  value: bigint | RegExp;
}[] = [
  {
    name: 'epoch seconds',
    index: 'ts;epoch;s',
    record: { action: 'login', ts: 1742814853 },
    column: ['ts', 'TimestampSecond'],
    value: 1742814853n,
  },
  {
    name: 'epoch ms from string',
    index: 'ts;epoch;ms',
    record: { ts: '1752749137000' },
    column: ['ts', 'TimestampMillisecond'],
    value: 1752749137000n,
  },
  {
    name: 'datestr with offset',
    index: 'input_ts;datestr;%Y-%m-%dT%H:%M:%S%z',
    record: { input_ts: '2025-07-17T10:00:00+0800' },
    column: ['input_ts', 'TimestampNanosecond'],
    value: 1752717600000000000n,
  },
  {
    name: 'datestr with %#z and nanoseconds',
    index: 'input_ts;datestr;%Y-%m-%dT%H:%M:%S%.9f%#z',
    record: { input_ts: '2025-06-27T15:02:23.082253908Z' },
    column: ['input_ts', 'TimestampNanosecond'],
    value: 1751036543082253908n,
  },
  {
    name: 'missing',
    index: 'ts;epoch;s',
    record: { a: 1 },
    column: ['ts', 'TimestampSecond'],
    value: /field ts is missing/,
  },
  {
    name: 'bad value',
    index: 'ts;epoch;s',
    record: { ts: 'soon' },
    column: ['ts', 'TimestampSecond'],
    value: /not an epoch in s/,
  },
  {
    name: 'bad date',
    index: 'ts;datestr;%Y',
    record: { ts: 'x' },
    column: ['ts', 'TimestampNanosecond'],
    value: /not a date like %Y/,
  },
];
for (const c of customCases) {
  t.test(`custom_time_index: ${c.name}`, async (t) => {
    if (c.value instanceof RegExp) {
      t.throws(() => run([c.record], { customTimeIndex: c.index }), { name: 'RecordError', message: c.value });
      const r = run([c.record], { customTimeIndex: c.index, ignoreErrors: true });
      t.ok(typeof r.tables[0]?.rows[0]?.[0] === 'bigint', 'ignoreErrors uses now');
      return;
    }
    const table = run([c.record], { customTimeIndex: c.index }).tables[0];
    t.same([table?.columns[0]?.name, table?.columns[0]?.type, table?.columns[0]?.semantic], [...c.column, 'TIMESTAMP']);
    t.equal(table?.rows[0]?.[0], c.value);
    t.notOk(
      table?.columns.slice(1).some((col) => col.name === c.column[0]),
      'time field not repeated',
    );
  });
}

t.test('ignoreErrors: now in the custom unit', async (t) => {
  const r = run([{}], { customTimeIndex: 'ts;epoch;ms', ignoreErrors: true });
  t.same(r.tables[0]?.rows, [[NOW / 1_000_000n]]);
});

for (const bad of ['ts', 'ts;epoch', 'ts;epoch;hours', ';epoch;s', 'ts;iso;x', 'ts;datestr;%Q']) {
  t.test(`custom_time_index rejected: ${bad}`, async (t) => {
    t.throws(() => identityPipeline({ customTimeIndex: bad }), PipelineError);
  });
}

t.test('hint keys are removed and become options; table suffix', async (t) => {
  const r = run([{ a: 1, greptime_ttl: '1d', greptime_skip_wal: 'true', greptime_table_suffix: '_x' }, { a: 2 }]);
  t.same(
    r.tables.map((x) => [x.tableSuffix, x.options, x.columns.map((c) => c.name), x.rows]),
    [
      ['_x', { ttl: '1d', skip_wal: 'true' }, ['greptime_timestamp', 'a'], [[NOW, 1]]],
      ['', undefined, ['greptime_timestamp', 'a'], [[NOW, 2]]],
    ],
  );
});

for (const key of HINT_KEYS) {
  const option = key.slice('greptime_'.length);
  t.test(`${key} alone becomes the ${option} option`, async (t) => {
    const r = run([{ a: 1, [key]: 'v' }]);
    t.same(
      r.tables.map((x) => [x.options, x.columns.map((c) => c.name)]),
      [[{ [option]: 'v' }, ['greptime_timestamp', 'a']]],
    );
  });
}

t.test(`${SUFFIX_KEY} alone names the table suffix`, async (t) => {
  const r = run([{ a: 1, [SUFFIX_KEY]: '_s' }]);
  t.same(
    r.tables.map((x) => [x.tableSuffix, x.options, x.columns.map((c) => c.name)]),
    [['_s', undefined, ['greptime_timestamp', 'a']]],
  );
});

t.test('identity flags', async (t) => {
  const p = identityPipeline();
  t.equal(p.hasTransform, false);
  t.equal(p.hasDispatcher, false);
  t.equal(p.declaredColumns(), null);
  t.equal(p.version, 1);
});
