/** `matches(col, query)` over HTTP: the rows a full-text query selects, and a refused query. */
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';

t.test('matches in SQL', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const { url } = server;
  t.equal(
    (
      await sql(
        url,
        "CREATE TABLE logs (ts TIMESTAMP TIME INDEX, message STRING FULLTEXT INDEX) WITH (append_mode = 'true')",
      )
    ).status,
    200,
  );
  const messages = ['connection error: timeout', 'disk failure on sda', 'Error while parsing', 'all good', 'fail fast'];
  const values = messages.map((m, i) => `(${i + 1}, '${m}')`).join(', ');
  t.equal((await sql(url, `INSERT INTO logs VALUES ${values}`)).status, 200);
  const cases: Array<[string, number[]]> = [
    ['error OR fail', [1, 3, 5]],
    ['error -timeout', [3]],
    ['+disk +failure', [2]],
    ['"while parsing"', [3]],
    ['good', [4]],
  ];
  for (const flush of [false, true]) {
    if (flush) t.equal((await sql(url, "ADMIN flush_table('logs')")).status, 200);
    for (const [query, want] of cases) {
      const res = await sql(url, `SELECT CAST(ts AS BIGINT) FROM logs WHERE matches(message, '${query}') ORDER BY ts`);
      t.same(
        rowsOf(res.body).map((r) => Number(r[0])),
        want,
        `${query}${flush ? ' (from segments)' : ''}`,
      );
    }
  }
  const bad = await sql(url, `SELECT * FROM logs WHERE matches(message, '"open')`);
  t.equal(bad.status, 400, 'an unreadable query is a planning error');
});
