/**
 * GreptimeDB's own pipeline tests (shared/conformance/pipeline/tests/*.rs), ported by hand for the
 * processors and stages this engine owns: each case is the Rust test's YAML and input with the
 * schema and values it asserts.
 */
import t from 'tap';
import { compilePipeline } from '../../src/pipeline/compile.js';
import type { Cell, OutputTable } from '../../src/pipeline/output.js';
import type { PipelineRecord } from '../../src/pipeline/value.js';

const NOW = 1_700_000_000_123_456_789n;
const TS = ['greptime_timestamp', 'TimestampNanosecond', 'TIMESTAMP'];

function run(yaml: string, input: unknown): OutputTable {
  const records = (Array.isArray(input) ? input : [input]) as PipelineRecord[];
  const result = compilePipeline(yaml).run(structuredClone(records), { skipError: false, nowNanos: () => NOW });
  if (result.tables.length !== 1) throw new Error(`expected one table, got ${result.tables.length}`);
  return result.tables[0] as OutputTable;
}

interface Case {
  name: string;
  yaml: string;
  input: unknown;
  schema?: string[][];
  /** Expected cells of row 0 by position (undefined entries unchecked). */
  row?: (Cell | undefined)[];
  rows?: Cell[][];
  error?: RegExp;
}

const DATE_INPUT = { input_str: '2024-06-27T06:13:36.991Z' };
const DATE_SCHEMA = [['ts', 'TimestampNanosecond', 'FIELD'], TS];
const DATE_VALUE = 1719468816991000000n;

const cases: Case[] = [
  // date.rs
  {
    name: 'date: parse',
    yaml: `
processors:
  - date:
      fields:
        - input_str
      formats:
        - "%Y-%m-%dT%H:%M:%S%.3fZ"
transform:
  - fields:
        - input_str, ts
    type: time
`,
    input: DATE_INPUT,
    schema: DATE_SCHEMA,
    row: [DATE_VALUE, NOW],
  },
  {
    name: 'date: multi formats',
    yaml: `
processors:
  - date:
      fields: [input_str]
      formats:
        - "%Y-%m-%dT%H:%M:%S"
        - "%Y-%m-%dT%H:%M:%S%.3fZ"
transform:
  - fields: ["input_str, ts"]
    type: time
`,
    input: DATE_INPUT,
    schema: DATE_SCHEMA,
    row: [DATE_VALUE],
  },
  {
    name: 'date: ignore missing',
    yaml: `
processors:
  - date:
      fields: [input_str]
      formats: ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S%.3fZ"]
      ignore_missing: true
transform:
  - fields: ["input_str, ts"]
    type: time
`,
    input: {},
    schema: DATE_SCHEMA,
    row: [null, NOW],
  },
  {
    name: 'date: timezone',
    yaml: `
processors:
  - date:
      fields: [input_str]
      formats: ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S%.3fZ"]
      ignore_missing: true
      timezone: 'Asia/Shanghai'
transform:
  - fields: ["input_str, ts"]
    type: time
`,
    input: DATE_INPUT,
    schema: DATE_SCHEMA,
    row: [1719440016991000000n],
  },
  {
    name: 'date: rename with fields map',
    yaml: `
processors:
- date:
    fields:
      - key: input_str
        rename_to: ts
    formats:
      - "%Y-%m-%dT%H:%M:%S%.3fZ"
transform:
- fields:
      - ts
  type: time
`,
    input: DATE_INPUT,
    schema: DATE_SCHEMA,
    row: [DATE_VALUE],
  },
  {
    name: 'date: rename with field map',
    yaml: `
processors:
- date:
    field:
      key: input_str
      rename_to: ts
    formats:
      - "%Y-%m-%dT%H:%M:%S%.3fZ"
transform:
- fields:
      - ts
  type: time
`,
    input: DATE_INPUT,
    schema: DATE_SCHEMA,
    row: [DATE_VALUE],
  },
  {
    name: 'date: rename in transform fields',
    yaml: `
processors:
- date:
    field: input_str
    formats:
      - "%Y-%m-%dT%H:%M:%S%.3fZ"
transform:
- fields:
  - key: input_str
    rename_to: ts
  type: time
`,
    input: DATE_INPUT,
    schema: DATE_SCHEMA,
    row: [DATE_VALUE],
  },
  {
    name: 'date: rename in transform field',
    yaml: `
processors:
- date:
    field: input_str
    formats:
      - "%Y-%m-%dT%H:%M:%S%.3fZ"
transform:
- field:
    key: input_str
    rename_to: ts
  type: time
`,
    input: DATE_INPUT,
    schema: DATE_SCHEMA,
    row: [DATE_VALUE],
  },
  // dissect.rs
  {
    name: 'dissect: pattern',
    yaml: `
processors:
  - dissect:
      field: str
      pattern: "%{a} %{b}"
transform:
  - fields: [a, b]
    type: string
`,
    input: [{ str: '123 456' }],
    schema: [['a', 'String', 'FIELD'], ['b', 'String', 'FIELD'], TS],
    row: ['123', '456'],
  },
  {
    name: 'dissect: patterns',
    yaml: `
processors:
  - dissect:
      field: str
      patterns:
        - "%{a} %{b}"
transform:
  - fields: [a, b]
    type: string
`,
    input: [{ str: '123 456' }],
    schema: [['a', 'String', 'FIELD'], ['b', 'String', 'FIELD'], TS],
    row: ['123', '456'],
  },
  {
    name: 'dissect: ignore missing',
    yaml: `
processors:
  - dissect:
      field: str
      patterns: ["%{a} %{b}"]
      ignore_missing: true
transform:
  - fields: [a, b]
    type: string
`,
    input: {},
    schema: [['a', 'String', 'FIELD'], ['b', 'String', 'FIELD'], TS],
    row: [null, null],
  },
  {
    name: 'dissect: modifiers',
    yaml: `
processors:
  - dissect:
      field: str
      patterns:
        - "%{key1} %{key2} %{+key3} %{+key3/2} %{key5->} %{?key6}"
transform:
  - fields: [key1, key2, key3, key5]
    type: string
`,
    input: { str: 'key1 key2 key3 key4 key5       key6' },
    schema: [
      ['key1', 'String', 'FIELD'],
      ['key2', 'String', 'FIELD'],
      ['key3', 'String', 'FIELD'],
      ['key5', 'String', 'FIELD'],
      TS,
    ],
    row: ['key1', 'key2', 'key3 key4', 'key5'],
  },
  {
    name: 'dissect: append separator',
    yaml: `
processors:
  - dissect:
      field: str
      patterns: ["%{+key1} %{+key1}"]
      append_separator: "_"
transform:
  - fields: [key1]
    type: string
`,
    input: { str: 'key1 key2' },
    row: ['key1_key2'],
  },
  {
    name: 'dissect: parse failure',
    yaml: `
processors:
  - dissect:
      field: str
      patterns: ["%{key1} %{key2} %{key3}"]
transform:
  - fields: [key1]
    type: string
`,
    input: { str: 'key1 key2' },
    error: /^No matching pattern found$/,
  },
  // epoch.rs
  {
    name: 'epoch: every resolution alias',
    yaml: `
processors:
  - epoch: {field: input_s, resolution: s}
  - epoch: {field: input_sec, resolution: sec}
  - epoch: {field: input_second, resolution: second}
  - epoch: {field: input_ms, resolution: ms}
  - epoch: {field: input_millisecond, resolution: millisecond}
  - epoch: {field: input_milli, resolution: milli}
  - epoch: {field: input_default}
  - epoch: {field: input_us, resolution: us}
  - epoch: {field: input_microsecond, resolution: microsecond}
  - epoch: {field: input_micro, resolution: micro}
  - epoch: {field: input_ns, resolution: ns}
  - epoch: {field: input_nanosecond, resolution: nanosecond}
  - epoch: {field: input_nano, resolution: nano}
transform:
  - {field: input_s, type: "epoch, s"}
  - {field: input_sec, type: "epoch, sec"}
  - {field: input_second, type: "epoch, second"}
  - {field: input_ms, type: "epoch, ms"}
  - {field: input_millisecond, type: "epoch, millisecond"}
  - {field: input_milli, type: "epoch, milli"}
  - {field: input_default, type: "epoch, milli"}
  - {field: input_us, type: "epoch, us"}
  - {field: input_microsecond, type: "epoch, microsecond"}
  - {field: input_micro, type: "epoch, micro"}
  - {field: input_ns, type: "epoch, ns"}
  - {field: input_nanosecond, type: "epoch, nanosecond"}
  - {field: input_nano, type: "epoch, nano"}
`,
    input: {
      input_s: '1722580862',
      input_sec: '1722580862',
      input_second: '1722580862',
      input_ms: '1722580887794',
      input_millisecond: '1722580887794',
      input_milli: '1722580887794',
      input_default: '1722580887794',
      input_us: '1722580905423969',
      input_microsecond: '1722580905423969',
      input_micro: '1722580905423969',
      input_ns: '1722580929863842048',
      input_nanosecond: '1722580929863842048',
      input_nano: '1722580929863842048',
    },
    schema: [
      ['input_s', 'TimestampSecond', 'FIELD'],
      ['input_sec', 'TimestampSecond', 'FIELD'],
      ['input_second', 'TimestampSecond', 'FIELD'],
      ['input_ms', 'TimestampMillisecond', 'FIELD'],
      ['input_millisecond', 'TimestampMillisecond', 'FIELD'],
      ['input_milli', 'TimestampMillisecond', 'FIELD'],
      ['input_default', 'TimestampMillisecond', 'FIELD'],
      ['input_us', 'TimestampMicrosecond', 'FIELD'],
      ['input_microsecond', 'TimestampMicrosecond', 'FIELD'],
      ['input_micro', 'TimestampMicrosecond', 'FIELD'],
      ['input_ns', 'TimestampNanosecond', 'FIELD'],
      ['input_nanosecond', 'TimestampNanosecond', 'FIELD'],
      ['input_nano', 'TimestampNanosecond', 'FIELD'],
      TS,
    ],
    row: [
      ...Array(3).fill(1722580862n),
      ...Array(4).fill(1722580887794n),
      ...Array(3).fill(1722580905423969n),
      ...Array(3).fill(1722580929863842048n),
      NOW,
    ],
  },
  {
    name: 'epoch: ignore missing',
    yaml: `
processors:
  - epoch: {field: input_s, resolution: s, ignore_missing: true}
transform:
  - fields: ["input_s, ts"]
    type: epoch, s
`,
    input: {},
    schema: [['ts', 'TimestampSecond', 'FIELD'], TS],
    row: [null],
  },
  {
    name: 'epoch: transform converts to another resolution',
    yaml: `
processors:
  - epoch: {field: input_s, resolution: s}
  - epoch: {field: input_nano, resolution: ns}
transform:
  - fields: [input_s]
    type: epoch, ms
  - fields: [input_nano]
    type: epoch, ms
`,
    input: { input_s: '1722580862', input_nano: '1722583122284583936' },
    schema: [['input_s', 'TimestampMillisecond', 'FIELD'], ['input_nano', 'TimestampMillisecond', 'FIELD'], TS],
    row: [1722580862000n, 1722583122284n],
  },
  // gsub.rs
  {
    name: 'gsub: then epoch as time index',
    yaml: `
---
description: Pipeline for Demo Log
processors:
  - gsub:
      field: reqTimeSec
      pattern: "\\\\."
      replacement: ""
  - epoch:
      field: reqTimeSec
      resolution: millisecond
      ignore_missing: true
transform:
  - field: reqTimeSec
    type: epoch, millisecond
    index: timestamp
`,
    input: [{ reqTimeSec: '1573840000.000' }],
    schema: [['reqTimeSec', 'TimestampMillisecond', 'TIMESTAMP']],
    row: [1573840000000n],
  },
  {
    name: 'gsub: ignore missing, time index defaults to now',
    yaml: `
processors:
  - gsub: {field: reqTimeSec, pattern: "\\\\.", replacement: "", ignore_missing: true}
  - epoch: {field: reqTimeSec, resolution: millisecond, ignore_missing: true}
transform:
  - field: reqTimeSec
    type: epoch, millisecond
  - field: ts
    type: epoch, millisecond
    index: timestamp
    on_failure: default
`,
    input: {},
    schema: [
      ['reqTimeSec', 'TimestampMillisecond', 'FIELD'],
      ['ts', 'TimestampMillisecond', 'TIMESTAMP'],
    ],
    row: [null, NOW / 1_000_000n],
  },
  // regex.rs
  ...['pattern: "(?<id>\\\\d+)"', 'patterns: ["(?<id>\\\\d+)"]'].map(
    (p): Case => ({
      name: `regex: ${p.split(':')[0]}`,
      yaml: `
processors:
  - regex:
      fields: [str]
      ${p}
transform:
  - field: str_id
    type: string
`,
      input: [{ str: '123 456' }],
      schema: [['str_id', 'String', 'FIELD'], TS],
      row: ['123'],
    }),
  ),
  {
    name: 'regex: ignore missing',
    yaml: `
processors:
  - regex:
      fields: [str]
      pattern: "(?<id>\\\\d+)"
      ignore_missing: true
transform:
  - field: str_id
    type: string
`,
    input: {},
    schema: [['str_id', 'String', 'FIELD'], TS],
    row: [null],
  },
  {
    name: 'regex: unused group',
    yaml: `
processors:
- regex:
    fields: [str]
    pattern: "(?<id1>\\\\d+) (?<id2>\\\\d+)"
transform:
- field: str_id1
  type: string
`,
    input: [{ str: '123 456' }],
    schema: [['str_id1', 'String', 'FIELD'], TS],
    row: ['123'],
  },
  // on_failure.rs
  {
    name: 'on_failure: ignore',
    yaml: `
---
description: Pipeline for Testing on-failure
transform:
  - fields: [version]
    type: uint8
    on_failure: ignore
`,
    input: [{ version: '-' }],
    schema: [['version', 'UInt8', 'FIELD'], TS],
    row: [null],
  },
  {
    name: 'on_failure: default with default',
    yaml: `
transform:
  - fields: [version]
    type: uint8
    default: 0
    on_failure: default
`,
    input: [{ version: '-' }],
    schema: [['version', 'UInt8', 'FIELD'], TS],
    row: [0],
  },
  {
    name: 'on_failure: default alone fills a missing field',
    yaml: `
transform:
  - fields: [version]
    type: uint8
    default: 0
`,
    input: [{}],
    schema: [['version', 'UInt8', 'FIELD'], TS],
    row: [0],
  },
  {
    name: 'on_failure: several entries',
    yaml: `
transform:
  - fields: [version]
    type: uint8
    default: 0
    on_failure: default
  - fields: [spec_version]
    type: uint16
    default: 0
    on_failure: default
`,
    input: [{ version: '-', spec_version: '-' }],
    schema: [['version', 'UInt8', 'FIELD'], ['spec_version', 'UInt16', 'FIELD'], TS],
    row: [0, 0],
  },
  ...(
    [
      [-1, 'uint8', 'ignore', undefined, null],
      [-1, 'uint8', 'default', undefined, 0],
      [-1, 'uint8', 'default', '42', 42],
      [256, 'int8', 'ignore', undefined, null],
      [256, 'int8', 'default', undefined, 0],
      [256, 'int8', 'default', '-42', -42],
      [0, 'uint8', 'ignore', undefined, 0],
      [255, 'uint8', 'ignore', undefined, 255],
      [-128, 'int8', 'ignore', undefined, -128],
      [127, 'int8', 'ignore', undefined, 127],
      ['-1', 'uint8', 'ignore', undefined, null],
      ['-1', 'uint8', 'default', undefined, 0],
      ['-1', 'uint8', 'default', '24', 24],
      ['256', 'int8', 'ignore', undefined, null],
      ['256', 'int8', 'default', undefined, 0],
      ['256', 'int8', 'default', '-24', -24],
      ['0', 'uint8', 'ignore', undefined, 0],
      ['255', 'uint8', 'ignore', undefined, 255],
      ['-128', 'int8', 'ignore', undefined, -128],
      ['127', 'int8', 'ignore', undefined, 127],
      ['not-a-number', 'int8', 'default', '-7', -7],
    ] as const
  ).map(
    ([input, type, onFailure, dflt, expected]): Case => ({
      name: `on_failure: ${JSON.stringify(input)} as ${type}, ${onFailure}${dflt === undefined ? '' : ` ${dflt}`}`,
      yaml: `---\ntransform:\n  - fields:\n      - value\n    type: ${type}\n${dflt === undefined ? '' : `    default: ${dflt}\n`}    on_failure: ${onFailure}\n`,
      input: [{ value: input }],
      row: [expected],
    }),
  ),
  // pipeline.rs
  {
    name: 'pipeline: simple data (dissect + date, time index last)',
    yaml: `
processors:
  - dissect:
      fields: [line]
      patterns: ["%{+ts} %{+ts} %{content}"]
  - date:
      fields: [ts]
      formats: ["%Y-%m-%d %H:%M:%S%.3f"]
transform:
  - fields: [content]
    type: string
  - field: ts
    type: time
    index: timestamp
`,
    input: { line: '2024-05-25 20:16:37.217 hello world' },
    schema: [
      ['content', 'String', 'FIELD'],
      ['ts', 'TimestampNanosecond', 'TIMESTAMP'],
    ],
    rows: [['hello world', 1716668197217000000n]],
  },
  {
    name: 'pipeline: json type',
    yaml: `
processors:
transform:
    - fields: [product_object, product_array]
      type: json
`,
    input: { product_object: { hello: 'world' }, product_array: ['hello', 'world'] },
    schema: [['product_object', 'Json', 'FIELD'], ['product_array', 'Json', 'FIELD'], TS],
    row: ['{"hello":"world"}', '["hello","world"]'],
  },
  {
    name: 'pipeline: timestamp defaults to now',
    yaml: `
processors:
transform:
    - field: abc
      type: string
      on_failure: default
`,
    input: { abc: 'hello world' },
    schema: [['abc', 'String', 'FIELD'], TS],
    rows: [['hello world', NOW]],
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    if (c.error !== undefined) {
      t.throws(() => run(c.yaml, c.input), c.error);
      return;
    }
    const table = run(c.yaml, c.input);
    if (c.schema)
      t.same(
        table.columns.map((col) => [col.name, col.type, col.semantic]),
        c.schema,
        'schema',
      );
    if (c.row) {
      c.row.forEach((v, i) => {
        if (v !== undefined) t.equal(table.rows[0]?.[i] ?? null, v, `row 0 cell ${i}`);
      });
    }
    if (c.rows) t.same(table.rows, c.rows);
  });
}

const DISPATCH_YAML = `
processors:
  - dissect:
      fields: [line]
      patterns: ["%{+ts} %{+ts} [%{logger}] %{content}"]
  - date:
      fields: [ts]
      formats: ["%Y-%m-%d %H:%M:%S%.3f"]
dispatcher:
  field: logger
  rules:
    - value: http
      table_suffix: http
      pipeline: access_log_pipeline
transform:
  - fields: [content]
    type: string
  - field: ts
    type: time
    index: timestamp
`;

t.test('pipeline: dispatch (rule pipeline resolved by name)', async (t) => {
  const access = compilePipeline(`
transform:
  - field: content
    type: string
  - field: ts
    type: time
    index: timestamp
  - field: logger
    type: string
    tag: true
`);
  const asked: string[] = [];
  const result = compilePipeline(DISPATCH_YAML).run(
    [
      { line: '2024-05-25 20:16:37.217 [http] hello world' },
      { line: '2024-05-25 20:16:37.217 [database] hello world' },
    ],
    {
      skipError: false,
      nowNanos: () => NOW,
      resolve: (name) => {
        asked.push(name);
        return access;
      },
    },
  );
  t.same(asked, ['access_log_pipeline']);
  t.same(
    result.tables.map((x) => [x.tableSuffix, x.columns.map((c) => c.name), x.rows]),
    [
      ['', ['content', 'ts'], [['hello world', 1716668197217000000n]]],
      ['http', ['content', 'ts', 'logger'], [['hello world', 1716668197217000000n, 'http']]],
    ],
  );
});

t.test('pipeline: table_suffix template', async (t) => {
  const yaml = `${DISPATCH_YAML.replace(/dispatcher:[\s\S]*?transform:/, 'transform:')}table_suffix: _\${logger}\n`;
  const result = compilePipeline(yaml).run([{ line: '2024-05-25 20:16:37.217 [http] hello world' }], {
    skipError: false,
    nowNanos: () => NOW,
  });
  t.same(
    result.tables.map((x) => [x.tableSuffix, x.rows]),
    [['_http', [['hello world', 1716668197217000000n]]]],
  );
});
