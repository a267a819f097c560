/** Tables are created on first write, evolve with new columns, and refuse type conflicts whole. */
import t from 'tap';
import { sql, writeLines } from '../helpers/server.js';
import { sharedServer } from '../helpers/shared-server.js';

// One server for every case: each writes its own tables (and database).
const shared = sharedServer();

t.test('a new tag or field adds a column; old rows read NULL', async (t) => {
  const server = await shared();
  t.equal((await writeLines(server.url, 'evo,host=a v=1 1000')).status, 204);
  t.equal((await writeLines(server.url, 'evo,host=b,dc=x v=2,w=5i 2000')).status, 204);
  const res = await sql(server.url, 'SELECT host, dc, v, w FROM evo ORDER BY host');
  t.same(res.body.output?.[0]?.records?.rows, [
    ['a', null, 1, null],
    ['b', 'x', 2, 5],
  ]);
  const desc = await sql(server.url, 'DESC TABLE evo');
  const rows = desc.body.output?.[0]?.records?.rows ?? [];
  t.same(
    rows.map((r) => [r[0], r[1], r[5]]),
    [
      ['host', 'String', 'TAG'],
      ['v', 'Float64', 'FIELD'],
      ['greptime_timestamp', 'TimestampNanosecond', 'TIMESTAMP'],
      ['dc', 'String', 'TAG'],
      ['w', 'Int64', 'FIELD'],
    ],
  );
});

t.test('a type conflict rejects the whole request with 400 and writes nothing of it', async (t) => {
  const server = await shared();
  t.equal((await writeLines(server.url, 'tc,host=a v=1i 1000')).status, 204);
  const res = await writeLines(server.url, 'tc,host=b v=2i 2000\nother,host=z q=1 1\ntc,host=c v=2.5 3000');
  t.equal(res.status, 400);
  t.match(res.text, /v/);
  const rows = await sql(server.url, 'SELECT host FROM tc ORDER BY host');
  t.same(rows.body.output?.[0]?.records?.rows, [['a']], 'no row of the refused request was written');
  const tables = await sql(server.url, 'SHOW TABLES');
  t.notMatch(JSON.stringify(tables.body), /"other"/, 'no table of the refused request was created');

  const conflictWithTable = await writeLines(server.url, 'tc,host=d v="text" 4000');
  t.equal(conflictWithTable.status, 400);
  t.match(conflictWithTable.text, /column v expect type Int64/);
});

t.test('a malformed line is a 400 that names the line, and nothing is written', async (t) => {
  const server = await shared();
  const res = await writeLines(server.url, 'bad,host=a v=1 1\nbad,host=b v= 2\nbad,host=c v=3 3');
  t.equal(res.status, 400);
  const body = JSON.parse(res.text) as { error: string };
  t.match(body.error, /^Failed to parse InfluxDB line protocol: line 2/);
  const tables = await sql(server.url, 'SHOW TABLES');
  t.notMatch(JSON.stringify(tables.body), /"bad"/);
});

t.test('writes to an unknown database are refused; created databases accept writes', async (t) => {
  const server = await shared();
  const res = await writeLines(server.url, 'x v=1 1', 'db=nodb');
  t.equal(res.status, 400);
  t.match(res.text, /Database not found: nodb/);
  t.equal((await sql(server.url, 'CREATE DATABASE metrics_db')).status, 200);
  t.equal((await writeLines(server.url, 'x v=1 1', 'db=metrics_db')).status, 204);
  const viaHeader = await writeLines(server.url, 'x v=2 2', 'precision=ms', { 'x-greptime-db-name': 'metrics_db' });
  t.equal(viaHeader.status, 204);
  const rows = await sql(server.url, 'SELECT count(*) FROM x', 'metrics_db');
  t.same(rows.body.output?.[0]?.records?.rows, [[2]]);
});

t.test('precision scales timestamps and bad precision is refused', async (t) => {
  const server = await shared();
  for (const [p, ts] of [
    ['s', '1700000000'],
    ['ms', '1700000000001'],
    ['us', '1700000000000002'],
    ['ns', '1700000000000000003'],
  ] as const) {
    t.equal((await writeLines(server.url, `prec,p=${p} v=1 ${ts}`, `db=public&precision=${p}`)).status, 204);
  }
  const res = await sql(server.url, 'SELECT p, greptime_timestamp FROM prec ORDER BY greptime_timestamp');
  // Nanosecond integers exceed 2^53: compare the JSON text, not parsed numbers.
  t.match(
    res.text,
    '"rows":[["s",1700000000000000000],["ns",1700000000000000003],["us",1700000000000002000],["ms",1700000000001000000]]',
  );
  const bad = await writeLines(server.url, 'prec v=1 1', 'db=public&precision=xx');
  t.equal(bad.status, 400);
  t.match(bad.text, /Failed to convert time precision, name: xx/);
});
