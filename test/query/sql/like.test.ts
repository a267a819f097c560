import t from 'tap';
import { compileLike } from '../../../src/query/sql/functions/like.js';

const like = (pattern: string, value: string, escapeChar: string | null = null): boolean =>
  compileLike(pattern, false, escapeChar).test(value);
const ilike = (pattern: string, value: string): boolean => compileLike(pattern, true, null).test(value);

t.test('% matches any run and _ exactly one character', async (t) => {
  t.ok(like('abc', 'abc'));
  t.notOk(like('abc', 'abcd'), 'no wildcard means the whole value');
  t.ok(like('a%', 'a'));
  t.ok(like('%', ''));
  t.notOk(like('_', ''));
  t.ok(like('a%c', 'abbbc'));
  t.notOk(like('a%c', 'abbbd'));
  t.ok(like('%b%b%', 'abxbx'));
  t.notOk(like('ab%ba', 'aba'), 'head and tail may not share characters');
  t.ok(like('a_c', 'abc'));
  t.notOk(like('a_c', 'ac'));
  t.ok(like('%a_c%', 'xxaxcyy'));
  t.ok(like('%a_%_c', 'aaxyc'), 'retries after a partial match');
  t.notOk(like('%a_%_c', 'acc'));
});

t.test('_ is one code point, astral characters included', async (t) => {
  t.ok(like('a_b', 'a😀b'));
  t.notOk(like('a__b', 'a😀b'));
  t.ok(like('%_', '😀'));
  t.ok(like('h_llo', 'héllo'));
});

t.test('the escape character makes % and _ literal', async (t) => {
  t.ok(like('100\\%', '100%'));
  t.notOk(like('100\\%', '1000'));
  t.ok(like('a\\_b', 'a_b'));
  t.notOk(like('a\\_b', 'axb'));
  t.ok(like('%!%%', 'x%y', '!'));
  t.notOk(like('%!%%', 'xy', '!'));
  t.ok(like('a\\', 'a\\'), 'a trailing escape character stands for itself');
  t.ok(like('a.*[b]', 'a.*[b]'), 'regex syntax is plain text');
});

t.test('ILIKE ignores case', async (t) => {
  t.ok(ilike('WEB-_', 'web-1'));
  t.ok(ilike('%ÉLLO', 'hello'.replace('e', 'é')));
  t.notOk(like('WEB-_', 'web-1'));
});

t.test('patterns that make a backtracking engine explode stay fast', async (t) => {
  const text = `${'a'.repeat(5_000)}b`;
  const began = performance.now();
  t.notOk(like(`${'%a'.repeat(30)}%c`, text));
  t.notOk(like(`${'%a_'.repeat(30)}%c`, text));
  t.ok(like(`${'%a'.repeat(30)}%b`, text));
  t.ok(performance.now() - began < 1_000, 'linear-ish, not exponential');
});
