/**
 * GreptimeDB's json_path_query over HTTP: every node a path selects gathered into one JSON array,
 * NULL when nothing is selected or the document is JSON null, SQL/JSON filters written `? (…)`,
 * and a path that does not parse failing with its reason.
 */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  [
    `SELECT json_to_string(json_path_query(parse_json('{"a": [1, 2, {"b": 3}], "c": "x"}'), '$.a[*]')), json_to_string(json_path_query('{"a": {"b": 2}}', '$.a.b')), json_to_string(json_path_query(parse_json('{"a": [{"x": 1}, {"x": 5}]}'), 'strict $.a[*].x'))`,
    [['[1,2,{"b":3}]', '[2]', '[1,5]']],
  ],
  [
    `SELECT json_to_string(json_path_query(parse_json('{"a": [1, 5, 7]}'), '$.a[*] ? (@ > 2)')), json_to_string(json_path_query(parse_json('{"a": [{"x": 1}, {"x": 5}]}'), '$.a[*]?(@.x > 2)')), json_path_exists(parse_json('{"a": [1, 5]}'), '$.a[*] ? (@ > 4)')`,
    [['[5,7]', '[{"x":5}]', true]],
  ],
  [
    `SELECT json_path_query(parse_json('{"a": 1}'), '$.b'), json_path_query(NULL, '$.a'), json_path_query(parse_json('null'), '$'), json_path_query(parse_json('{"a": 1}'), NULL), arrow_typeof(json_path_query(parse_json('{}'), '$'))`,
    [[null, null, null, null, 'Binary']],
  ],
  [
    `SELECT j, json_to_string(json_path_query(j, '$.v')) FROM docs ORDER BY ts`,
    [
      [{ v: 1 }, '[1]'],
      [{ w: 2 }, null],
    ],
  ],
  [
    `SELECT json_path_query(parse_json('{"a": 1}'), '$.a ?')`,
    { status: 500, code: 3001, message: "invalid json path '$.a ?'" },
  ],
  ["SELECT json_path_query(1, '$')", NO_SIGNATURE],
  ["SELECT json_path_query(parse_json('{}'))", NO_SIGNATURE],
];

t.test('json_path_query', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE docs (ts TIMESTAMP TIME INDEX, j JSON)',
    `INSERT INTO docs VALUES (1, '{"v": 1}'), (2, '{"w": 2}')`,
  ]),
);
