import t from 'tap';
import { ProcessorOptions } from '../../../src/pipeline/processor.js';
import { regex } from '../../../src/pipeline/processors/regex.js';
import type { PipelineRecord } from '../../../src/pipeline/value.js';

const cases: {
  name: string;
  options: Record<string, unknown>;
  input: PipelineRecord;
  expected: PipelineRecord | RegExp;
}[] = [
  {
    name: 'named group (?<n>)',
    options: { field: 's', pattern: '(?<id>\\d+)' },
    input: { s: 'a 123 456' },
    expected: { s: 'a 123 456', s_id: '123' },
  },
  {
    name: 'named group (?P<n>)',
    options: { field: 's', pattern: '(?P<id>\\d+)' },
    input: { s: '7' },
    expected: { s: '7', s_id: '7' },
  },
  {
    name: 'target field is the prefix',
    options: { field: 's, t', pattern: '(?<id>\\d+)' },
    input: { s: '7' },
    expected: { s: '7', t_id: '7' },
  },
  {
    name: 'no match: nothing, no error',
    options: { field: 's', pattern: '(?<id>\\d+)' },
    input: { s: 'abc' },
    expected: { s: 'abc' },
  },
  {
    name: 'unmatched optional group is not set',
    options: { field: 's', pattern: '(?<a>x)|(?<b>y)' },
    input: { s: 'y' },
    expected: { s: 'y', s_b: 'y' },
  },
  {
    name: 'every matching pattern applies, later ones overwrite',
    options: { field: 's', patterns: ['(?<n>\\d+)', '(?<w>[a-z]+)', '(?<n>\\d+)$'] },
    input: { s: 'ab 12 34' },
    expected: { s: 'ab 12 34', s_n: '34', s_w: 'ab' },
  },
  {
    name: 'flags',
    options: { field: 's', pattern: '(?i)CMCD=(?<v>[\\d.]+)' },
    input: { s: 'cmcd=1.0' },
    expected: { s: 'cmcd=1.0', s_v: '1.0' },
  },
  {
    name: 'not a string',
    options: { field: 's', pattern: '(?<x>.)' },
    input: { s: 1.5 },
    expected: /expect string value, but got float/,
  },
  { name: 'missing', options: { field: 's', pattern: '(?<x>.)' }, input: {}, expected: /missing field: s/ },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const p = regex(new ProcessorOptions('regex', c.options));
    if (c.expected instanceof RegExp) {
      t.throws(() => p.exec(c.input), c.expected);
      return;
    }
    p.exec(c.input);
    t.same(c.input, c.expected);
  });
}

t.test('compile errors', async (t) => {
  t.throws(() => regex(new ProcessorOptions('regex', { field: 's' })), /missing option: pattern or patterns/);
  t.throws(() => regex(new ProcessorOptions('regex', { field: 's', pattern: '(\\d+)' })), /no named group/);
  t.throws(() => regex(new ProcessorOptions('regex', { field: 's', patterns: ['(?<a>x)', '(?<b>'] })), /invalid regex/);
  // RE2 syntax: no backreferences or lookarounds, so no pattern can backtrack for ever.
  t.throws(() => regex(new ProcessorOptions('regex', { field: 's', pattern: '(?<a>x)(?=y)' })), /invalid regex/);
});
