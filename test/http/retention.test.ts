/**
 * Table and database `ttl` over HTTP: segments whose rows are all past the ttl are retired by the
 * shards' retention pass (storage.retention_check_interval, short here), rows inside it stay, the
 * option is checked at CREATE and ALTER, and what expired stays gone after a restart.
 */
import t from 'tap';
import { metricSum, rowsOf, sql, startServer, tempDir } from '../helpers/server.js';
import { sharedServer } from '../helpers/shared-server.js';

const STORAGE_TOML = 'retention_check_interval = "200ms"';
const HOUR_MS = 3_600_000;
// Cases that need no restart share a server, each in its own tables or database.
const shared = sharedServer({ storageToml: STORAGE_TOML });
const COLUMNS = '(host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))';

async function ok(url: string, statement: string, db?: string) {
  const r = await sql(url, statement, db);
  if (r.status !== 200) throw new Error(`${statement}: ${r.status} ${r.text}`);
  return r.body;
}

async function count(url: string, table: string, db?: string): Promise<number> {
  return Number(rowsOf(await ok(url, `SELECT count(*) FROM ${table}`, db))[0]?.[0]);
}

/** Inserts `n` rows at `tsMs` (one per host) and flushes them into segments of their own. */
async function insertFlushed(url: string, table: string, tsMs: number, n: number, db?: string): Promise<void> {
  const values = Array.from({ length: n }, (_, i) => `('h${i}', ${i}, ${tsMs})`).join(', ');
  await ok(url, `INSERT INTO ${table} (host, v, ts) VALUES ${values}`, db);
  await ok(url, `ADMIN flush_table('${table}')`, db);
}

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('rows past the ttl disappear after a retention pass, rows inside it stay, also after restart', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir, storageToml: STORAGE_TOML });
  t.teardown(() => server.stop());
  // Rows already past a ttl are not stored at all (the next test): these get one afterwards.
  await ok(server.url, `CREATE TABLE r ${COLUMNS}`);
  const now = Date.now();
  await insertFlushed(server.url, 'r', now - 2 * HOUR_MS, 40);
  await insertFlushed(server.url, 'r', now, 25);
  await ok(server.url, "ALTER TABLE r SET 'ttl' = '1h'");

  t.ok(await waitFor(async () => (await count(server.url, 'r')) === 25), 'only the rows inside the ttl remain');
  t.ok((await metricSum(server.url, 'shoaldb_segments_expired_total')) >= 1, 'expired segments are counted');
  t.equal(await metricSum(server.url, 'shoaldb_rows_expired_total'), 40, 'and their rows');

  await server.stop();
  server = await startServer({ dataDir, storageToml: STORAGE_TOML });
  t.equal(await count(server.url, 'r'), 25, 'after a restart the kept rows are there and the expired ones are not');
  await sleep(600);
  t.equal(await count(server.url, 'r'), 25, 'and later passes leave them');
});

t.test('ALTER TABLE SET ttl takes effect; forever and no ttl keep everything', async (t) => {
  const server = await shared();
  await ok(server.url, `CREATE TABLE a ${COLUMNS}`);
  await ok(server.url, `CREATE TABLE f ${COLUMNS} WITH (ttl = 'forever')`);
  const old = Date.now() - 30 * 24 * HOUR_MS;
  await insertFlushed(server.url, 'a', old, 30);
  await insertFlushed(server.url, 'f', old, 30);
  await sleep(1000);
  t.equal(await count(server.url, 'a'), 30, 'a table without ttl keeps its rows');
  t.equal(await count(server.url, 'f'), 30, "a table with ttl 'forever' keeps its rows");

  await ok(server.url, "ALTER TABLE a SET 'ttl' = '7d'");
  t.ok(await waitFor(async () => (await count(server.url, 'a')) === 0), 'the new ttl expires the old rows');
  t.equal(await count(server.url, 'f'), 30, 'other tables are untouched');
});

t.test('rows already past the ttl are not written: SQL INSERT counts only the others', async (t) => {
  // GreptimeDB's sqlness ttl/ttl_ingestion_filter: the frontend filters them on insert.
  const dataDir = tempDir();
  let server = await startServer({ dataDir, storageToml: 'retention_check_interval = "0s"' });
  t.teardown(() => server.stop());
  await ok(server.url, `CREATE TABLE f ${COLUMNS} WITH (ttl = '1h')`);
  const old = await ok(
    server.url,
    "INSERT INTO f (host, v, ts) VALUES ('a', 1, '2020-01-01 10:00:00'), ('b', 2, '2020-01-01 10:30:00')",
  );
  t.same(old.output, [{ affectedrows: 0 }], 'two rows from 2020: none affected');
  t.equal(await count(server.url, 'f'), 0, 'and none stored');
  const now = Date.now();
  const mixed = await ok(
    server.url,
    `INSERT INTO f (host, v, ts) VALUES ('a', 1, ${now - 2 * HOUR_MS}), ('a', 2, ${now}), ('c', 3, now())`,
  );
  t.same(mixed.output, [{ affectedrows: 2 }], 'of one old and two recent rows, the recent ones');
  t.same(rowsOf(await ok(server.url, 'SELECT host, v FROM f ORDER BY host')), [
    ['a', 2],
    ['c', 3],
  ]);

  const instant = await ok(server.url, `CREATE TABLE i ${COLUMNS} WITH (ttl = 'instant')`);
  t.ok(instant);
  t.same(
    (await ok(server.url, "INSERT INTO i (host, v, ts) VALUES ('h', 1, now())")).output,
    [{ affectedrows: 0 }],
    'instant: none',
  );

  // Line protocol is decoded in the shards, which leave out the same rows (and so does a WAL replay).
  const lines = [
    `m,host=old v=1 ${(now - 2 * HOUR_MS) * 1e6}`,
    `m,host=new v=2 ${now * 1e6}`,
    `m,host=new v=3 ${(now - 1) * 1e6}`,
  ];
  await ok(server.url, "CREATE DATABASE lp WITH (ttl = '1h')");
  const res = await fetch(`${server.url}/v1/lineproto/write?db=lp`, { method: 'POST', body: lines.join('\n') });
  t.equal(res.status, 204);
  const stored = async () => rowsOf(await ok(server.url, 'SELECT host, v FROM m ORDER BY v', 'lp'));
  t.same(
    await stored(),
    [
      ['new', 2],
      ['new', 3],
    ],
    'line protocol: the row past the database ttl is not stored',
  );
  t.equal(await count(server.url, 'f'), 2);
  await server.stop();
  server = await startServer({ dataDir, storageToml: 'retention_check_interval = "0s"' });
  t.same(
    await stored(),
    [
      ['new', 2],
      ['new', 3],
    ],
    'after the WAL replay, the same rows',
  );
  t.same(rowsOf(await ok(server.url, 'SELECT host, v FROM f ORDER BY host')), [
    ['a', 2],
    ['c', 3],
  ]);
});

t.test("a table without its own ttl takes its database's", async (t) => {
  const server = await shared();
  await ok(server.url, 'CREATE DATABASE d');
  await ok(server.url, `CREATE TABLE inherits ${COLUMNS}`, 'd');
  await ok(server.url, `CREATE TABLE keeps ${COLUMNS} WITH (ttl = 'forever')`, 'd');
  const old = Date.now() - 2 * HOUR_MS;
  await insertFlushed(server.url, 'inherits', old, 10, 'd');
  await insertFlushed(server.url, 'keeps', old, 10, 'd');
  await ok(server.url, "ALTER DATABASE d SET 'ttl' = '1h'");
  t.ok(await waitFor(async () => (await count(server.url, 'inherits', 'd')) === 0), "the database's ttl applies");
  t.equal(await count(server.url, 'keeps', 'd'), 10, "the table's own ttl wins");
  await insertFlushed(server.url, 'inherits', old, 10, 'd');
  t.equal(await count(server.url, 'inherits', 'd'), 0, 'and keeps old rows out on insert');
});

t.test("invalid ttl values are a 400 at CREATE and ALTER; 'instant' stores nothing", async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir, storageToml: STORAGE_TOML });
  t.teardown(() => server.stop());
  for (const statement of [
    `CREATE TABLE bad ${COLUMNS} WITH (ttl = 'abc')`,
    `CREATE TABLE bad ${COLUMNS} WITH (ttl = '10')`,
    "CREATE DATABASE bad WITH (ttl = 'soon')",
  ]) {
    const r = await sql(server.url, statement);
    t.equal(r.status, 400, statement);
    t.equal(r.body.code, 1004, `${statement}: code`);
    t.match(r.body.error, /ttl/i, `${statement}: message`);
  }
  t.equal((await sql(server.url, 'SHOW TABLES')).text.includes('"bad"'), false, 'no table was made');
  // GreptimeDB answers an instant database with an unexpected error (1002), as its sqlness show_ttl says.
  const instantDb = await sql(server.url, "CREATE DATABASE bad WITH (ttl = 'instant')");
  t.same([instantDb.status, instantDb.body.code], [500, 1002], 'an instant database');
  t.equal(instantDb.body.error, 'Failed to parse value instant into key ttl');

  await ok(server.url, `CREATE TABLE i ${COLUMNS} WITH (ttl = 'instant')`);
  const r = await sql(server.url, "ALTER TABLE i SET 'ttl' = '1y2'");
  t.equal(r.status, 400, 'ALTER with a bad ttl');
  await ok(server.url, `INSERT INTO i (host, v, ts) VALUES ('h', 1, ${Date.now()})`);
  t.equal(await count(server.url, 'i'), 0, "rows of an 'instant' table are not stored");
  await server.stop();
  server = await startServer({ dataDir, storageToml: STORAGE_TOML });
  t.equal(await count(server.url, 'i'), 0, 'nor brought back by the WAL replay after a restart');
});

t.test('ALTER DATABASE SET and UNSET the ttl its tables inherit', async (t) => {
  const server = await shared();
  await ok(server.url, 'CREATE DATABASE ad');
  await ok(server.url, `CREATE TABLE old_rows ${COLUMNS}`, 'ad');
  await insertFlushed(server.url, 'old_rows', Date.now() - 2 * HOUR_MS, 12, 'ad');
  await sleep(600);
  t.equal(await count(server.url, 'old_rows', 'ad'), 12, 'no ttl yet: the rows stay');

  await ok(server.url, "ALTER DATABASE ad SET 'ttl' = '1h'");
  t.ok(await waitFor(async () => (await count(server.url, 'old_rows', 'ad')) === 0), "the database's new ttl applies");

  await ok(server.url, "ALTER DATABASE ad UNSET 'ttl'");
  await insertFlushed(server.url, 'old_rows', Date.now() - 2 * HOUR_MS, 5, 'ad');
  await sleep(600);
  t.equal(await count(server.url, 'old_rows', 'ad'), 5, 'after UNSET old rows stay again');

  for (const [statement, pattern] of [
    ["ALTER DATABASE ad SET 'ttl' = 'soon'", /ttl/i],
    ["ALTER DATABASE ad SET 'ttl' = 'instant'", /^Invalid set database option, key: ttl, value: instant$/],
    ["ALTER DATABASE ad SET 'append_mode' = 'true'", /^Invalid set database option, key: append_mode, value: true$/],
  ] as const) {
    const r = await sql(server.url, statement);
    t.equal(r.status, 400, statement);
    t.match(r.body.error, pattern, `${statement}: message`);
  }
  const missing = await sql(server.url, "ALTER DATABASE nowhere SET 'ttl' = '1d'");
  t.equal(missing.body.code, 4004, 'a missing database');
});

t.test('SHOW CREATE TABLE and DATABASE print the ttl in effect as GreptimeDB does', async (t) => {
  const server = await shared();
  const show = async (statement: string, db?: string): Promise<string> =>
    String(rowsOf(await ok(server.url, statement, db))[0]?.[1]);
  await ok(server.url, "CREATE DATABASE shown WITH (ttl = '1 second')");
  await ok(server.url, 'CREATE TABLE t (ts TIMESTAMP TIME INDEX, val INT)', 'shown');
  t.equal(await show('SHOW CREATE DATABASE shown'), "CREATE DATABASE IF NOT EXISTS shown\nWITH(\n  ttl = '1s'\n)");
  t.match(await show('SHOW CREATE TABLE t', 'shown'), /ENGINE=mito\nWITH\(\n {2}ttl = '1s'\n\)$/, "the database's ttl");
  await ok(server.url, "ALTER DATABASE shown SET ttl = '1 day'");
  t.match(await show('SHOW CREATE TABLE t', 'shown'), /ttl = '1day'/);
  for (const [ttl, shownAs] of [
    ['6 hours', '6h'],
    ['instant', 'instant'],
    ['0s', 'forever'],
    ['7d', '7days'],
    ['1h30m', '1h 30m'],
  ]) {
    await ok(server.url, `ALTER TABLE t SET 'ttl' = '${ttl}'`, 'shown');
    t.match(await show('SHOW CREATE TABLE t', 'shown'), new RegExp(`ttl = '${shownAs}'`), `${ttl} shows as ${shownAs}`);
  }
  await ok(server.url, "ALTER TABLE t UNSET 'ttl'", 'shown');
  await ok(server.url, "ALTER DATABASE shown UNSET 'ttl'");
  t.match(await show('SHOW CREATE TABLE t', 'shown'), /ENGINE=mito\n$/, 'no ttl anywhere: no WITH');
  t.equal(await show('SHOW CREATE DATABASE shown'), 'CREATE DATABASE IF NOT EXISTS shown');
  const full = rowsOf(await ok(server.url, 'SHOW FULL DATABASES'));
  t.same(
    full.find((r) => r[0] === 'shown'),
    ['shown', ''],
  );
});
