/**
 * regexp_instr and regexp_substr over HTTP: 1-based character positions (a character outside
 * the BMP counts once), the N-th match, capture groups, flags, and DataFusion's NULL and error
 * rules.
 */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  [
    "SELECT regexp_instr('ABCDEF', 'C(.)(..)'), regexp_instr('hello world', 'o'), regexp_instr('abcabcabc', 'abc', 5), regexp_instr('abcabcabc', 'abc', 1, 3), regexp_instr('abcabcabc', 'abc', 1, 4)",
    [[3, 5, 7, 7, 0]],
  ],
  [
    "SELECT regexp_instr('12 abc def ghi 34', '(abc) (def) (ghi)', 1, 1, 'i', 2), regexp_instr('aBc', 'b', 1, 1, 'i'), regexp_instr('abc', '(x)?b', 1, 1, '', 1), regexp_instr('abc', 'b', 10)",
    [[8, 2, 0, 0]],
  ],
  ["SELECT regexp_instr('数据融合📊🔥x', 'x'), regexp_instr('x📊ab', 'b')", [[7, 4]]],
  [
    "SELECT regexp_instr(NULL, 'a'), regexp_instr('a', NULL), regexp_instr('', 'a'), regexp_instr('abc', ''), regexp_instr(NULL, '')",
    [[null, null, 0, 0, 0]],
  ],
  [
    "SELECT s, regexp_instr(s, '[0-9]') FROM words ORDER BY ts",
    [
      ['ab1', 3],
      ['x', 0],
      [null, null],
    ],
  ],
  [
    "SELECT regexp_instr('abc', 'b', 0)",
    { status: 500, code: 3001, message: 'regexp_instr() requires start to be 1-based' },
  ],
  ["SELECT regexp_instr('abc', 'b', 1, 0)", { status: 500, code: 3001, message: 'N must be 1 or greater' }],
  ["SELECT regexp_instr('abc', '(')", { status: 500, code: 3001, message: 'Regular expression did not compile' }],
  ["SELECT regexp_instr(1, 'a')", NO_SIGNATURE],
  ["SELECT regexp_instr('a', 'a', 'x')", NO_SIGNATURE],
  [
    "SELECT regexp_substr('Köln', '[a-zA-Z]ö[a-zA-Z]{2}'), regexp_substr('aBc', '(b|d)', 1, 1, 'i'), regexp_substr('Hellooo Woorld', '(..or)'), regexp_substr('abc', 'x')",
    [['Köln', 'B', 'Woor', null]],
  ],
  [
    "SELECT regexp_substr('a1b2c3', '[0-9]', 1, 2), regexp_substr('a1b2c3', '[a-z]([0-9])', 3, 1, '', 1), regexp_substr('a1b2c3', '[0-9]', 1, 9), regexp_substr('aBc', 'B', 1, 1, 'c')",
    [['2', '2', null, 'B']],
  ],
  ["SELECT regexp_substr(NULL, 'a'), regexp_substr('abc', ''), regexp_substr('abc', NULL)", [[null, null, null]]],
  [
    "SELECT regexp_substr('abc', 'b', 1, 1, 'g')",
    { status: 500, code: 3001, message: 'regexp_substr() does not support the "global" option' },
  ],
  ["SELECT regexp_substr('abc', 'b', 0)", { status: 500, code: 3001, message: 'requires start to be 1 based' }],
  ['SELECT regexp_substr(1, 2)', NO_SIGNATURE],
];

t.test('regexp_instr and regexp_substr', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE words (ts TIMESTAMP TIME INDEX, s STRING)',
    "INSERT INTO words VALUES (1, 'ab1'), (2, 'x'), (3, NULL)",
  ]),
);
