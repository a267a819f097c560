/**
 * Every processor of the pipeline language over real HTTP: each case runs one processor (then an
 * `epoch` for the time index, so auto-transform keeps every key) through `/v1/pipelines/_dryrun`
 * with an inline pipeline, and checks the values the dry run shows for the keys it names. Refused
 * options are 400s naming them. The processors' own tables live in test/pipeline/processors/.
 */
import t from 'tap';
import { startServer } from '../helpers/server.js';

interface Case {
  processor: string;
  yaml: string;
  input: Record<string, unknown>;
  /** Column values expected in the row (others are not checked); undefined: the column is absent. */
  expect: Record<string, unknown>;
  /** The processor makes the time index itself (no `epoch` added). */
  timeIndex?: boolean;
}

const CASES: Case[] = [
  {
    processor: 'date',
    yaml: 'date: {field: d, formats: ["%Y-%m-%d %H:%M:%S"]}',
    input: { d: '2024-05-25 20:16:37' },
    expect: { d: 1716668197000000000 },
    timeIndex: true,
  },
  {
    processor: 'epoch',
    yaml: 'epoch: {field: e, resolution: s}',
    input: { e: 1700000000 },
    expect: { e: 1700000000 },
    timeIndex: true,
  },
  {
    processor: 'dissect',
    yaml: "dissect: {field: m, pattern: '%{a} - %{b}'}",
    input: { m: 'x - y' },
    expect: { a: 'x', b: 'y' },
  },
  {
    processor: 'regex',
    yaml: "regex: {field: m, patterns: ['(?<word>[a-z]+)-(?<num>\\d+)']}",
    input: { m: 'ab-12' },
    expect: { m_word: 'ab', m_num: '12' },
  },
  {
    processor: 'gsub',
    yaml: "gsub: {field: m, pattern: '\\d', replacement: '#'}",
    input: { m: 'a1b22' },
    expect: { m: 'a#b##' },
  },
  {
    processor: 'join',
    yaml: "join: {field: l, separator: '+'}",
    input: { l: ['a', 'b', 'c'] },
    expect: { l: 'a+b+c' },
  },
  { processor: 'letter', yaml: 'letter: {field: m, method: upper}', input: { m: 'abc' }, expect: { m: 'ABC' } },
  {
    processor: 'csv',
    yaml: "csv: {field: m, target_fields: 'x,y'}",
    input: { m: '1,two' },
    expect: { x: '1', y: 'two' },
  },
  {
    processor: 'json_path',
    yaml: "json_path: {field: o, json_path: '$.a.b', result_index: 0}",
    input: { o: { a: { b: 7 } } },
    expect: { o: 7 },
  },
  { processor: 'json_parse', yaml: 'json_parse: {field: j}', input: { j: '{"k":"v"}' }, expect: { j: { k: 'v' } } },
  {
    processor: 'simple_extract',
    yaml: "simple_extract: {field: 'o, v', key: 'a.b'}",
    input: { o: { a: { b: 'deep' } } },
    expect: { v: 'deep' },
  },
  {
    processor: 'urlencoding',
    yaml: 'urlencoding: {field: u, method: decode}',
    input: { u: 'a%20b%2Fc' },
    expect: { u: 'a b/c' },
  },
  {
    processor: 'decolorize',
    yaml: 'decolorize: {field: m}',
    input: { m: '\u001b[31mred\u001b[0m' },
    expect: { m: 'red' },
  },
  {
    processor: 'digest',
    yaml: 'digest: {field: m, presets: [numbers]}',
    input: { m: 'took 15 ms' },
    expect: { m_digest: 'took  ms' },
  },
  {
    processor: 'select',
    yaml: "select: {fields: ['keep', 't']}",
    input: { keep: 'k', drop: 'd' },
    expect: { keep: 'k', drop: undefined },
  },
  { processor: 'cmcd', yaml: 'cmcd: {field: c}', input: { c: 'br=3200,bs' }, expect: { c_br: 3200, c_bs: true } },
  {
    processor: 'vrl',
    yaml: "vrl: {source: '.greeting = upcase(string!(.name)); .'}",
    input: { name: 'ada' },
    expect: { greeting: 'ADA' },
  },
];

async function dryRun(url: string, yaml: string, record: Record<string, unknown>) {
  const res = await fetch(`${url}/v1/pipelines/_dryrun`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pipeline: yaml, data: JSON.stringify([record]) }),
  });
  return { status: res.status, text: await res.text() };
}

t.test('every processor through the dry run', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  for (const c of CASES) {
    const yaml = c.timeIndex
      ? `processors:\n  - ${c.yaml}\n`
      : `processors:\n  - ${c.yaml}\n  - epoch:\n      field: t\n      resolution: ms\n`;
    const res = await dryRun(server.url, yaml, c.timeIndex ? c.input : { ...c.input, t: 1700000000000 });
    t.equal(res.status, 200, `${c.processor}: ${res.text}`);
    if (res.status !== 200) continue;
    const row =
      (JSON.parse(res.text) as Array<{ rows: Array<Array<{ key: string; value: unknown }>> }>)[0]?.rows[0] ?? [];
    const values = new Map(row.map((cell) => [cell.key, cell.value]));
    for (const [key, want] of Object.entries(c.expect)) {
      if (want === undefined) t.notOk(values.has(key), `${c.processor}: no ${key}`);
      else t.same(values.get(key), want, `${c.processor}: ${key}`);
    }
  }

  // filter drops the record: nothing left to show.
  const filtered = await dryRun(
    server.url,
    "processors:\n  - filter: {field: level, targets: ['debug']}\n  - epoch: {field: t, resolution: ms}\n",
    { level: 'debug', t: 1700000000000 },
  );
  t.equal(filtered.status, 200);
  t.same(JSON.parse(filtered.text), [], 'filter: the record is dropped');

  for (const [processor, yaml, named] of [
    ['letter', 'letter: {field: m, method: upper, colour: red}', 'colour'],
    ['dissect', 'dissect: {field: m}', 'pattern'],
    ['gsub', 'gsub: {field: m, replacement: x}', 'pattern'],
    ['vrl', 'vrl: {source: \'parse_grok!(.m, "%{WORD}")\'}', 'parse_grok'],
  ] as const) {
    const res = await dryRun(server.url, `processors:\n  - ${yaml}\n`, { m: 'x' });
    t.equal(res.status, 400, `${processor}: refused`);
    t.match(JSON.parse(res.text).error, new RegExp(named), `${processor}: the message names ${named}`);
  }
});
