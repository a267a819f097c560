import t from 'tap';
import { ProcessorOptions } from '../../../src/pipeline/processor.js';
import { gsub } from '../../../src/pipeline/processors/gsub.js';
import type { PipelineRecord } from '../../../src/pipeline/value.js';

const cases: [string, string, string, string | RegExp][] = [
  ['\\.', '', '1573840000.000', '1573840000000'],
  ['o', '0', 'foo boo', 'f00 b00'],
  ['(\\w+)@(\\w+)', '$2 at $1', 'me@home you@work', 'home at me work at you'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['(?P<user>\\w+)@(?P<host>\\w+)', '${host}/${user}', 'me@home', 'home/me'],
  ['(\\d)', '$1x', 'a1', 'a'], // `$1x` names group "1x", which does not exist
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a table_suffix or replacement template, not a JS one.
  ['(\\d)', '${1}x', 'a1', 'a1x'],
  ['a', '$$', 'banana', 'b$n$n$'],
  ['x*', '-', 'abc', '-a-b-c-'],
  ['a*', '-', 'baaac', '-b-c-'], // no empty match right after a match (Rust iteration)
  ['z', 'y', 'abc', 'abc'],
];

for (const [pattern, replacement, input, expected] of cases) {
  t.test(`s/${pattern}/${replacement}/ on ${input}`, async (t) => {
    const p = gsub(new ProcessorOptions('gsub', { field: 'v', pattern, replacement }));
    const record: PipelineRecord = { v: input };
    p.exec(record);
    t.equal(record.v, expected);
  });
}

t.test('target field, type errors, options', async (t) => {
  const p = gsub(new ProcessorOptions('gsub', { field: 'v, w', pattern: '-', replacement: '+' }));
  const record: PipelineRecord = { v: 'a-b' };
  p.exec(record);
  t.same(record, { v: 'a-b', w: 'a+b' });
  t.throws(() => p.exec({ v: 3 }), /expect string value, but got integer/);
  t.throws(() => gsub(new ProcessorOptions('gsub', { field: 'v', replacement: '' })), /missing option: pattern/);
  t.throws(() => gsub(new ProcessorOptions('gsub', { field: 'v', pattern: 'x' })), /missing option: replacement/);
  t.throws(() => gsub(new ProcessorOptions('gsub', { field: 'v', pattern: '(', replacement: '' })), /invalid regex/);
});
