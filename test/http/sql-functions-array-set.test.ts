/**
 * DataFusion's set, edit and shape array functions over HTTP: array_distinct/union/intersect/
 * except (sorted as DataFusion's row format sorts, NULL first), remove_n, replace*, resize,
 * pop_front/back, positions, any_value, flatten, ndims, dims and distance, with NULL lists and items.
 */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  [
    "SELECT array_distinct(make_array(1, 3, 2, 3, 1, NULL, 2, 4, NULL)), list_distinct(NULL), array_distinct(make_array('b', 'a', 'b'))",
    [[[null, 1, 2, 3, 4], null, ['a', 'b']]],
  ],
  [
    'SELECT array_union(make_array(1, 2, 3, 4), make_array(5, 6, 3, 4)), array_intersect(make_array(1, 2, 3, 4), make_array(5, 6, 3, 4)), list_intersect(make_array(1, 2), make_array(5)), array_except(make_array(1, 2, 3, 4, 2), make_array(5, 6, 3, 4))',
    [[[1, 2, 3, 4, 5, 6], [3, 4], [], [1, 2]]],
  ],
  [
    'SELECT array_union(make_array(3, 1), NULL), array_intersect(make_array(1), NULL), array_except(make_array(1, 1), NULL), array_except(NULL, make_array(1)), array_union(NULL, NULL)',
    [[[1, 3], [], [1, 1], null, null]],
  ],
  [
    'SELECT array_remove_n(make_array(1, 2, 2, 3, 2, 1, 4), 2, 2), list_remove_n(make_array(1, 2), 2, 0), array_remove_n(make_array(1, 2), NULL, 1), list_remove(make_array(1, 2, 1), 1), list_remove_all(make_array(1, 2, 1), 1)',
    [[[1, 3, 2, 1, 4], [1, 2], null, [2, 1], [2]]],
  ],
  [
    'SELECT array_replace(make_array(1, 2, 2, 3), 2, 9), array_replace_n(make_array(1, 2, 2, 3, 2), 2, 9, 2), array_replace_all(make_array(1, 2, 2), 2, 9), list_replace(make_array(1, NULL, 2), NULL, 0), array_replace(NULL, 1, 2)',
    [[[1, 9, 2, 3], [1, 9, 9, 3, 2], [1, 9, 9], [1, 0, 2], null]],
  ],
  // DataFusion checks the count after each replacement, so 0 never stops it.
  ['SELECT array_replace_n(make_array(2, 2, 2), 2, 0, 0)', [[[0, 0, 0]]]],
  [
    'SELECT array_resize(make_array(1, 2, 3), 5), array_resize(make_array(1, 2, 3), 5, 0), list_resize(make_array(1, 2, 3), 2), array_resize(NULL, 2)',
    [[[1, 2, 3, null, null], [1, 2, 3, 0, 0], [1, 2], null]],
  ],
  ['SELECT array_resize(make_array(1), -1)', { status: 500, code: 3001, message: 'array_resize' }],
  ['SELECT array_resize(make_array(1), 10000000)', { status: 500, code: 3001, message: 'more than 1000000 items' }],
  [
    'SELECT array_pop_front(make_array(1, 2, 3)), array_pop_back(make_array(1, 2, 3)), list_pop_back(make_array(1)), list_pop_front(NULL)',
    [[[2, 3], [1, 2], [], null]],
  ],
  [
    'SELECT array_positions(make_array(1, 32, 3, 2, 32), 32), list_positions(make_array(1, NULL, 2, NULL), NULL), array_positions(make_array(1), 5), array_any_value(make_array(NULL, NULL, 3, 4)), list_any_value(make_array(NULL))',
    [[[2, 5], [2, 4], [], 3, null]],
  ],
  [
    'SELECT flatten(make_array(make_array(1, 2), make_array(3, 4))), flatten(make_array(1, 2)), flatten(make_array(make_array(make_array(1)), make_array(make_array(2, 3)))), flatten(NULL)',
    [[[1, 2, 3, 4], [1, 2], [[1], [2, 3]], null]],
  ],
  [
    'SELECT array_ndims(make_array(make_array(1, 2, 3), make_array(4, 5, 6))), list_ndims(make_array(1)), array_dims(make_array(make_array(1, 2, 3), make_array(4, 5, 6))), list_dims(make_array(1, 2)), array_dims(NULL)',
    [[2, 1, [2, 3], [2], null]],
  ],
  [
    'SELECT g, array_distinct(array_agg(v)), array_positions(array_agg(v ORDER BY ts), 1) FROM nums GROUP BY g ORDER BY g',
    [
      [1, [1, 2], [1, 3]],
      [2, [5], []],
    ],
  ],
  [
    "SELECT array_union(make_array(1), make_array('a'))",
    { status: 400, code: 3000, message: 'Cannot automatically convert' },
  ],
  [
    'SELECT array_distance(make_array(1, 2), make_array(4, 6)), list_distance(make_array(1.5), make_array(1)), array_distance(make_array(1, NULL), make_array(1, 2)), array_distance(NULL, make_array(1))',
    [[5, 0.5, null, null]],
  ],
  [
    'SELECT array_distance(make_array(1), make_array(1, 2))',
    { status: 500, code: 3001, message: 'Both arrays must have the same length' },
  ],
  [
    'SELECT array_distance(make_array(make_array(1)), make_array(make_array(2)))',
    { status: 400, code: 3000, message: 'array_distance only supports one-dimensional arrays' },
  ],
  ['SELECT array_distance(1, 2)', { status: 400, code: 3000, message: 'array_distance does not support type Int64' }],
  ['SELECT array_distinct(1)', NO_SIGNATURE],
  ["SELECT array_remove_n(make_array(1), 1, 'a')", NO_SIGNATURE],
  ['SELECT array_pop_front(make_array(1), 1)', NO_SIGNATURE],
];

t.test('array set, edit and shape functions', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE nums (ts TIMESTAMP TIME INDEX, g INT, v BIGINT)',
    'INSERT INTO nums VALUES (1, 1, 1), (2, 1, 2), (3, 1, 1), (4, 2, 5)',
  ]),
);
