/** make_array, array_length/cardinality, array_element, array_has, array_position, array_to_string over HTTP. */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  [
    "SELECT make_array(1, 2, NULL), make_list('a', 'b'), arrow_typeof(make_array(1, 2.5))",
    [[[1, 2, null], ['a', 'b'], 'List(Float64)']],
  ],
  ['SELECT array_length(make_array(1, 2, 3)), cardinality(make_array(1)), array_length(NULL)', [[3, 1, null]]],
  [
    'SELECT array_element(make_array(1, 2, 3), 1), array_element(make_array(1, 2, 3), -1), array_element(make_array(1, 2, 3), 4), array_extract(make_array(1, 2), 0)',
    [[1, 3, null, null]],
  ],
  [
    "SELECT array_has(make_array('a', 'b'), 'b'), array_has(make_array(1, 2), 3), array_contains(make_array(1, NULL), 1), array_has(NULL, 1)",
    [[true, false, true, null]],
  ],
  [
    'SELECT array_position(make_array(5, 6, 7), 7), array_position(make_array(5, 6), 9), array_indexof(make_array(1, 1), 1)',
    [[3, null, 1]],
  ],
  [
    "SELECT array_to_string(make_array(1, NULL, 3), '-'), array_to_string(make_array(1, NULL, 3), '-', '*'), array_join(make_array('a', 'b'), ''), array_to_string(NULL, ',')",
    [['1-3', '1-*-3', 'ab', null]],
  ],
  ["SELECT array_to_string(string_to_array('a,b,c', ','), '|')", [['a|b|c']]],
  ['SELECT array_length(1)', NO_SIGNATURE],
  ["SELECT array_element(make_array(1), 'a')", NO_SIGNATURE],
  ['SELECT array_to_string(make_array(1))', NO_SIGNATURE],
];

t.test('array functions', (t) => checkFunctionCases(t, cases));
