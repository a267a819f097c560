/** DataFusion's string functions over HTTP: results, NULL handling and refused calls. */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const EXECUTION = { status: 500, code: 3001 };

const cases: FunctionCase[] = [
  ["SELECT instr('hello', 'l'), instr('hello', 'z'), instr('héllo', 'l')", [[3, 0, 3]]],
  ["SELECT position('l' IN 'hello'), position('hello', 'lo'), strpos('abc', '')", [[3, 4, 1]]],
  ["SELECT instr(NULL, 'a'), position(NULL IN 'a')", [[null, null]]],
  ["SELECT contains('observability', 'serv'), contains('abc', 'd'), contains(NULL, 'a')", [[true, false, null]]],
  ["SELECT overlay('Txxxxas' PLACING 'hom' FROM 2 FOR 4), overlay('Txxxxas', 'hom', 2)", [['Thomas', 'Thomxas']]],
  ["SELECT overlay('abc' PLACING 'XY' FROM 5), overlay(NULL, 'x', 1)", [['abcXY', null]]],
  [
    "SELECT translate('12345', '143', 'ax'), translate('héllo', 'é', 'e'), translate('abc', '', 'x')",
    [['a2x5', 'hello', 'abc']],
  ],
  [
    "SELECT levenshtein('kitten', 'sitting'), levenshtein('', 'abc'), levenshtein('héllo', 'hello'), levenshtein(NULL, 'a')",
    [[3, 3, 1, null]],
  ],
  ["SELECT ascii('a'), ascii('é'), ascii(''), ascii(NULL)", [[97, 233, 0, null]]],
  ['SELECT chr(65), chr(233), chr(NULL)', [['A', 'é', null]]],
  ['SELECT chr(0)', { ...EXECUTION, message: 'null character not permitted' }],
  ['SELECT chr(1114112)', { ...EXECUTION, message: 'requested character too large for encoding' }],
  ["SELECT bit_length('abc'), bit_length('é'), bit_length(NULL)", [[24, 16, null]]],
  ["SELECT find_in_set('b', 'a,b,c'), find_in_set('z', 'a,b,c'), find_in_set(NULL, 'a')", [[2, 0, null]]],
  [
    "SELECT substr_index('www.apache.org', '.', 1), substr_index('www.apache.org', '.', -2), substring_index('a.b', '.', 5), substr_index('a.b', '.', 0)",
    [['www', 'apache.org', 'a.b', '']],
  ],
  [
    "SELECT string_to_array('a,b,,c', ','), string_to_array('a,b,,c', ',', '')",
    [
      [
        ['a', 'b', '', 'c'],
        ['a', 'b', null, 'c'],
      ],
    ],
  ],
  [
    "SELECT string_to_array('abc', NULL), string_to_array('abc', ''), string_to_list(NULL, ',')",
    [[['a', 'b', 'c'], ['abc'], null]],
  ],
  ['SELECT length(uuid()), uuid() = uuid()', [[36, false]]],
  [
    "SELECT split_part('a-b-c', '-', 2), lpad('7', 3, '0'), rpad('ab', 4, 'xy'), initcap('hello wORLD')",
    [['b', '007', 'abxy', 'Hello World']],
  ],
  ['SELECT instr(1, 2)', NO_SIGNATURE],
  ["SELECT levenshtein('a')", NO_SIGNATURE],
  ["SELECT translate('a', 'b')", NO_SIGNATURE],
  ['SELECT uuid(1)', NO_SIGNATURE],
];

t.test('string functions', (t) => checkFunctionCases(t, cases));
