import t from 'tap';
import { compilePipeline } from '../../src/pipeline/compile.js';
import { SuffixTemplate } from '../../src/pipeline/dispatch.js';
import type { Pipeline, RunOptions } from '../../src/pipeline/pipeline.js';
import type { PipelineRecord } from '../../src/pipeline/value.js';

const NOW = 1_700_000_000_000_000_000n;

function options(stored: Record<string, Pipeline> = {}, skipError = false): RunOptions {
  return { skipError, nowNanos: () => NOW, resolve: (name) => stored[name] };
}

const templates: [string, PipelineRecord, string | undefined][] = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['_${type}_${region}', { type: 'http', region: 'eu' }, '_http_eu'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['_${n}', { n: 42 }, '_42'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['_${n}', { n: 12345678901234567890n }, '_12345678901234567890'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['_${n}', { n: 1.5 }, undefined],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['_${n}', { n: true }, undefined],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['_${n}', {}, undefined],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['_${a}_${b}', { a: 'x' }, undefined],
  ['_fixed', {}, '_fixed'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['${ a }', { a: 'x' }, 'x'],
];
for (const [source, record, expected] of templates) {
  t.test(
    `table_suffix ${source} on ${JSON.stringify(record, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
    async (t) => {
      t.equal(new SuffixTemplate(source, undefined).apply(record), expected);
    },
  );
}

const DISPATCHING = `
processors:
  - dissect:
      field: line
      pattern: "%{kind} %{code} %{msg}"
  - epoch:
      field: code
      resolution: s
      ignore_missing: true
dispatcher:
  field: kind
  rules:
    - value: http
      table_suffix: _http
      pipeline: http_pipe
    - value: db
      table_suffix: _db
transform:
  - field: msg
    type: string
  - field: kind
    type: string
    tag: true
table_suffix: _\${kind}
`;

const HTTP_PIPE = compilePipeline(`
version: 2
transform:
  - field: code
    type: epoch, s
    index: timestamp
`);

t.test('dispatcher: rules route to stored pipelines or identity, others use table_suffix', async (t) => {
  const records: PipelineRecord[] = [
    { line: 'http 1 GET /' },
    { line: 'db 2 SELECT' },
    { line: 'app 3 started' },
    { line: 'http 4 POST /x' },
  ];
  const r = compilePipeline(DISPATCHING).run(records, options({ http_pipe: HTTP_PIPE }));
  t.same(r.failures, []);
  t.same(
    r.tables.map((x) => [x.tableSuffix, x.columns.map((c) => `${c.name}:${c.type}:${c.semantic}`), x.rows]),
    [
      [
        '_app',
        ['msg:String:FIELD', 'kind:String:TAG', 'greptime_timestamp:TimestampNanosecond:TIMESTAMP'],
        [['started', 'app', NOW]],
      ],
      [
        '_http',
        ['code:TimestampSecond:TIMESTAMP', 'kind:String:FIELD', 'line:String:FIELD', 'msg:String:FIELD'],
        [
          [1n, 'http', 'http 1 GET /', 'GET /'],
          [4n, 'http', 'http 4 POST /x', 'POST /x'],
        ],
      ],
      [
        '_db',
        [
          'greptime_timestamp:TimestampNanosecond:TIMESTAMP',
          'code:TimestampNanosecond:FIELD',
          'kind:String:FIELD',
          'line:String:FIELD',
          'msg:String:FIELD',
        ],
        [[NOW, 2_000_000_000n, 'db', 'db 2 SELECT', 'SELECT']],
      ],
    ],
  );
});

t.test('dispatcher: values compare typed', async (t) => {
  const yaml = `
dispatcher:
  field: code
  rules:
    - {value: 1, table_suffix: _int}
    - {value: "2", table_suffix: _str}
    - {value: true, table_suffix: _bool}
transform:
  - {field: code, type: string}
`;
  const r = compilePipeline(yaml).run(
    [{ code: 1 }, { code: '1' }, { code: 2 }, { code: '2' }, { code: true }, { code: 1n }],
    options(),
  );
  t.same(
    r.tables.map((x) => [x.tableSuffix, x.rows.length]),
    [
      ['', 2],
      ['_int', 2],
      ['_str', 1],
      ['_bool', 1],
    ],
  );
});

t.test('dispatcher: unknown stored pipeline fails those records', async (t) => {
  const records = (): PipelineRecord[] => [{ line: 'http 1 GET /' }, { line: 'app 3 started' }];
  t.throws(() => compilePipeline(DISPATCHING).run(records(), options()), {
    name: 'RecordError',
    message: /Pipeline not found: http_pipe/,
  });
  const r = compilePipeline(DISPATCHING).run(records(), options({}, true));
  t.same(
    r.failures.map((f) => f.index),
    [0],
  );
  t.same(
    r.tables.map((x) => x.tableSuffix),
    ['_app'],
  );
});

t.test('dispatcher: failures inside the rule pipeline map back to input indexes', async (t) => {
  const records: PipelineRecord[] = [
    { line: 'app 0 a' },
    { line: 'http 1 b' },
    { line: 'http x c' },
    { line: 'http 3 d' },
  ];
  // `code` "x" is no epoch: the record fails in this pipeline's epoch processor, before dispatch.
  const r = compilePipeline(DISPATCHING).run(records, options({ http_pipe: HTTP_PIPE }, true));
  t.same(
    r.failures.map((f) => f.index),
    [2],
  );
  const strict = compilePipeline(`
version: 2
transform:
  - field: code
    type: epoch, s
    index: timestamp
  - field: msg
    type: int64
`);
  const r2 = compilePipeline(DISPATCHING).run(
    [{ line: 'http 1 b' }, { line: 'http 2 42' }, { line: 'app 0 a' }],
    options({ http_pipe: strict }, true),
  );
  t.same(
    r2.failures.map((f) => [f.index, f.message]),
    [[0, 'Transform: cannot convert string "b" of field msg to Int64']],
  );
  t.same(
    r2.tables.map((x) => [x.tableSuffix, x.rows.length]),
    [
      ['_app', 1],
      ['_http', 1],
    ],
  );
});

t.test('dispatcher: a rule naming its own pipeline stops at a depth limit', async (t) => {
  const yaml = `
dispatcher:
  field: k
  rules:
    - {value: loop, table_suffix: _l, pipeline: self}
transform:
  - {field: k, type: string}
`;
  const self = compilePipeline(yaml);
  t.throws(() => self.run([{ k: 'loop' }], options({ self })), { name: 'RecordError', message: /nested dispatches/ });
});

t.test('greptime_table_suffix overrides the template', async (t) => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  const yaml = 'table_suffix: _${a}\ntransform:\n  - {field: a, type: string}\n';
  const r = compilePipeline(yaml).run(
    [{ a: 'x', greptime_table_suffix: '_forced' }, { a: 'y' }, { a: 3.5 }],
    options(),
  );
  t.same(
    r.tables.map((x) => [x.tableSuffix, x.rows.map((row) => row[0])]),
    [
      ['_forced', ['x']],
      ['_y', ['y']],
      ['', ['3.5']],
    ],
  );
});
