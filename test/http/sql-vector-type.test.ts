/**
 * GreptimeDB's `VECTOR(dim)` column type over HTTP (expectations from GreptimeDB's sqlness case
 * `types/vector`): text inserted into it is checked against the dimension and stored as Float32
 * words, read back as those bytes and through the vector functions, from memtables, from flushed
 * segments and after a restart; its name in DESCRIBE and SHOW CREATE TABLE; defaults; ALTER ADD.
 */
import t from 'tap';
import { rowsOf, type SqlBody, sql, startServer, type TestServer, tempDir } from '../helpers/server.js';

const dataDir = tempDir();
let server: TestServer = await startServer({ dataDir, shards: 2 });
t.teardown(() => server.stop());

async function ok(statement: string): Promise<SqlBody> {
  const r = await sql(server.url, statement);
  if (r.status !== 200) throw new Error(`${statement}: ${r.status} ${r.text}`);
  return r.body;
}

await ok('CREATE TABLE vt (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, v VECTOR(3))');
await ok(
  `INSERT INTO vt VALUES (1, 'a', "[1.0, 2.0, 3.0]"), (2, 'b', '[4.0, 5.0, 6.0]'), (3, 'c', ' [7, 8.0 ,9e0] '), (4, 'd', NULL)`,
);

const TEXTS = [['[1,2,3]'], ['[4,5,6]'], ['[7,8,9]'], [null]];

t.test('a vector column reads back as its Float32 words, and as text through vec_to_string', async (t) => {
  const body = await ok('SELECT ts, v FROM vt ORDER BY ts LIMIT 2');
  t.same(body.output?.[0]?.records?.schema.column_schemas, [
    { name: 'ts', data_type: 'TimestampMillisecond' },
    { name: 'v', data_type: 'Vector(3)' },
  ]);
  t.same(rowsOf(body), [
    [1, [0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64]],
    [2, [0, 0, 128, 64, 0, 0, 160, 64, 0, 0, 192, 64]],
  ]);
  t.same(rowsOf(await ok('SELECT vec_to_string(v) FROM vt ORDER BY ts')), TEXTS);
  t.same(
    rowsOf(
      await ok(
        "SELECT host, round(cos_distance(v, '[7.0, 8.0, 9.0]'), 2) AS d FROM vt WHERE v IS NOT NULL ORDER BY d, host",
      ),
    ),
    [
      ['b', 0],
      ['c', 0],
      ['a', 0.04],
    ],
  );
  t.same(rowsOf(await ok('SELECT vec_to_string(vec_sum(v)), vec_dim(vec_sum(v)) FROM vt WHERE v IS NOT NULL')), [
    ['[12,15,18]', 3],
  ]);
});

t.test('the type is named as GreptimeDB names it', async (t) => {
  const desc = rowsOf(await ok('DESC TABLE vt'));
  t.same(desc.find((row) => row[0] === 'v')?.slice(0, 2), ['v', 'Vector(3)']);
  const [[, create]] = rowsOf(await ok('SHOW CREATE TABLE vt')) as [[string, string]];
  t.match(create, /"v" VECTOR\(3\) NULL/);
});

t.test(
  'text that is not a vector of the column dimension is refused, and nothing of the statement is stored',
  async (t) => {
    const cases: Array<[string, string]> = [
      ['[1.0]', 'Invalid Vector: Failed to parse [1.0] to Vector value: wrong dimension'],
      ['1.0,2.0,3.0', 'Invalid Vector: Failed to parse 1.0,2.0,3.0 to Vector value: not properly enclosed in brackets'],
      [
        '[30h, 40s, 50m]',
        'Invalid Vector: Failed to parse [30h, 40s, 50m] to Vector value: elements are not all float32',
      ],
    ];
    for (const [text, message] of cases) {
      const r = await sql(server.url, `INSERT INTO vt VALUES (10, 'x', '${text}'), (11, 'y', '[0, 0, 0]')`);
      t.equal(r.status, 400, text);
      t.equal(r.body.code, 1004, text);
      t.equal(r.body.error, message, text);
    }
    t.same(rowsOf(await ok('SELECT count(*) FROM vt')), [[4]]);
    const cast = await sql(server.url, "SELECT CAST('[1, 2]' AS VECTOR(3))");
    t.equal(cast.body.code, 1004, 'a cast checks the dimension too');
    t.same(rowsOf(await ok("SELECT vec_to_string(CAST('[1, 2]' AS VECTOR(2)))")), [['[1,2]']]);
  },
);

t.test('a default vector, and a vector column added later', async (t) => {
  await ok("CREATE TABLE vd (ts TIMESTAMP TIME INDEX, v VECTOR(3) DEFAULT '[1.0, 2.0, 3.0]')");
  await ok('INSERT INTO vd (ts) VALUES (1), (2)');
  t.same(rowsOf(await ok('SELECT vec_to_string(v) FROM vd ORDER BY ts')), [['[1,2,3]'], ['[1,2,3]']]);
  await ok('ALTER TABLE vd ADD COLUMN w VECTOR(2)');
  await ok("INSERT INTO vd (ts, w) VALUES (3, '[0.5, -1]')");
  t.same(rowsOf(await ok('SELECT ts, vec_to_string(w) FROM vd ORDER BY ts')), [
    [1, null],
    [2, null],
    [3, '[0.5,-1]'],
  ]);
});

t.test('vectors survive a flush and a restart', async (t) => {
  await ok("ADMIN flush_table('vt')");
  t.same(rowsOf(await ok('SELECT vec_to_string(v) FROM vt ORDER BY ts')), TEXTS, 'from segments');
  await server.stop();
  server = await startServer({ dataDir, shards: 2 });
  t.same(rowsOf(await ok('SELECT vec_to_string(v) FROM vt ORDER BY ts')), TEXTS, 'after a restart');
  const desc = rowsOf(await ok('DESC TABLE vt'));
  t.same(desc.find((row) => row[0] === 'v')?.slice(0, 2), ['v', 'Vector(3)']);
});
