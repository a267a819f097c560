/**
 * GreptimeDB's vector functions over HTTP (values from GreptimeDB's sqlness cases `vector`,
 * `vector_scalar` and `vector_distance`): vectors given as text or as Binary from parse_vec, read
 * back through vec_to_string; distances, element folds, vec_sum/vec_product over rows of a table
 * spread over shards, and the argument errors.
 */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const EXECUTION = { status: 500, code: 3001 };

const cases: FunctionCase[] = [
  [
    "SELECT vec_to_string(parse_vec('[1.0, 2.0]')), vec_to_string(parse_vec('[]')), vec_to_string(parse_vec(' [ 1e3 , -0.5 ] '))",
    [['[1,2]', '[]', '[1000,-0.5]']],
  ],
  // Binary is written as its bytes: 1.0f32 is 00 00 80 3f, little-endian.
  ["SELECT parse_vec('[1.0, -2.0]')", [[[0, 0, 128, 63, 0, 0, 0, 192]]]],
  [
    "SELECT vec_to_string(vec_add('[1.0, 2.0]', '[3.0, 4.0]')), vec_to_string(vec_add(parse_vec('[1.0, 2.0]'), '[3.0, 4.0]')), vec_to_string(vec_mul('[1.0, 2.0]', parse_vec('[3.0, 4.0]')))",
    [['[4,6]', '[4,6]', '[3,8]']],
  ],
  [
    "SELECT vec_to_string(vec_sub('[1.0, 1.0]', '[1.0, 2.0]')), vec_to_string(vec_sub(parse_vec('[-1.0, -1.0]'), '[1.0, 2.0]'))",
    [['[0,-1]', '[-2,-3]']],
  ],
  [
    "SELECT vec_to_string(vec_div('[1.0, 2.0]', '[3.0, 4.0]')), vec_to_string(vec_div('[1.0, -2.0]', parse_vec('[0.0, 0.0]')))",
    [['[0.33333334,0.5]', '[inf,-inf]']],
  ],
  [
    "SELECT vec_elem_sum('[1.0, 2.0, 3.0]'), vec_elem_sum(parse_vec('[-1.0, -2.0, -3.0]')), vec_elem_product('[-1.0, -2.0, -3.0, 4.0]'), vec_elem_avg('[1.0, 2.0]')",
    [[6, -6, -24, 1.5]],
  ],
  [
    "SELECT vec_to_string(vec_norm('[0.0, 2.0, 3.0]')), vec_to_string(vec_norm('[7.0, 8.0, 9.0]')), vec_to_string(vec_norm(parse_vec('[7.0, -8.0, 9.0]')))",
    [['[0,0.5547002,0.8320503]', '[0.5025707,0.5743665,0.64616233]', '[0.5025707,-0.5743665,0.64616233]']],
  ],
  [
    "SELECT vec_to_string(vec_scalar_add(1.0, '[1.0, 2.0]')), vec_to_string(vec_scalar_add(-1, parse_vec('[1.0, 2.0]'))), vec_to_string(vec_scalar_mul(2, '[1.5, -2.0]'))",
    [['[2,3]', '[0,1]', '[3,-4]']],
  ],
  [
    "SELECT vec_dim('[7.0, 8.0, 9.0, 10.0]'), vec_dim(parse_vec('[]')), vec_kth_elem('[2, 4, 6]', 2), vec_kth_elem(NULL, 1)",
    [[4, 0, 4, null]],
  ],
  [
    "SELECT vec_to_string(vec_subvector('[1.0,2.0,3.0,4.0,5.0]', 0, 3)), vec_to_string(vec_subvector('[1.0,2.0,3.0,4.0,5.0]', 5, 5))",
    [['[1,2,3]', '[]']],
  ],
  [
    "SELECT vec_cos_distance('[1.0, 2.0]', '[0.0, 0.0]'), vec_l2sq_distance(parse_vec('[1.0, 2.0]'), '[0.0, 0.0]'), vec_dot_product('[1.0, 2.0]', parse_vec('[3.0, 4.0]'))",
    [[1, 5, 11]],
  ],
  [
    "SELECT round(cos_distance('[7.0, 8.0, 9.0]', v), 2), l2sq_distance(v, '[0.0, 0.0, 0.0]'), dot_product(v, v), round(cos_distance(v, v), 2) FROM vecs ORDER BY ts",
    [
      [0.04, 14, 14, 0],
      [0, 77, 77, 0],
      [0, 194, 194, 0],
    ],
  ],
  [
    "SELECT name, vec_to_string(vec_sum(v)), vec_to_string(vec_product(v)) FROM (SELECT 'a' AS name, '[1.0, 2.0, 3.0]' AS v UNION ALL SELECT 'a', '[-1.0, -2.0, -3.0]' UNION ALL SELECT 'a', '[4.0, 5.0, 6.0]') GROUP BY name",
    [['a', '[4,5,6]', '[-4,-20,-54]']],
  ],
  // Over the table's rows (spread over the shards, merged in the router); a NULL row makes it NULL.
  ['SELECT vec_to_string(vec_sum(v)), vec_to_string(vec_product(v)) FROM vecs', [['[12,15,18]', '[28,80,162]']]],
  ['SELECT vec_sum(w) FROM vecs', [[null]]],
  [
    "SELECT v, vec_dim(v) FROM (SELECT '[1.0, 2.0, 3.0]' AS v UNION ALL SELECT '[-1.0]' AS v) ORDER BY vec_dim(v)",
    [
      ['[-1.0]', 1],
      ['[1.0, 2.0, 3.0]', 3],
    ],
  ],
  [
    "SELECT cos_distance('[1.0, 2.0, 3.0]', '[1.0]')",
    { ...EXECUTION, message: 'The length of the vectors must match to calculate distance, have: 3 vs 1' },
  ],
  [
    "SELECT vec_add('[1.0]', '[1.0, 2.0]')",
    { ...EXECUTION, message: 'The length of the vectors must match to add, have: 1 vs 2' },
  ],
  [
    "SELECT parse_vec('1.0,2.0,3.0')",
    { ...EXECUTION, message: 'Failed to parse 1.0,2.0,3.0 to Vector value: not properly enclosed in brackets' },
  ],
  ["SELECT parse_vec('[30h, 40s]')", { ...EXECUTION, message: 'Failed to parse [30h, 40s] to Vector value' }],
  [
    "SELECT vec_kth_elem('[1.0, 2.0, 3.0]', 4)",
    { ...EXECUTION, message: 'Invalid k: 4. k must be in the range [1, 3]' },
  ],
  [
    "SELECT vec_subvector('[1.0, 2.0, 3.0]', 3, 4)",
    { ...EXECUTION, message: 'Invalid start and end indices: start=3, end=4, vec_len=3' },
  ],
  ["SELECT vec_to_string(CAST('abcde' AS VARBINARY))", { ...EXECUTION, message: 'Invalid binary length of vector: 5' }],
  ['SELECT cos_distance(1.0, 2.0)', NO_SIGNATURE],
  ['SELECT vec_sum(1)', NO_SIGNATURE],
];

t.test('vector functions', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE vecs (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, v STRING, w STRING)',
    "INSERT INTO vecs VALUES (1, 'a', '[1.0, 2.0, 3.0]', '[1.0]'), (2, 'b', '[4.0, 5.0, 6.0]', NULL), (3, 'c', '[7.0, 8.0, 9.0]', '[2.0]')",
  ]),
);
