import t from 'tap';
import { type SqlBody, sql, startServer } from '../../helpers/server.js';

// ALTER TABLE, TRUNCATE and a join through the real server: the router catalog persists schema
// changes, the shards keep data by column id, and a restart sees both.

function rowsOf(body: SqlBody): unknown[][] {
  return body.output?.[0]?.records?.rows ?? [];
}

t.test('altered and truncated tables survive a restart with their data', async (t) => {
  let server = await startServer();
  const dataDir = server.dataDir;
  try {
    const ok = async (statement: string): Promise<SqlBody> => {
      const r = await sql(server.url, statement);
      t.equal(r.status, 200, `${statement}: ${r.text}`);
      return r.body;
    };
    await ok('CREATE TABLE m (host STRING PRIMARY KEY, v DOUBLE, ts TIMESTAMP TIME INDEX)');
    await ok("INSERT INTO m VALUES ('a', 1, 1000), ('b', 2, 2000)");
    await ok('ALTER TABLE m ADD COLUMN dc STRING PRIMARY KEY, ADD COLUMN n BIGINT NOT NULL DEFAULT 7');
    await ok("INSERT INTO m VALUES ('c', 3, 3000, 'eu', 9)");
    await ok('ALTER TABLE m RENAME metrics');
    await ok('CREATE TABLE other (host STRING PRIMARY KEY, x BIGINT, ts TIMESTAMP TIME INDEX)');
    await ok("INSERT INTO other VALUES ('a', 10, 1), ('c', 30, 1)");
    await ok('TRUNCATE TABLE other');
    await ok("INSERT INTO other VALUES ('c', 31, 1)");
    await server.stop();
    server = await startServer({ dataDir });
    t.same(rowsOf(await ok('SELECT host, dc, n FROM metrics ORDER BY host')), [
      ['a', null, 7],
      ['b', null, 7],
      ['c', 'eu', 9],
    ]);
    t.same(rowsOf(await ok('SELECT metrics.host, x FROM metrics JOIN other ON metrics.host = other.host')), [
      ['c', 31],
    ]);
    const missing = await sql(server.url, 'SELECT * FROM m');
    t.equal(missing.status, 400);
  } finally {
    await server.stop();
  }
});
