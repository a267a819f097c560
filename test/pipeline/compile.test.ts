import t from 'tap';
import { compilePipeline } from '../../src/pipeline/compile.js';
import { PipelineError } from '../../src/pipeline/processor.js';

interface ErrorCase {
  name: string;
  yaml: string;
  message: RegExp;
  line?: number;
  column?: number;
}

const errors: ErrorCase[] = [
  { name: 'bad YAML', yaml: 'processors: [a: 1\n', message: /^invalid YAML: /, line: 2, column: 1 },
  {
    name: 'duplicate key',
    yaml: 'a: 1\na: 2\n',
    message: /^invalid YAML: Map keys must be unique/,
    line: 2,
    column: 1,
  },
  { name: 'not a map', yaml: '- a\n- b\n', message: /must be a YAML map/, line: 1, column: 1 },
  { name: 'unknown top-level key', yaml: 'processors: []\nfoo: 1\n', message: /^unknown key: foo/, line: 2, column: 1 },
  {
    name: 'unknown processor',
    yaml: 'processors:\n  - foo:\n      field: x\n',
    message: /^Processor foo not supported/,
    line: 2,
    column: 5,
  },
  {
    name: 'unknown option',
    yaml: 'processors:\n  - date:\n      field: x\n      bogus: 1\n',
    message: /^Processor date: unknown option: bogus/,
    line: 4,
    column: 7,
  },
  {
    name: 'missing required option',
    yaml: 'processors:\n  - gsub:\n      field: x\n      pattern: a\n',
    message: /^Processor gsub: missing option: replacement/,
    line: 2,
    column: 5,
  },
  {
    name: 'missing field',
    yaml: 'processors:\n  - epoch:\n      resolution: s\n',
    message: /^Processor epoch: missing option: field or fields/,
    line: 2,
  },
  {
    name: 'processor item with two keys',
    yaml: 'processors:\n  - date: {field: a}\n    epoch: {field: b}\n',
    message: /one key/,
    line: 2,
    column: 5,
  },
  {
    name: 'bad dissect pattern',
    yaml: 'processors:\n  - dissect:\n      field: x\n      pattern: "%{a}%{b}"\n',
    message: /Processor dissect: invalid pattern .*without a delimiter/,
    line: 4,
    column: 7,
  },
  {
    name: 'unclosed dissect key',
    yaml: 'processors:\n  - dissect:\n      field: x\n      patterns: ["%{a"]\n',
    message: /unclosed/,
    line: 4,
  },
  {
    name: 'dissect modifier without a name',
    yaml: 'processors:\n  - dissect: {field: x, pattern: "%{+} x"}\n',
    message: /without a name/,
  },
  {
    name: 'empty dissect pattern',
    yaml: 'processors:\n  - dissect: {field: x, pattern: ""}\n',
    message: /empty pattern/,
  },
  {
    name: 'regex without named group',
    yaml: 'processors:\n  - regex:\n      field: a\n      pattern: "(\\\\d+)"\n',
    message: /no named group/,
    line: 4,
  },
  { name: 'bad regex', yaml: 'processors:\n  - regex: {field: a, pattern: "(?<x>a"}\n', message: /invalid regex/ },
  {
    name: 'bad gsub regex',
    yaml: 'processors:\n  - gsub: {field: a, pattern: "[", replacement: ""}\n',
    message: /invalid regex/,
  },
  {
    name: 'bad timezone',
    yaml: 'processors:\n  - date: {field: a, timezone: Mars/Base}\n',
    message: /invalid timezone: Mars\/Base/,
  },
  {
    name: 'bad date format',
    yaml: 'processors:\n  - date: {field: a, formats: ["%Q"]}\n',
    message: /unsupported date format specifier: %Q/,
  },
  {
    name: 'bad epoch resolution',
    yaml: 'processors:\n  - epoch: {field: a, resolution: hours}\n',
    message: /invalid resolution: hours/,
  },
  { name: 'bad version', yaml: 'version: 3\n', message: /^invalid pipeline version: 3/, line: 1, column: 1 },
  { name: 'bad version string', yaml: 'version: two\n', message: /^invalid pipeline version/ },
  {
    name: 'duplicate transform output',
    yaml: 'transform:\n  - field: a\n    type: string\n  - field: b, a\n    type: int32\n',
    message: /^Transform: duplicate output column: a/,
    line: 4,
    column: 5,
  },
  {
    name: 'duplicate output inside one entry',
    yaml: 'transform:\n  - fields: [a, "b, a"]\n    type: string\n',
    message: /duplicate output column: a/,
  },
  {
    name: 'missing time index in v2',
    yaml: 'version: 2\ntransform:\n  - field: a\n    type: string\n',
    message: /version 2 needs exactly one entry with index: timestamp/,
    line: 2,
    column: 1,
  },
  {
    name: 'two time indexes',
    yaml: 'transform:\n  - {field: a, type: time, index: timestamp}\n  - {field: b, type: time, index: time}\n',
    message: /only one time index/,
    line: 3,
  },
  {
    name: 'time index over two fields',
    yaml: 'transform:\n  - {fields: [a, b], type: time, index: timestamp}\n',
    message: /exactly one field/,
  },
  {
    name: 'time index not a time type',
    yaml: 'transform:\n  - {field: a, type: int64, index: timestamp}\n',
    message: /time type/,
  },
  {
    name: 'unknown transform type',
    yaml: 'transform:\n  - field: a\n    type: int33\n',
    message: /unsupported type: int33/,
    line: 3,
    column: 5,
  },
  {
    name: 'bad time resolution',
    yaml: 'transform:\n  - {field: a, type: "epoch, hours"}\n',
    message: /unsupported type/,
  },
  { name: 'missing transform type', yaml: 'transform:\n  - field: a\n', message: /missing option: type/ },
  {
    name: 'missing transform field',
    yaml: 'transform:\n  - type: string\n',
    message: /missing option: field or fields/,
  },
  {
    name: 'unknown transform option',
    yaml: 'transform:\n  - {field: a, type: string, colour: red}\n',
    message: /unknown option: colour/,
  },
  {
    name: 'unknown index',
    yaml: 'transform:\n  - {field: a, type: string, index: bitmap}\n',
    message: /unknown index: bitmap/,
  },
  {
    name: 'index options on inverted',
    yaml: 'transform:\n  - {field: a, type: string, index: {type: inverted, options: {granularity: 1}}}\n',
    message: /takes no options/,
  },
  {
    name: 'unknown fulltext option',
    yaml: 'transform:\n  - {field: a, type: string, index: {type: fulltext, options: {colour: red}}}\n',
    message: /unknown index option: colour/,
  },
  {
    name: 'bad fulltext analyzer',
    yaml: 'transform:\n  - {field: a, type: string, index: {type: fulltext, options: {analyzer: Klingon}}}\n',
    message: /invalid index option analyzer/,
  },
  {
    name: 'fulltext on a number',
    yaml: 'transform:\n  - {field: a, type: int64, index: fulltext}\n',
    message: /string column/,
  },
  {
    name: 'extra key in index map',
    yaml: 'transform:\n  - {field: a, type: string, index: {type: fulltext, x: 1}}\n',
    message: /unknown index option: x/,
  },
  {
    name: 'bad on_failure',
    yaml: 'transform:\n  - {field: a, type: string, on_failure: retry}\n',
    message: /invalid on_failure: retry/,
  },
  {
    name: 'bad default',
    yaml: 'transform:\n  - {field: a, type: uint8, default: 300}\n',
    message: /invalid default for UInt8: 300/,
  },
  {
    name: 'default for json',
    yaml: 'transform:\n  - {field: a, type: json, default: 1}\n',
    message: /invalid default/,
  },
  {
    name: 'transform and transforms',
    yaml: 'transform:\n  - {field: a, type: string}\ntransforms:\n  - {field: b, type: string}\n',
    message: /cannot both be set/,
  },
  { name: 'auto-transform without a time field', yaml: 'processors: []\n', message: /exactly one time index field/ },
  {
    name: 'auto-transform with two time fields',
    yaml: 'processors:\n  - date: {field: a}\n  - epoch: {field: b}\n',
    message: /found a, b/,
  },
  {
    name: 'dispatcher without field',
    yaml: 'dispatcher:\n  rules: []\ntransform:\n  - {field: a, type: string}\n',
    message: /Dispatcher: missing option: field/,
  },
  {
    name: 'dispatcher rule without table_suffix',
    yaml: 'dispatcher:\n  field: t\n  rules:\n    - value: x\ntransform:\n  - {field: a, type: string}\n',
    message: /rule 1: missing option: table_suffix/,
    line: 1,
  },
  {
    name: 'dispatcher rule without value',
    yaml: 'dispatcher:\n  field: t\n  rules:\n    - table_suffix: _x\ntransform:\n  - {field: a, type: string}\n',
    message: /rule 1: missing option: value/,
  },
  {
    name: 'table_suffix not a string',
    yaml: 'table_suffix: [a]\ntransform:\n  - {field: a, type: string}\n',
    message: /table_suffix must be a string/,
  },
];

for (const c of errors) {
  t.test(`error: ${c.name}`, async (t) => {
    let caught: unknown;
    try {
      compilePipeline(c.yaml);
    } catch (err) {
      caught = err;
    }
    t.type(caught, PipelineError);
    const err = caught as PipelineError;
    t.match(err.message, c.message);
    if (c.line !== undefined) t.equal(err.line, c.line, 'line');
    if (c.column !== undefined) t.equal(err.column, c.column, 'column');
  });
}

const versions: [string, 1 | 2][] = [
  ['', 1],
  ['version: 1\n', 1],
  ['version: "1"\n', 1],
  ['version:\n', 1],
  ['version: 2\n', 2],
  ['version: "2"\n', 2],
];
for (const [line, version] of versions) {
  t.test(`version ${JSON.stringify(line)} → ${version}`, async (t) => {
    const p = compilePipeline(`${line}transform:\n  - {field: a, type: time, index: timestamp}\n`);
    t.equal(p.version, version);
  });
}

t.test('flags and declared columns', async (t) => {
  const p = compilePipeline(`
description: demo
transform:
  - fields: [a, "b, bee"]
    type: string
    index: inverted
    tag: true
  - field: msg
    type: string
    index: {type: fulltext, options: {analyzer: chinese, case_sensitive: true}}
  - field: id
    type: uint64
    index: skipping
  - field: host
    type: string
    index: tag
`);
  t.equal(p.hasTransform, true);
  t.equal(p.hasDispatcher, false);
  t.equal(p.description, 'demo');
  t.same(p.declaredColumns(), [
    { name: 'a', type: 'String', semantic: 'TAG', index: { kind: 'inverted', options: {} } },
    { name: 'bee', type: 'String', semantic: 'TAG', index: { kind: 'inverted', options: {} } },
    {
      name: 'msg',
      type: 'String',
      semantic: 'FIELD',
      index: {
        kind: 'fulltext',
        options: {
          analyzer: 'Chinese',
          backend: 'bloom',
          case_sensitive: 'true',
          false_positive_rate: '0.01',
          granularity: '10240',
        },
      },
    },
    {
      name: 'id',
      type: 'UInt64',
      semantic: 'FIELD',
      index: { kind: 'skipping', options: { false_positive_rate: '0.01', granularity: '10240', type: 'BLOOM' } },
    },
    { name: 'host', type: 'String', semantic: 'TAG' },
    { name: 'greptime_timestamp', type: 'TimestampNanosecond', semantic: 'TIMESTAMP' },
  ]);
});

t.test('auto-transform declares nothing; dispatcher and table_suffix are flagged', async (t) => {
  const auto = compilePipeline('processors:\n  - date: {field: ts}\n  - epoch: {field: other, ignore_missing: true}\n');
  t.equal(auto.hasTransform, false);
  t.equal(auto.declaredColumns(), null);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  const suffixed = compilePipeline('table_suffix: _${a}\ntransforms:\n  - {field: a, type: string}\n');
  t.equal(suffixed.hasDispatcher, true);
  t.equal(suffixed.hasTransform, true);
  const dispatched = compilePipeline(
    'dispatcher:\n  field: t\n  rules:\n    - {value: x, table_suffix: _x}\ntransform:\n  - {field: a, type: string}\n',
  );
  t.equal(dispatched.hasDispatcher, true);
});

t.test('null processors and transform sections are empty', async (t) => {
  const p = compilePipeline('processors:\ntransform:\n  - {field: a, type: string}\n');
  t.same(
    p.declaredColumns()?.map((c) => c.name),
    ['a', 'greptime_timestamp'],
  );
});
