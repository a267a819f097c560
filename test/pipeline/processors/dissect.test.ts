import t from 'tap';
import { ProcessorOptions } from '../../../src/pipeline/processor.js';
import { dissect, parseDissectPattern } from '../../../src/pipeline/processors/dissect.js';
import type { PipelineRecord } from '../../../src/pipeline/value.js';

const cases: {
  name: string;
  options: Record<string, unknown>;
  input: string;
  expected: Record<string, string> | RegExp;
}[] = [
  {
    name: 'reference access log example',
    options: { pattern: '%{ip} - %{user} [%{ts}] "%{method} %{path} %{proto}" %{status} %{size}' },
    input: '1.2.3.4 - bob [25/May/2024:20:16:37 +0800] "GET /a HTTP/1.1" 200 512',
    expected: {
      ip: '1.2.3.4',
      user: 'bob',
      ts: '25/May/2024:20:16:37 +0800',
      method: 'GET',
      path: '/a',
      proto: 'HTTP/1.1',
      status: '200',
      size: '512',
    },
  },
  { name: 'prefix literal', options: { pattern: '[%{a}] %{b}' }, input: '[x] y z', expected: { a: 'x', b: 'y z' } },
  { name: 'suffix literal', options: { pattern: '%{a}!' }, input: 'hey!', expected: { a: 'hey' } },
  {
    name: 'trailing text left over',
    options: { pattern: '%{a}!' },
    input: 'hey! you',
    expected: /No matching pattern found/,
  },
  { name: 'prefix mismatch', options: { pattern: '<%{a}>' }, input: 'x>', expected: /No matching pattern found/ },
  { name: 'skip keys', options: { pattern: '%{} %{?b} %{c}' }, input: '1 2 3', expected: { c: '3' } },
  { name: 'reference keys produce nothing', options: { pattern: '%{*k} %{&k}' }, input: 'name bob', expected: {} },
  {
    name: 'append in order',
    options: { pattern: '%{+a/2} %{+a/1} %{+a/3}' },
    input: 'b a c',
    expected: { a: 'a b c' },
  },
  { name: 'append with plain first', options: { pattern: '%{a} %{+a}' }, input: 'x y', expected: { a: 'x y' } },
  { name: 'padding', options: { pattern: '%{a->} %{b}' }, input: 'x     y', expected: { a: 'x', b: 'y' } },
  {
    name: 'padding, multi-char delimiter',
    options: { pattern: '%{a->}-| %{b}' },
    input: 'x----| y',
    expected: { a: 'x', b: 'y' },
  },
  { name: 'empty capture', options: { pattern: '%{a},%{b},%{c}' }, input: ',,z', expected: { a: '', b: '', c: 'z' } },
  {
    name: 'first matching pattern wins',
    options: { patterns: ['%{a} %{b} %{c}', '%{a} %{b}'] },
    input: 'x y',
    expected: { a: 'x', b: 'y' },
  },
  {
    name: 'multi-char delimiter must match in full',
    options: { pattern: '%{a} - %{b}' },
    input: 'x y - z',
    expected: /No matching/,
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const p = dissect(new ProcessorOptions('dissect', { field: 'line', ...c.options }));
    const record: PipelineRecord = { line: c.input };
    if (c.expected instanceof RegExp) {
      t.throws(() => p.exec(record), c.expected);
      return;
    }
    p.exec(record);
    const { line: _line, ...rest } = record;
    t.same(rest, c.expected);
  });
}

const invalid: [string, RegExp][] = [
  ['', /empty pattern/],
  ['%{a}%{b}', /without a delimiter/],
  ['%{a', /unclosed/],
  ['%{+}', /without a name/],
  ['%{?} x', /without a name/],
  ['%{->} x', /without a name/],
  ['%{+a/x} b', /invalid append order/],
];
for (const [pattern, message] of invalid) {
  t.test(`invalid pattern ${JSON.stringify(pattern)}`, async (t) => {
    t.throws(() => parseDissectPattern(pattern), message);
  });
}

t.test('options', async (t) => {
  t.throws(() => dissect(new ProcessorOptions('dissect', { field: 'a' })), /missing option: pattern or patterns/);
  t.throws(
    () => dissect(new ProcessorOptions('dissect', { field: 'a', pattern: '%{a' })),
    /Processor dissect: invalid pattern/,
  );
  const p = dissect(new ProcessorOptions('dissect', { field: 'a', pattern: '%{x}' }));
  t.throws(() => p.exec({ a: 1 }), /expect string value, but got integer/);
});
