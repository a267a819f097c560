/** DataFusion's array functions over HTTP: reading lists (length, element, has, position, to_string) and building them. */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  // Brackets: `[a, b]` is make_array, `list[i]` array_element (1-based), `list[i:j]` array_slice.
  [
    "SELECT [1, 2, NULL], ['a', 'b'][2], [10, 20, 30][-1], [10, 20][3], [[1, 2], [3]][1][2], [1, 2, 3, 4][2:3], array_length([])",
    [[[1, 2, null], 'b', 30, null, 2, [2, 3], 0]],
  ],
  ["SELECT ARRAY[1, 2][2], array_length(ARRAY['a']), ARRAY[]", [[2, 1, []]]],
  [
    "SELECT k, vs[2], vs[k] FROM (SELECT 1 AS k, ['x', 'y'] AS vs UNION ALL SELECT 2, ['z']) ORDER BY k",
    [
      [1, 'y', 'x'],
      [2, null, null],
    ],
  ],
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
  [
    'SELECT array_append(make_array(1, 2), 3), array_append(make_array(1), NULL), array_prepend(0, make_array(1)), array_push_back(NULL, 1)',
    [[[1, 2, 3], [1, null], [0, 1], null]],
  ],
  [
    'SELECT array_concat(make_array(1), make_array(2, 3), NULL), array_cat(make_array(1.5), make_array(2.5))',
    [
      [
        [1, 2, 3],
        [1.5, 2.5],
      ],
    ],
  ],
  [
    'SELECT array_slice(make_array(1, 2, 3, 4, 5, 6, 7, 8), 3, 6), array_slice(make_array(1, 2, 3, 4, 5, 6, 7, 8), -3, -1), array_slice(make_array(1, 2, 3, 4, 5), 1, 5, 2), array_slice(make_array(1, 2), 5, 9)',
    [[[3, 4, 5, 6], [6, 7, 8], [1, 3, 5], []]],
  ],
  [
    "SELECT array_sort(make_array(3, NULL, 1, 2)), array_sort(make_array(3, NULL, 1), 'DESC', 'NULLS LAST'), array_reverse(make_array('a', 'b'))",
    [
      [
        [null, 1, 2, 3],
        [3, 1, null],
        ['b', 'a'],
      ],
    ],
  ],
  [
    'SELECT array_remove(make_array(1, 2, 1), 1), array_remove_all(make_array(1, 2, 1), 1), array_remove(make_array(1), NULL)',
    [[[2, 1], [2], null]],
  ],
  [
    'SELECT array_max(make_array(3, NULL, 7)), array_min(make_array(3, NULL, 7)), array_max(make_array(NULL))',
    [[7, 3, null]],
  ],
  [
    'SELECT array_empty(make_array(1)), empty(array_slice(make_array(1), 3, 4)), array_empty(NULL)',
    [[false, true, null]],
  ],
  [
    'SELECT array_has_all(make_array(1, 2, 3), make_array(1, 3)), array_has_all(make_array(1), make_array(1, 4)), array_has_any(make_array(1, 2), make_array(5, 2)), array_has_any(make_array(1), make_array(9))',
    [[true, false, true, false]],
  ],
  ["SELECT array_repeat('x', 3), array_repeat(1, 0), array_repeat(NULL, 2)", [[['x', 'x', 'x'], [], [null, null]]]],
  [
    'SELECT range(4), range(1, 7, 2), range(5, 1, -2), generate_series(1, 3), generate_series(3, 1, -1)',
    [
      [
        [0, 1, 2, 3],
        [1, 3, 5],
        [5, 3],
        [1, 2, 3],
        [3, 2, 1],
      ],
    ],
  ],
  [
    'SELECT list_push_back(make_array(1), 2), list_push_front(0, make_array(1)), list_reverse(make_array(1, 2)), list_max(make_array(1, 3)), list_min(make_array(1, 3)), list_empty(make_array(1)), list_has_all(make_array(1, 2), make_array(2)), list_has_any(make_array(1), make_array(3)), list_repeat(1, 2), list_indexof(make_array(4, 5), 5)',
    [[[1, 2], [0, 1], [2, 1], 3, 1, false, true, false, [1, 1], 2]],
  ],
  ['SELECT range(1, 5, 0)', { status: 500, code: 3001, message: "step can't be 0" }],
  ['SELECT generate_series(1, 10000000)', { status: 500, code: 3001, message: 'more than 1000000 items' }],
  ["SELECT array_repeat('x', 10000000)", { status: 500, code: 3001, message: 'more than 1000000 items' }],
  ["SELECT array_slice(make_array(1), 'a', 2)", NO_SIGNATURE],
  ['SELECT array_has_all(make_array(1), 1)', NO_SIGNATURE],
  ['SELECT array_length(1)', NO_SIGNATURE],
  ["SELECT array_element(make_array(1), 'a')", NO_SIGNATURE],
  ['SELECT array_to_string(make_array(1))', NO_SIGNATURE],
];

t.test('array functions', (t) => checkFunctionCases(t, cases));
