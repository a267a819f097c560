/**
 * Hint headers on writes (reference ingest §0.5, src/router/http/hints.ts): table options of
 * auto-created tables, `x-greptime-hints` over the per-key headers, `auto_create_table=false`,
 * and bad values refused before anything is made.
 */
import t from 'tap';
import { postRemoteWrite, snappyBlock, writeRequestBytes } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

async function createSql(server: TestServer, table: string): Promise<string> {
  const res = await sql(server.url, `SHOW CREATE TABLE ${table}`);
  if (res.status !== 200) return `(status ${res.status})`;
  return String(rowsOf(res.body)[0]?.[1] ?? '');
}

async function tableExists(server: TestServer, table: string): Promise<boolean> {
  const res = await sql(server.url, `SELECT count(*) FROM information_schema.tables WHERE table_name = '${table}'`);
  return Number(rowsOf(res.body)[0]?.[0]) > 0;
}

t.test('hints on writes', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());

  t.test('x-greptime-hints sets the options of the table a write creates', async (t) => {
    const res = await writeLines(server.url, `hinted,host=a v=1 ${T0}`, 'db=public&precision=ms', {
      'x-greptime-hints': 'ttl=7d, append_mode=true,skip_wal = true',
    });
    t.equal(res.status, 204, res.text);
    const ddl = await createSql(server, 'hinted');
    t.match(ddl, /ttl = '7days'/);
    t.match(ddl, /append_mode = 'true'/);
    t.match(ddl, /skip_wal = 'true'/);
  });

  // Only `ttl` of the per-key headers can be tested: the others have an underscore in their name
  // (`x-greptime-hint-auto_create_table`), and the pinned uWebSockets.js drops a request with one
  // before the router sees it (docs/hints.md).
  t.test('per-key headers count only without x-greptime-hints', async (t) => {
    t.equal(
      (
        await writeLines(server.url, `perkey,host=a v=1 ${T0}`, 'db=public&precision=ms', {
          'x-greptime-hint-ttl': '1h',
        })
      ).status,
      204,
    );
    t.match(await createSql(server, 'perkey'), /ttl = '1h'/);
    const both = await writeLines(server.url, `bothkinds,host=a v=1 ${T0}`, 'db=public&precision=ms', {
      'x-greptime-hints': 'ttl=2d',
      'x-greptime-hint-ttl': '1h',
    });
    t.equal(both.status, 204);
    t.match(await createSql(server, 'bothkinds'), /ttl = '2days'/);
  });

  t.test('hints do not change a table that exists', async (t) => {
    t.equal(
      (
        await writeLines(server.url, `hinted,host=b v=2 ${T0 + 1000}`, 'db=public&precision=ms', {
          'x-greptime-hints': 'ttl=1d',
        })
      ).status,
      204,
    );
    t.match(await createSql(server, 'hinted'), /ttl = '7days'/);
  });

  t.test('auto_create_table=false refuses a write to a missing table', async (t) => {
    const res = await writeLines(server.url, `nocreate,host=a v=1 ${T0}`, 'db=public&precision=ms', {
      'x-greptime-hints': 'auto_create_table=false',
    });
    t.equal(res.status, 400);
    t.match(res.text, 'Table `nocreate` does not exist, and `auto_create_table` hint is disabled');
    t.notOk(await tableExists(server, 'nocreate'));
    // A table that exists takes the write.
    const existing = await writeLines(server.url, `hinted,host=c v=3 ${T0 + 2000}`, 'db=public&precision=ms', {
      'x-greptime-hints': 'auto_create_table=false',
    });
    t.equal(existing.status, 204, existing.text);
  });

  t.test('bad hint values are refused and create nothing', async (t) => {
    for (const [hints, table] of [
      ['auto_create_table=maybe', 'badbool'],
      ['ttl=soon', 'badttl'],
      ['merge_mode=newest', 'badmerge'],
    ] as const) {
      const res = await writeLines(server.url, `${table},host=a v=1 ${T0}`, 'db=public&precision=ms', {
        'x-greptime-hints': hints,
      });
      t.equal(res.status, 400, `${hints}: ${res.text}`);
      t.notOk(await tableExists(server, table), `${table} was not created`);
    }
  });

  t.test('remote write: merge_mode and ttl for the metric tables it creates', async (t) => {
    const body = snappyBlock(
      writeRequestBytes([{ labels: { __name__: 'hinted_metric', job: 'x' }, samples: [{ value: 1, timestamp: T0 }] }]),
    );
    const res = await postRemoteWrite(server.url, body, '', { 'x-greptime-hints': 'merge_mode=last_non_null,ttl=30d' });
    t.equal(res.status, 204, res.text);
    const ddl = await createSql(server, 'hinted_metric');
    t.match(ddl, /merge_mode = 'last_non_null'/);
    t.match(ddl, /ttl = '30days'/);
  });

  t.test('/v1/ingest: hints give the pipeline tables options its rows do not set', async (t) => {
    const ingest = (table: string, hints: string) =>
      fetch(`${server.url}/v1/ingest?db=public&table=${table}&pipeline_name=greptime_identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-greptime-hints': hints },
        body: JSON.stringify([{ msg: 'hello', n: 1 }]),
      });
    const res = await ingest('logs_hinted', 'ttl=3d');
    t.equal(res.status, 200, await res.text());
    t.match(await createSql(server, 'logs_hinted'), /ttl = '3days'/);
    const refused = await ingest('logs_nocreate', 'auto_create_table=false');
    t.equal(refused.status, 400);
    t.match(await refused.text(), 'Table `logs_nocreate` does not exist');
    t.notOk(await tableExists(server, 'logs_nocreate'));
  });
});
