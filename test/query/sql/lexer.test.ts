import t from 'tap';
import { tokenize } from '../../../src/query/sql/parse/lexer.js';
import type { DbError } from '../../../src/shared/errors.js';

const kinds = (sql: string): string[] => tokenize(sql).map((tok) => `${tok.kind}:${tok.value}`);

t.test('splits words, numbers, strings and operators and ends with eof', async (t) => {
  t.same(kinds("SELECT a1, 1.5e3 FROM t WHERE x <> 'y';"), [
    'word:SELECT',
    'word:a1',
    'op:,',
    'number:1.5e3',
    'word:FROM',
    'word:t',
    'word:WHERE',
    'word:x',
    'op:<>',
    'string:y',
    'op:;',
    'eof:',
  ]);
});

t.test('reads multi-character operators greedily', async (t) => {
  t.same(kinds('a::INT <= b >= c != d || e'), [
    'word:a',
    'op:::',
    'word:INT',
    'op:<=',
    'word:b',
    'op:>=',
    'word:c',
    'op:!=',
    'word:d',
    'op:||',
    'word:e',
    'eof:',
  ]);
});

t.test('unescapes doubled quotes in strings and identifiers', async (t) => {
  const [s, d, b] = tokenize(`'it''s' "a""b" \`c\`\`d\``);
  t.equal(s?.value, "it's");
  t.equal(d?.value, 'a"b');
  t.equal(d?.quote, '"');
  t.equal(b?.value, 'c`d');
  t.equal(b?.quote, '`');
});

t.test('skips line comments and nested block comments', async (t) => {
  t.same(kinds('SELECT -- note\n1 /* a /* nested */ comment */ + 2'), [
    'word:SELECT',
    'number:1',
    'op:+',
    'number:2',
    'eof:',
  ]);
});

t.test('numbers may start with a dot and carry signed exponents', async (t) => {
  t.same(kinds('.5 1. 2E-3 4e+2'), ['number:.5', 'number:1.', 'number:2E-3', 'number:4e+2', 'eof:']);
});

t.test('records 1-based line and column of every token', async (t) => {
  const tokens = tokenize('SELECT\n  a,\n\tb');
  t.same(
    tokens.slice(0, 4).map((tok) => [tok.value, tok.line, tok.column]),
    [
      ['SELECT', 1, 1],
      ['a', 2, 3],
      [',', 2, 4],
      ['b', 3, 2],
    ],
  );
});

t.test('an unterminated string is a syntax error located at its opening quote', async (t) => {
  t.throws(() => tokenize("SELECT 'abc"), {
    code: 2000,
    message: 'Invalid SQL syntax: sql parser error: Unterminated string literal at Line: 1, Column: 8',
  });
});

t.test('an unterminated block comment is a syntax error', async (t) => {
  const err = t.throws(() => tokenize('SELECT 1 /* open')) as DbError;
  t.match(err.message, /Unexpected EOF while in a multi-line comment/);
});

t.test('identifiers may contain non-ASCII letters', async (t) => {
  t.same(kinds('größe'), ['word:größe', 'eof:']);
});
