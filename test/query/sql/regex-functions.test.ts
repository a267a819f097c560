import t from 'tap';
import { rows, TestEnv } from './helpers/test-env.js';

// The regex functions run on re2js; these pin where RE2 / Rust semantics differ from JS RegExp.

async function value(sql: string): Promise<unknown> {
  const r = await rows(TestEnv.memory(1), sql);
  return r[0]?.[0];
}

t.test('RE2 syntax: scoped flags, \\pL, POSIX classes, \\z, \\Q..\\E', async (t) => {
  t.equal(await value("SELECT 'aB' ~ 'a(?i:b)'"), true);
  t.equal(await value("SELECT 'AB' ~ '^a(?i:b)'"), false);
  t.equal(await value("SELECT 'héllo' ~ '^\\pL+$'"), true);
  t.equal(await value("SELECT 'abc1' ~ '^[[:alpha:]]+[[:digit:]]$'"), true);
  t.equal(await value("SELECT 'ab' ~ 'b\\z'"), true);
  t.equal(await value("SELECT 'a.b' ~ '^\\Qa.b\\E$'"), true);
  t.equal(await value("SELECT 'a\nb' ~ 'a.b'"), false, '. skips newlines unless s is set');
  t.equal(await value("SELECT regexp_like('a\nb', 'a.b', 's')"), true);
  t.equal(await value("SELECT regexp_like('x\nab', '^ab', 'm')"), true);
});

t.test('nested quantifiers cannot stall a query', async (t) => {
  const began = performance.now();
  t.equal(await value(`SELECT '${'a'.repeat(5_000)}b' ~ '^(a+)+$'`), false);
  t.equal(await value(`SELECT regexp_count('${'a'.repeat(5_000)}', '(a|aa)*c')`), 0n);
  t.ok(performance.now() - began < 2_000);
});

t.test('regexp_replace expands numbered, braced, named and backslash references as DataFusion does', async (t) => {
  t.equal(await value("SELECT regexp_replace('web-1', '(\\w+)-(\\d)', '$2:$1')"), '1:web');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: `${1}` is a regex replacement template.
  t.equal(await value("SELECT regexp_replace('web-1', '(\\w+)-(\\d)', '${2}x${1}')"), '1xweb');
  t.equal(await value("SELECT regexp_replace('web-1', '(?P<h>\\w+)-\\d', '$h!')"), 'web!');
  t.equal(await value("SELECT regexp_replace('web-1', '(\\w+)-(\\d)', '\\2\\1')"), '1web');
  t.equal(await value("SELECT regexp_replace('web-1', '(\\w+)-(\\d)', '$1x')"), '', '$1x names group 1x');
  t.equal(await value("SELECT regexp_replace('ab', 'b', '$$&')"), 'a$&', '$$ is a dollar; $& is not special');
  t.equal(await value("SELECT regexp_replace('aaa', 'a*', '-', 'g')"), '-', 'no empty match right after a match');
  t.equal(await value("SELECT regexp_replace('abc', 'x*', '-', 'g')"), '-a-b-c-');
});

t.test('regexp_count counts matches as Rust find_iter does', async (t) => {
  t.equal(await value("SELECT regexp_count('baaac', 'a*')"), 3n);
  t.equal(await value("SELECT regexp_count('a,b,c', ',')"), 2n);
});

t.test('a bad pattern or flag is an execution error naming the pattern as written', async (t) => {
  await t.rejects(rows(TestEnv.memory(1), "SELECT regexp_like('a', '(a', 'i')"), {
    code: 3001,
    message:
      'Arrow error: Compute error: Regular expression did not compile: error parsing regexp: missing closing ): `(a`',
  });
  await t.rejects(rows(TestEnv.memory(1), "SELECT 'a' ~ 'a(?=b)'"), { code: 3001 });
  await t.rejects(rows(TestEnv.memory(1), "SELECT regexp_like('a', 'a', 'x')"), {
    code: 3001,
    message: "Execution error: regexp flag 'x' is not supported",
  });
});
