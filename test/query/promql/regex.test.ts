import t from 'tap';
import { compileAnchoredRegex, expandGoTemplate, GoRegexError } from '../../../src/query/promql/regex.js';

const matches = (pattern: string, value: string): boolean => compileAnchoredRegex(pattern).test(value);

t.test('regexes are fully anchored and . matches newlines, as Prometheus compiles them', async (t) => {
  t.ok(matches('pro.*', 'production'));
  t.notOk(matches('pro', 'production'));
  t.ok(matches('a|b', 'b'));
  t.notOk(matches('a|b', 'ab'));
  t.ok(matches('.*', 'line\nbreak'));
});

t.test('inline flags apply to their group only, as in RE2', async (t) => {
  t.ok(matches('(?i:PRO).*', 'production'));
  t.notOk(matches('(?i:PRO)DUCTION', 'production'));
  t.ok(matches('.*(?i:TION)', 'production'));
  t.ok(matches('((?i)PRO).*', 'production'));
  t.notOk(matches('((?i)PRO)D.*', 'prodUction'.toUpperCase().replace('PROD', 'prod')));
  t.ok(matches('(?i)[a-c]x', 'Bx'));
  t.ok(matches('a(?i)b', 'aB'));
  t.notOk(matches('a(?i)b', 'AB'));
  t.ok(matches('(?s-i:a.b)', 'a\nb'));
  t.notOk(matches('(?-s:a.b)', 'a\nb'));
});

t.test('RE2-only syntax translates: \\z, \\A, \\Q..\\E, \\pL, POSIX classes, named groups', async (t) => {
  t.ok(matches('\\Aab\\z', 'ab'));
  t.ok(matches('\\Qa.b\\E', 'a.b'));
  t.notOk(matches('\\Qa.b\\E', 'axb'));
  t.ok(matches('\\pL+', 'héllo'));
  t.ok(matches('\\p{Greek}+', 'αβ'));
  t.ok(matches('[[:alpha:]]+[[:digit:]]', 'abc1'));
  t.ok(matches('[[:^digit:]]+', 'abc'));
  t.ok(matches('(?P<word>\\w+)', 'abc'));
  t.ok(matches('a{', 'a{'), 'a brace that is no repetition is literal');
  t.ok(matches('\\-\\:', '-:'), 'escaped punctuation is literal');
});

t.test('patterns RE2 rejects fail with Go wording', async (t) => {
  t.throws(() => compileAnchoredRegex('(a'), { message: 'error parsing regexp: missing closing ): `(a`' });
  t.throws(() => compileAnchoredRegex('a**'), {
    message: 'error parsing regexp: invalid nested repetition operator: `**`',
  });
  t.throws(() => compileAnchoredRegex('*a'), {
    message: 'error parsing regexp: missing argument to repetition operator: `*`',
  });
  t.throws(
    () => compileAnchoredRegex('\\1'),
    { message: 'error parsing regexp: invalid escape sequence: `\\1`' },
    'no backreferences',
  );
  t.throws(
    () => compileAnchoredRegex('(?<=a)b'),
    { message: 'error parsing regexp: invalid named capture: `(?<=a)b`' },
    'no lookbehind (Go reads `(?<` as a named group)',
  );
  t.ok(new GoRegexError('x') instanceof Error);
});

t.test('label_replace templates expand like Go Regexp.Expand', async (t) => {
  const match = /^(?<first>[a-z]+)-(\d+)$/u.exec('abc-42') as RegExpExecArray;
  t.equal(expandGoTemplate('$1/$2', match), 'abc/42');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Go template, not a JS one.
  t.equal(expandGoTemplate('${2}x', match), '42x');
  t.equal(expandGoTemplate('$2x', match), '', '$2x names the group "2x", which does not exist');
  t.equal(expandGoTemplate('$first', match), 'abc');
  t.equal(expandGoTemplate('$$1', match), '$1');
  t.equal(expandGoTemplate('cost: $', match), 'cost: $');
  t.equal(expandGoTemplate('$9', match), '');
});

t.test('literal shapes answer like the engine does', async (t) => {
  const values = ['', 'pro', 'production', 'xproduction', 'a\nproduction', 'pro\n', 'b', 'ab'];
  for (const pattern of ['pro', 'pro.*', '.*pro', '.*pro.*', '.*', '.*.*', 'a|b', 'a|', '', 'prod-1|pro']) {
    // A group keeps the pattern off the string fast paths, so this compares them with re2js.
    const engine = compileAnchoredRegex(`(?:${pattern})`);
    for (const value of values) {
      t.equal(matches(pattern, value), engine.test(value), `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`);
    }
  }
});

t.test('nested quantifiers match in linear time', async (t) => {
  const began = performance.now();
  t.notOk(matches('(a+)+', `${'a'.repeat(10_000)}b`));
  t.notOk(matches('(a|aa)*c', 'a'.repeat(10_000)));
  t.ok(performance.now() - began < 1_000);
});

t.test('label_replace captures come from a whole-value match', async (t) => {
  const match = compileAnchoredRegex('(?P<first>[a-z]+)-(\\d+)(x)?').exec('abc-42');
  t.ok(match);
  if (match === null) return;
  t.equal(expandGoTemplate('$first/$2/$3', match), 'abc/42/', 'an unmatched group expands to nothing');
  t.equal(compileAnchoredRegex('[a-z]+').exec('abc-42'), null, 'no partial match');
});
