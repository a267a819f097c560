/**
 * The `skip_wal` table option (GreptimeDB semantics): a table's writes are acknowledged from the
 * memtable without a WAL record, so a crash loses what was not flushed, while a flush or a
 * graceful stop keeps it. Normal tables, and payloads mixing both kinds, stay durable; and keys
 * sent by id in unlogged payloads must still be defined in the WAL for logged ones after ALTER.
 */
import t from 'tap';
import { metricSum, rowsOf, sql, startServer, type TestServer, tempDir, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const COLUMNS = '(host STRING, v DOUBLE, greptime_timestamp TIMESTAMP TIME INDEX, PRIMARY KEY (host))';
const HOSTS = 40;

async function ok(url: string, statement: string) {
  const r = await sql(url, statement);
  if (r.status !== 200) throw new Error(`${statement}: ${r.status} ${r.text}`);
  return r.body;
}

async function count(url: string, table: string, where = ''): Promise<number> {
  return Number(rowsOf(await ok(url, `SELECT count(*) FROM ${table} ${where}`))[0]?.[0]);
}

/** One line-protocol row per host for each table, at T0 + step seconds, in one request. */
async function write(url: string, tables: string[], step: number): Promise<void> {
  const lines: string[] = [];
  for (const table of tables)
    for (let h = 0; h < HOSTS; h++) lines.push(`${table},host=h${h} v=${h + step} ${T0 + step * 1000}`);
  const r = await writeLines(url, lines.join('\n'));
  if (r.status !== 204) throw new Error(`write: ${r.status} ${r.text}`);
}

const walBytes = (server: TestServer) => metricSum(server.url, 'shoaldb_wal_bytes_total');

async function createTables(url: string): Promise<void> {
  await ok(url, `CREATE TABLE s ${COLUMNS} WITH (skip_wal = 'true')`);
  await ok(url, `CREATE TABLE n ${COLUMNS}`);
}

t.test('a skip_wal table is written and read without WAL bytes; a normal table logs', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  await createTables(server.url);
  const wal0 = await walBytes(server);
  await ok(server.url, `INSERT INTO s (host, v, greptime_timestamp) VALUES ('a', 1, ${T0}), ('b', 2, ${T0})`);
  await write(server.url, ['s'], 1);
  await write(server.url, ['s'], 2);
  t.equal(await count(server.url, 's'), 2 + 2 * HOSTS, 'SQL and line protocol rows read back');
  t.equal(await walBytes(server), wal0, 'no WAL bytes for them');
  await write(server.url, ['n'], 1);
  await ok(server.url, `INSERT INTO n (host, v, greptime_timestamp) VALUES ('a', 1, ${T0})`);
  t.equal(await count(server.url, 'n'), HOSTS + 1);
  t.ok((await walBytes(server)) > wal0, 'the normal table is logged');

  // The write hint sets the option on the tables a write creates.
  const hinted = await writeLines(server.url, `h,host=a v=1 ${T0}`, 'db=public&precision=ms', {
    'x-greptime-hints': 'skip_wal=true',
  });
  t.equal(hinted.status, 204);
  const wal1 = await walBytes(server);
  await writeLines(server.url, `h,host=b v=1 ${T0}`);
  t.equal(await count(server.url, 'h'), 2);
  t.equal(await walBytes(server), wal1, 'a table created with the hint skips the WAL');
});

t.test('a crash loses unflushed skip_wal rows only; flushed ones stay', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  await createTables(server.url);
  for (let step = 0; step < 3; step++) {
    await write(server.url, ['s'], step);
    await write(server.url, ['n'], step);
  }
  await server.kill();
  server = await startServer({ dataDir });
  t.equal(await count(server.url, 'n'), 3 * HOSTS, 'every row of the normal table is there');
  t.equal(await count(server.url, 's'), 0, 'the unflushed rows of the skip_wal table are gone');

  const wal0 = await walBytes(server);
  await write(server.url, ['s'], 10);
  t.equal(await walBytes(server), wal0, 'from the first write after a start, skip_wal rows are not logged');
  await ok(server.url, "ADMIN flush_table('s')");
  await server.kill();
  server = await startServer({ dataDir });
  t.equal(await count(server.url, 's'), HOSTS, 'flushed skip_wal rows survive a crash');
});

t.test('a graceful stop keeps skip_wal rows', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  await createTables(server.url);
  await write(server.url, ['n'], 0);
  const wal0 = await walBytes(server);
  for (let step = 0; step < 3; step++) await write(server.url, ['s'], step);
  await ok(server.url, `INSERT INTO s (host, v, greptime_timestamp) VALUES ('sql', 1, ${T0})`);
  t.equal(await walBytes(server), wal0, 'the skip_wal rows are in no WAL record');
  await server.stop();
  server = await startServer({ dataDir });
  t.equal(await count(server.url, 's'), 3 * HOSTS + 1, 'every skip_wal row is there after a restart');
  t.equal(await count(server.url, 'n'), HOSTS);
});

t.test("rows written after ALTER SET 'skip_wal' = 'false' survive a crash (keys sent by id)", async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  await ok(server.url, `CREATE TABLE s ${COLUMNS} WITH (skip_wal = 'TRUE')`);
  // Several requests: every decoder sends each key in full once, then by id.
  for (let step = 0; step < 6; step++) await write(server.url, ['s'], step);
  await ok(server.url, "ALTER TABLE s SET 'skip_wal' = 'false'");
  const wal0 = await walBytes(server);
  for (let step = 10; step < 16; step++) await write(server.url, ['s'], step);
  t.ok((await walBytes(server)) > wal0, 'writes after the ALTER are logged');
  await server.kill();
  server = await startServer({ dataDir });
  const after = `WHERE greptime_timestamp >= ${T0 + 10_000}`;
  t.equal(await count(server.url, 's', after), 6 * HOSTS, 'every row written after the ALTER is there');
  t.equal(await count(server.url, 's'), 6 * HOSTS, 'the unflushed rows from before it are not');
});

t.test('a payload mixing a skip_wal table with a normal one is logged whole', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  await createTables(server.url);
  await write(server.url, ['s'], 0);
  const wal0 = await walBytes(server);
  for (let step = 1; step < 4; step++) await write(server.url, ['s', 'n'], step);
  t.ok((await walBytes(server)) > wal0, 'the mixed payloads are logged');
  await server.kill();
  server = await startServer({ dataDir });
  t.equal(await count(server.url, 'n'), 3 * HOSTS, 'the normal table is durable');
  t.equal(await count(server.url, 's'), 3 * HOSTS, 'and so are the skip_wal rows that shared its payloads');
  t.equal(await count(server.url, 's', `WHERE greptime_timestamp = ${T0}`), 0, 'not those written alone');
});
