/**
 * unnest(list) as a SELECT item over HTTP: one row per item, lists of one row zipped (shorter ones
 * padded with NULL), other columns repeated, NULL and empty lists giving no row, ORDER BY and
 * LIMIT applied after the expansion over rows from both shards; other placements are refused.
 */
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';
import { checkFunctionCases, type FunctionCase } from '../helpers/sql-function-cases.js';

const NOT_IMPLEMENTED = { status: 400, code: 1001, message: 'unnest() other than as a SELECT item' };

const cases: FunctionCase[] = [
  ['SELECT unnest(make_array(1, 2, 3))', [[1], [2], [3]]],
  [
    "SELECT unnest(make_array(1, 2)), unnest(make_array('a', 'b', 'c')), 7",
    [
      [1, 'a', 7],
      [2, 'b', 7],
      [null, 'c', 7],
    ],
  ],
  ['SELECT unnest(NULL)', []],
  ['SELECT unnest(array_slice(make_array(1), 2, 3))', []],
  [
    'SELECT host, unnest(make_array(v, v * 10)) AS x FROM l ORDER BY x DESC NULLS LAST LIMIT 3',
    [
      ['d', 40],
      ['b', 20],
      ['a', 10],
    ],
  ],
  [
    'SELECT host, unnest(range(v)) FROM l ORDER BY host',
    [
      ['a', 0],
      ['b', 0],
      ['b', 1],
      ['d', 0],
      ['d', 1],
      ['d', 2],
      ['d', 3],
    ],
  ],
  [
    'SELECT x, arrow_typeof(x) FROM (SELECT unnest(make_array(3, 1)) AS x) ORDER BY x',
    [
      [1, 'Int64'],
      [3, 'Int64'],
    ],
  ],
  ['SELECT sum(x) FROM (SELECT unnest(make_array(v, v)) AS x FROM l)', [[14]]],
  ['SELECT unnest(make_array(1)) + 1', NOT_IMPLEMENTED],
  ['SELECT count(*), unnest(make_array(1)) FROM l', NOT_IMPLEMENTED],
  ['SELECT host FROM l WHERE unnest(make_array(v)) > 1', NOT_IMPLEMENTED],
  ['SELECT unnest(1)', { status: 400, code: 3000, message: 'unnest() can only be applied to array, struct and null' }],
];

t.test('unnest', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE l (host STRING, ts TIMESTAMP TIME INDEX, v BIGINT, PRIMARY KEY (host))',
    "INSERT INTO l VALUES ('a', 1, 1), ('b', 2, 2), ('c', 3, NULL), ('d', 4, 4)",
  ]),
);

t.test('unnest expands rows from both shards before LIMIT', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const values = Array.from({ length: 8 }, (_, h) => `('h${h}', ${h}, ${h})`).join(', ');
  for (const statement of [
    'CREATE TABLE l (host STRING, ts TIMESTAMP TIME INDEX, v BIGINT, PRIMARY KEY (host))',
    `INSERT INTO l VALUES ${values}`,
  ]) {
    t.equal((await sql(server.url, statement)).status, 200, statement);
  }
  const r = await sql(server.url, 'SELECT unnest(make_array(v, 100 + v)) AS x FROM l ORDER BY x DESC LIMIT 3');
  t.equal(r.status, 200, r.text);
  t.same(rowsOf(r.body), [[107], [106], [105]]);
});
