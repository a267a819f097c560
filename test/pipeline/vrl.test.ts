/** The `vrl` processor and its VRL subset (src/pipeline/vrl/README.md). */
import t from 'tap';
import { ProcessorOptions } from '../../src/pipeline/processor.js';
import { vrl } from '../../src/pipeline/processors/vrl.js';
import { type PipelineRecord, PipelineTimestamp, type PipelineValue } from '../../src/pipeline/value.js';

interface Case {
  name: string;
  source: string;
  input?: PipelineRecord;
  /** The record after the program, or the records of a one-to-many result. */
  expected?: PipelineRecord | PipelineRecord[];
  error?: string | RegExp;
}

const ts = (iso: string, extraNanos = 0n) =>
  new PipelineTimestamp(BigInt(Date.parse(iso)) * 1_000_000n + extraNanos, 'ns');

function run(source: string, input: PipelineRecord) {
  return vrl(new ProcessorOptions('vrl', { source })).exec(input);
}

/** Runs `expr` and returns the value it leaves in `.out`. */
function value(expr: string, input: PipelineRecord = {}): Case {
  return { name: expr, source: `.out = ${expr}\n.`, input };
}

function is(c: Case, out: PipelineValue): Case {
  return { ...c, expected: { ...c.input, out } };
}

const cases: Case[] = [
  {
    name: 'GreptimeDB example: nested assignment, del, now',
    source: '.name.a = .user_info.name\n.name.b = .user_info.name\ndel(.user_info)\n.',
    input: { user_info: { name: 'certain_name' } },
    expected: { name: { a: 'certain_name', b: 'certain_name' } },
  },
  {
    name: 'statements separated by ; and comments',
    source: '.a = 1; .b = 2 # two\n# a comment line\n.',
    input: {},
    expected: { a: 1, b: 2 },
  },
  {
    name: 'quoted path keys and indexes',
    source: '."a b" = .x[1]\n.y[2] = "z"\n.',
    input: { x: [1, 2] },
    expected: { x: [1, 2], 'a b': 2, y: [null, null, 'z'] },
  },
  { name: 'negative index', source: '.last = .x[-1]\n.', input: { x: [1, 2, 3] }, expected: { x: [1, 2, 3], last: 3 } },
  { name: 'missing path reads as null', source: '.b = .a.b.c\n.', input: {}, expected: { b: null } },
  {
    name: 'assigning through a scalar replaces it',
    source: '.a.b = 1\n.',
    input: { a: 'x' },
    expected: { a: { b: 1 } },
  },
  {
    name: 'local variables have value semantics',
    source: 'x = .\n.a = 2\nx.b = 3\n.copy = x\n.',
    input: { a: 1 },
    expected: { a: 2, copy: { a: 1, b: 3 } },
  },
  {
    name: 'the result may be an object literal',
    source: '{"msg": upcase(.m), "n": 1}',
    input: { m: 'hi' },
    expected: { msg: 'HI', n: 1 },
  },
  { name: 'replacing the root', source: '. = {"only": .keep}\n.', input: { keep: 1, drop: 2 }, expected: { only: 1 } },
  {
    name: 'merge assignment |=',
    source: '. |= parse_json!(.raw)\ndel(.raw)\n.',
    input: { raw: '{"a":1,"b":[true]}', c: 3 },
    expected: { c: 3, a: 1, b: [true] },
  },
  {
    name: 'if / else if / else',
    source: 'if .n > 10 {\n  .size = "big"\n} else if .n > 5 {\n  .size = "medium"\n}\nelse { .size = "small" }\n.',
    input: { n: 7 },
    expected: { n: 7, size: 'medium' },
  },
  { name: 'if without else', source: 'if exists(.a) { .had = true }\n.', input: {}, expected: {} },
  {
    name: 'fallible call with error assignment',
    source: 'parsed, err = parse_json(.raw)\n.ok = err == null\n.parsed = parsed\n.err = err != null\n.',
    input: { raw: '{bad' },
    expected: { raw: '{bad', ok: false, parsed: null, err: true },
  },
  {
    name: 'error assignment on success',
    source: 'n, err = to_int(.s)\n.n = n\n.err = err\n.',
    input: { s: '42' },
    expected: { s: '42', n: 42, err: null },
  },
  {
    name: 'failed typed call yields the default',
    source: 'n, _ = to_int(.s)\n.n = n\n.',
    input: { s: 'x' },
    expected: { s: 'x', n: 0 },
  },
  { name: 'error coalescing ??', source: '.n = to_int(.s) ?? -1\n.', input: { s: 'x' }, expected: { s: 'x', n: -1 } },
  {
    name: '|| falls back on null and false',
    source: '.v = .missing || "dflt"\n.w = "set" || "dflt"\n.',
    input: {},
    expected: { v: 'dflt', w: 'set' },
  },
  {
    name: 'one-to-many: an array of objects',
    source: '[{"a": 1}, merge(., {"b": 2})]',
    input: { x: 0 },
    expected: [{ a: 1 }, { x: 0, b: 2 }],
  },
  {
    name: 'one-to-many through map_values with a closure reading outer variables',
    source:
      'events = del(.events)\nid = del(.id)\nmap_values(array!(events)) -> |e| {\n  {"id": id, "type": e.type}\n}',
    input: { id: 'r1', events: [{ type: 'click' }, { type: 'scroll' }] },
    expected: [
      { id: 'r1', type: 'click' },
      { id: 'r1', type: 'scroll' },
    ],
  },
  {
    name: 'for_each sees and assigns outer variables',
    source: 'n = 0\nfor_each(.) -> |_k, v| { n = n + v }\n.n = n\n.',
    input: { a: 1, b: 2 },
    expected: { a: 1, b: 2, n: 3 },
  },
  {
    name: 'filter and map_keys',
    source: '. = filter(.) -> |k, v| { v != null }\nmap_keys(.) -> |k| { upcase(k) }',
    input: { a: 1, b: null, c: 'x' },
    expected: { A: 1, C: 'x' },
  },
  {
    name: 'one-to-many through the root',
    source: 'items = .items\n. = items\n.',
    input: { items: [{ i: 1 }, { i: 2 }] },
    expected: [{ i: 1 }, { i: 2 }],
  },
  is(value('1 + 2 * 3 - 4 / 2'), 5),
  is(value('7 % 3'), 1),
  is(value('5 / 2'), 2.5),
  is(value('"a" + "b"'), 'ab'),
  is(value('-.n', { n: 4 }), -4),
  is(value('9007199254740993 + 1'), 9007199254740994n),
  is(value('1 == 1.0 && "a" != "b" && [1, {"x": 2}] == [1, {"x": 2}]'), true),
  is(value('!(2 < 1) && 2 <= 2 && "b" > "a" && 3 >= 4'), false),
  is(value('"tab\\tquote\\"nl\\n\\u{e9}"'), 'tab\tquote"nl\né'),
  is(value("s'raw \\d {x}'"), 'raw \\d {x}'),
  is(value('to_string(12)'), '12'),
  is(value('to_string(.t)', { t: ts('2024-05-25T20:16:37.217Z') }), '2024-05-25T20:16:37.217Z'),
  is(value('to_int("-12")'), -12),
  is(value('to_int(3.9)'), 3),
  is(value('to_float("1.5")'), 1.5),
  is(value('to_bool("yes")'), true),
  is(value('downcase("AbC") + upcase("x") + strip_whitespace("  y \\n")'), 'abcXy'),
  is(value('contains("Hello", "ell")'), true),
  is(value('contains("Hello", "ELL", case_sensitive: false)'), true),
  is(value('starts_with("Hello", "He") && ends_with("Hello", "lo")'), true),
  is(value('replace("a-b-c", "-", "+")'), 'a+b+c'),
  is(value('replace("a-b-c", "-", "+", count: 1)'), 'a+b-c'),
  is(value('replace("user=bob id=7", r\'(?P<k>\\w+)=(\\w+)\', "$2:$k")'), 'bob:user 7:id'),
  is(value('split("a,b,,c", ",")'), ['a', 'b', '', 'c']),
  is(value('split("a,b,c", ",", limit: 2)'), ['a', 'b,c']),
  is(value('split("a1b22c", r\'\\d+\')'), ['a', 'b', 'c']),
  is(value('join(["a", "b"], ", ")'), 'a, b'),
  is(value('length("héllo") + length([1, 2]) + length({"a": 1})'), 9),
  is(value('slice("abcdef", 1, -1)'), 'bcde'),
  is(value('slice([1, 2, 3], start: 1)'), [2, 3]),
  is(value('parse_json!("{\\"a\\": [1, 2.5, null]}")'), { a: [1, 2.5, null] }),
  is(value('parse_json!("{\\"a\\": {\\"b\\": 1}}", max_depth: 1)'), { a: '{"b":1}' }),
  is(
    value('encode_json({"a": [1, "x", null], "t": .t})', { t: ts('2024-01-01T00:00:00Z') }),
    '{"a":[1,"x",null],"t":"2024-01-01T00:00:00Z"}',
  ),
  is(value("parse_regex!(.m, r'^(?P<ip>[\\d.]+) (?P<verb>[A-Z]+) (?P<path>\\S+)')", { m: '1.2.3.4 GET /a' }), {
    ip: '1.2.3.4',
    verb: 'GET',
    path: '/a',
  }),
  is(value('parse_regex!("ab", r\'(?P<x>a)(b)\', numeric_groups: true)'), { '0': 'ab', '1': 'a', '2': 'b', x: 'a' }),
  is(value('parse_timestamp!("2024-05-25 20:16:37.217", "%Y-%m-%d %H:%M:%S%.f")'), ts('2024-05-25T20:16:37.217Z')),
  is(value('parse_timestamp!("2024-05-25T20:16:37+0800", format: "%Y-%m-%dT%H:%M:%S%z")'), ts('2024-05-25T12:16:37Z')),
  is(
    value('parse_timestamp!("2024-05-25 20:16:37", "%Y-%m-%d %H:%M:%S", timezone: "Asia/Shanghai")'),
    ts('2024-05-25T12:16:37Z'),
  ),
  is(value('to_unix_timestamp(.t)', { t: ts('2024-05-25T20:16:37.217Z') }), 1716668197),
  is(value('to_unix_timestamp(.t, unit: "milliseconds")', { t: ts('2024-05-25T20:16:37.217Z') }), 1716668197217),
  is(
    value('to_unix_timestamp(.t, unit: "nanoseconds")', { t: ts('2024-05-25T20:16:37.217Z', 5n) }),
    1716668197217000005n,
  ),
  is(
    value('format_timestamp!(.t, "%Y/%m/%d %H:%M:%S%.3f %z")', { t: ts('2024-05-25T20:16:37.217Z') }),
    '2024/05/25 20:16:37.217 +0000',
  ),
  is(
    value('format_timestamp!(.t, "%FT%T%:z", timezone: "+08:00")', { t: ts('2024-05-25T20:16:37Z') }),
    '2024-05-26T04:16:37+08:00',
  ),
  is(
    value('format_timestamp!(.t, "%a %h %B %e %Z %.f %s", timezone: "-05:30")', { t: ts('2024-05-25T20:16:37.5Z') }),
    'Sat May May 25 -05:30 .500 1716668197',
  ),
  is(value('exists(.a) && !exists(.b) && exists(.n)', { a: 1, n: null }), true),
  is(value('is_null(null) && is_string("") && is_integer(1) && is_float(1.5) && is_object({}) && is_array([])'), true),
  is(value('is_integer(1.5) || is_string(1)'), false),
  is(value('merge({"a": {"x": 1}, "b": 1}, {"a": {"y": 2}})'), { a: { y: 2 }, b: 1 }),
  is(value('merge({"a": {"x": 1}}, {"a": {"y": 2}}, deep: true)'), { a: { x: 1, y: 2 } }),
  is(value('keys({"a": 1, "b": 2})'), ['a', 'b']),
  is(value('values({"a": 1, "b": [2]})'), [1, [2]]),
  {
    name: 'del returns the removed value',
    source: '.out = del(.a)\n.',
    input: { a: 5, b: 1 },
    expected: { b: 1, out: 5 },
  },
  { name: 'del of an array element', source: 'del(.a[0])\n.', input: { a: [1, 2] }, expected: { a: [2] } },
  is(value('string!(.s) + "!"', { s: 'x' }), 'x!'),
  // runtime errors
  {
    name: 'failing ! call fails the record',
    source: '.x = parse_json!(.raw)\n.',
    input: { raw: 'nope' },
    error: /^Processor vrl: function call error for "parse_json": unable to parse json/,
  },
  {
    name: 'type error in +',
    source: '.x = 1 + "a"\n.',
    input: {},
    error: 'Processor vrl: can\'t apply "+" to integer and string',
  },
  { name: 'division by zero', source: '.x = 1 / .z\n.', input: { z: 0 }, error: "Processor vrl: can't divide by zero" },
  {
    name: 'non-boolean condition',
    source: 'if .s { .x = 1 }\n.',
    input: { s: 'yes' },
    error: /an if condition must be a boolean, got string/,
  },
  {
    name: 'result is not an object',
    source: 'x = .a\nx',
    input: { a: 1 },
    error: 'Processor vrl: the program must return an object or an array of objects, got integer',
  },
  {
    name: 'array with a scalar',
    source: '[., 1]',
    input: {},
    error: 'Processor vrl: array element at index 1 must be an object, got integer',
  },
  {
    name: 'regex cannot be returned',
    source: ".re = r'a+'\n.",
    input: {},
    error: 'Processor vrl: regex values cannot be returned',
  },
  {
    name: 'parse_timestamp mismatch',
    source: '.t = parse_timestamp!(.s, "%Y-%m-%d")\n.',
    input: { s: 'x' },
    error: /function call error for "parse_timestamp": unable to parse "x"/,
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const record = c.input ?? {};
    if (c.error !== undefined) {
      t.throws(() => run(c.source, record), { name: 'RecordError', message: c.error });
      return;
    }
    const result = run(c.source, record);
    if (Array.isArray(c.expected)) t.strictSame(result, c.expected);
    else {
      t.equal(result, undefined);
      t.strictSame(record, c.expected);
    }
  });
}

t.test('now() is a nanosecond timestamp of the current time', async (t) => {
  const record: PipelineRecord = {};
  const before = BigInt(Date.now()) * 1_000_000n;
  run('.t = now()\n.', record);
  t.type(record.t, PipelineTimestamp);
  const v = record.t as PipelineTimestamp;
  t.equal(v.unit, 'ns');
  t.ok(v.nanos >= before && v.nanos <= BigInt(Date.now()) * 1_000_000n);
});

t.test('the record is changed in place and may be returned as is', async (t) => {
  const record: PipelineRecord = { a: 1 };
  t.equal(run('.b = 2\n.', record), undefined);
  t.strictSame(record, { a: 1, b: 2 });
});

const compileErrors: { name: string; source: string | undefined; error: string | RegExp }[] = [
  { name: 'source is required', source: undefined, error: /Processor vrl: missing option: source/ },
  {
    name: 'unsupported function',
    source: '. = parse_grok!(.m, "%{x}")\n.',
    error: /Processor vrl: unsupported VRL function: parse_grok/,
  },
  {
    name: 'a closure on a function that takes none',
    source: '.x = upcase(.a) -> |v| { v }\n.',
    error: /unsupported VRL construct: closure/,
  },
  { name: 'an iteration without its closure', source: '.x = map_values(.a)\n.', error: /map_values needs a closure/ },
  {
    name: 'a closure with the wrong parameter count',
    source: 'for_each(.) -> |v| { v }\n.',
    error: /the closure of for_each takes 2 parameter\(s\), got 1/,
  },
  { name: 'abort', source: 'abort\n.', error: /Processor vrl: unsupported VRL construct: abort/ },
  {
    name: 'timestamp literal',
    source: ".t = t'2021-01-01T00:00:00Z'\n.",
    error: /unsupported VRL construct: timestamp literal/,
  },
  { name: 'metadata path', source: '.x = %foo\n.', error: /unsupported VRL construct: metadata path/ },
  { name: 'undefined variable', source: '.x = y\n.', error: /undefined variable: y/ },
  { name: 'missing argument', source: '.x = contains(.a)\n.', error: /missing argument substring for contains/ },
  { name: 'unknown argument', source: '.x = upcase(.a, loud: true)\n.', error: /unknown argument loud for upcase/ },
  { name: 'too many arguments', source: '.x = upcase(.a, .b)\n.', error: /too many arguments for upcase/ },
  { name: 'invalid regex literal', source: ".x = parse_regex!(.a, r'(unclosed')\n.", error: /invalid regex/ },
  {
    name: 'parse_regex needs a regex',
    source: '.x = parse_regex!(.a, "x")\n.',
    error: /parse_regex needs a regex literal/,
  },
  {
    name: 'unsupported strftime directive',
    source: '.t = format_timestamp!(now(), "%Q")\n.',
    error: /unsupported strftime directive %Q/,
  },
  {
    name: 'unknown timezone',
    source: '.t = parse_timestamp!(.a, "%s", timezone: "Mars/Base")\n.',
    error: /unknown timezone: Mars\/Base/,
  },
  {
    name: 'final value is a string',
    source: '.a = 1\n"done"',
    error: /must return an object or an array of objects, but it returns string/,
  },
  { name: 'final assignment of a number', source: '.a = 1', error: /but it returns integer/ },
  { name: 'final comparison', source: '.a == 1', error: /but it returns boolean/ },
  { name: 'empty program', source: '# nothing', error: /the program is empty/ },
  { name: 'syntax error', source: '.a = (1 + \n.', error: /expected "\)"/ },
  { name: 'unterminated string', source: '.a = "abc\n.', error: /unterminated string/ },
  { name: 'del needs a path', source: 'del(1)\n.', error: /del takes exactly one path argument/ },
];

for (const c of compileErrors) {
  t.test(`compile: ${c.name}`, async (t) => {
    const options = c.source === undefined ? {} : { source: c.source };
    t.throws(() => vrl(new ProcessorOptions('vrl', options)), { name: 'PipelineError', message: c.error });
  });
}
