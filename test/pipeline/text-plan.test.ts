/**
 * The byte-level run of text bodies (src/pipeline/text-plan.ts) against the general path
 * (`parseRecords` + `Pipeline.run` + `insertOf`) on the same bodies: the same columns, values,
 * NULLs, failures and errors, for each pipeline shape the plan takes; and no plan for the shapes
 * it does not take.
 */
import t from 'tap';
import { compilePipeline } from '../../src/pipeline/compile.js';
import { RecordError } from '../../src/pipeline/processor.js';
import { parseRecords } from '../../src/pipeline/records.js';
import { insertOf } from '../../src/pipeline/to-inserts.js';
import type { TableInsert } from '../../src/shared/insert.js';

const NOW = 1_700_000_000_123_456_789n;
const nowNanos = () => NOW;

const ACCESS = `processors:
  - dissect:
      field: message
      pattern: '%{ip} %{?ident} %{user} [%{ts}] "%{method} %{path} %{proto}" %{status} %{size} "%{referer}" "%{agent}"'
  - date:
      field: ts
      formats:
        - "%d/%b/%Y:%H:%M:%S %z"
transform:
  - fields: ['ip, client', user, method]
    type: string
  - fields: [path, agent, referer]
    type: string
    index: fulltext
  - field: status
    type: uint16
  - field: size
    type: uint32
  - field: proto
    type: string
  - field: ts
    type: time, ms
    index: timestamp
`;

const line = (ip: string, path: string, status: string, size: string, agent = 'curl/8.0') =>
  `${ip} - frank [10/Oct/2023:13:55:36 -0700] "GET ${path} HTTP/1.1" ${status} ${size} "-" "${agent}"`;

interface Case {
  name: string;
  yaml: string;
  body: string | Buffer;
  skipError?: boolean;
}

const cases: Case[] = [
  {
    name: 'access lines, CRLF ends, empty lines, no final newline',
    yaml: ACCESS,
    body: `${line('1.2.3.4', '/a', '200', '512')}\r\n\n${line('5.6.7.8', '/b?q=1', '404', '0')}\n${line('9.9.9.9', '/c', '500', '7')}`,
  },
  {
    name: 'non-ASCII values, a byte order mark, a line that is not UTF-8 (dropped)',
    yaml: ACCESS,
    body: Buffer.concat([
      Buffer.from(`${line('1.1.1.1', '/caf\u00e9', '200', '1', 'Mozilla \u6d4f\u89c8\u5668 \u{1f600}')}\n`),
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`${line('2.2.2.2', '/bom', '200', '2')}\n`),
      Buffer.from([0x31, 0x20, 0xc3, 0x28, 0x0a]),
      Buffer.from(`${line('3.3.3.3', '/after', '200', '3')}\n`),
    ]),
  },
  {
    name: 'a line that does not match fails the body',
    yaml: ACCESS,
    body: `${line('1.2.3.4', '/a', '200', '512')}\nnot an access line\n${line('5.6.7.8', '/b', '200', '1')}\n`,
  },
  {
    name: 'skip_error: failures by record index (dissect, date, a transform), the others kept',
    yaml: ACCESS,
    skipError: true,
    body: [
      line('1.2.3.4', '/a', '200', '512'),
      '',
      'no match',
      line('1.2.3.4', '/bad-size', '200', '-'),
      line('1.2.3.4', '/a', '200', '512').replace('10/Oct/2023', '99/Oct/2023'),
      line('1.2.3.4', '/too-big', '200', '99999999999'),
      line('4.3.2.1', '/z', '301', '9'),
    ].join('\n'),
  },
  {
    name: 'two patterns: keys the matching one lacks are absent (NULL or the default)',
    yaml: `processors:
  - dissect:
      field: message
      patterns:
        - '%{level}: %{msg} (%{code})'
        - '%{level}| %{msg}'
transform:
  - fields: [level, msg]
    type: string
  - field: code
    type: string
    on_failure: default
    default: none
  - field: extra
    type: string
  - field: code, code_n
    type: int32
`,
    body: 'INFO: started (12)\nWARN| no code here\nERROR: bad (x)\n',
    skipError: true,
  },
  {
    name: 'padding (->), skipped keys, a repeated key (the last wins), the line kept as message',
    yaml: `processors:
  - dissect:
      field: message
      pattern: '%{a->} %{b} %{?skip} %{b} %{}|%{c}'
transform:
  - fields: [a, b, c, message]
    type: string
`,
    body: 'x     y z w q|tail\nxx  p q r s|\n',
  },
  {
    name: 'a capture named message replaces the line',
    yaml: `processors:
  - dissect:
      field: message
      pattern: '[%{level}] %{message}'
transform:
  - fields: [level, message]
    type: string
`,
    body: '[info] the rest of it\n[warn] more\n',
  },
  {
    name: 'a key rewritten by a later processor is read from the record; epoch; tags',
    yaml: `processors:
  - dissect:
      field: message
      pattern: '%{host} %{t} %{t2} %{v}'
  - epoch:
      field: t
      resolution: s
  - date:
      field: t2, when
      formats: ['%Y-%m-%dT%H:%M']
transform:
  - field: host
    type: string
    index: tag
  - field: t2
    type: string
  - field: when
    type: time, ms
  - field: v
    type: float64
  - field: t
    type: epoch, s
    index: timestamp
`,
    body: 'h1 1700000000 2024-01-02T03:04 1.5\nh2 1700000001 2024-01-03T00:00 x\nh3 1700000002 2024-01-04T00:00 2\n',
    skipError: true,
  },
  {
    name: 'no time index: greptime_timestamp is now',
    yaml: `processors:
  - dissect:
      field: message
      pattern: '%{a}=%{b}'
transform:
  - fields: [a, b]
    type: string
`,
    body: 'k=v\nk2=\n=v3\n',
  },
  {
    name: 'a time index that cannot be null fails the record',
    yaml: `processors:
  - dissect:
      field: message
      pattern: '%{a} %{ts}'
  - date:
      field: ts
      ignore_missing: true
      formats: ['%Y-%m-%dT%H:%M:%S%:z']
transform:
  - field: a
    type: string
  - field: ts
    type: time
    index: timestamp
`,
    body: 'x 2024-01-02T03:04:05+00:00\ny nope\n',
    skipError: true,
  },
];

/** An insert as plain data: columns with their values (strings made), NULLs as null. */
function plain(insert: TableInsert): unknown {
  return {
    table: insert.table,
    rowCount: insert.rowCount,
    columns: insert.columns.map((c) => ({
      name: c.name,
      semantic: c.semantic,
      type: c.type,
      index: c.index,
      values: Array.from(c.vector.values as ArrayLike<unknown>, (v, i) => (c.vector.valid?.[i] === 0 ? null : v)),
    })),
  };
}

type Outcome = { error: string } | { inserts: unknown[]; failures: unknown };

function general(yaml: string, body: Buffer, skipError: boolean): Outcome {
  try {
    const result = compilePipeline(yaml).run(parseRecords(body, 'text/plain', false), { skipError, nowNanos });
    return { inserts: result.tables.map((out) => plain(insertOf('public', 'logs', out))), failures: result.failures };
  } catch (err) {
    if (err instanceof RecordError) return { error: err.message };
    throw err;
  }
}

function planned(yaml: string, body: Buffer, skipError: boolean): Outcome {
  const plan = compilePipeline(yaml).textPlan();
  if (plan === null) throw new Error('no plan');
  try {
    const { insert, failures } = plan.run(body, 'public', 'logs', { skipError, nowNanos });
    return { inserts: insert === null ? [] : [plain(insert)], failures };
  } catch (err) {
    if (err instanceof RecordError) return { error: err.message };
    throw err;
  }
}

t.test('the plan answers as the general path does', async (t) => {
  for (const c of cases) {
    const body = typeof c.body === 'string' ? Buffer.from(c.body) : c.body;
    t.same(planned(c.yaml, body, c.skipError ?? false), general(c.yaml, body, c.skipError ?? false), c.name);
  }
  // The cases above do reach rows, failures and errors (so the comparisons are not of nothing).
  const skipped = general(cases[3]?.yaml as string, Buffer.from(cases[3]?.body as string), true);
  t.match(skipped, { failures: [{ index: 1 }, { index: 2 }, { index: 3 }, { index: 4 }] });
  t.match(general(ACCESS, Buffer.from(cases[2]?.body as string), false), { error: 'No matching pattern found' });
});

t.test('a body of many lines, every column compared', async (t) => {
  const lines: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const agent = i % 7 === 0 ? `Mozilla/5.0 (${'x'.repeat(i % 200)}) \u00e9${i}` : `agent-${i % 13}`;
    lines.push(
      line(`10.0.${i % 256}.${i % 7}`, `/p/${i}?q=${'y'.repeat(i % 90)}`, String(200 + (i % 5)), String(i), agent),
    );
  }
  const body = Buffer.from(lines.join('\n'));
  const got = planned(ACCESS, body, false);
  t.same(got, general(ACCESS, body, false));
  t.match(got, { inserts: [{ rowCount: 3000 }] });
});

t.test('shapes the plan does not take', async (t) => {
  const no = (name: string, yaml: string) => t.equal(compilePipeline(yaml).textPlan(), null, name);
  const transform = 'transform:\n  - field: a\n    type: string\n';
  no(
    'dissect not first',
    `processors:\n  - date:\n      field: a\n  - dissect:\n      field: message\n      pattern: '%{a}'\n${transform}`,
  );
  no('dissect on another field', `processors:\n  - dissect:\n      field: line\n      pattern: '%{a}'\n${transform}`);
  no('appended keys', `processors:\n  - dissect:\n      field: message\n      pattern: '%{+a} %{+a}'\n${transform}`);
  no(
    'non-ASCII literal text',
    `processors:\n  - dissect:\n      field: message\n      pattern: '%{a}\u00b7%{b}'\n${transform}`,
  );
  no(
    'a processor that may touch any key',
    `processors:\n  - dissect:\n      field: message\n      pattern: '%{a}'\n  - letter:\n      field: a\n      method: upper\n${transform}`,
  );
  no(
    'a hint key captured',
    `processors:\n  - dissect:\n      field: message\n      pattern: '%{a} %{greptime_ttl}'\n${transform}`,
  );
  no(
    'version 2',
    `version: 2\nprocessors:\n  - dissect:\n      field: message\n      pattern: '%{a} %{ts}'\n  - date:\n      field: ts\ntransform:\n  - field: ts\n    type: time\n    index: timestamp\n`,
  );
  no(
    'no transform',
    `processors:\n  - dissect:\n      field: message\n      pattern: '%{a} %{ts}'\n  - date:\n      field: ts\n`,
  );
  no(
    'a table suffix',
    `processors:\n  - dissect:\n      field: message\n      pattern: '%{a}'\n${transform}table_suffix: _\${a}\n`,
  );
  t.not(compilePipeline(ACCESS).textPlan(), null, 'the access pipeline has one');
});
