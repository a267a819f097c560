/**
 * SIGTERM while heavy queries run: the server cancels them instead of waiting, lets acknowledged
 * writes finish, and exits within seconds; after a restart every acknowledged row is there.
 */
import t from 'tap';
import { sql, startServer, writeLines } from '../helpers/server.js';

const ROWS_PER_BODY = 10_000;

function body(b: number): string {
  const lines: string[] = [];
  for (let i = 0; i < ROWS_PER_BODY; i++) {
    const row = b * ROWS_PER_BODY + i;
    lines.push(`big,host=h${row % 2000},dc=d${row % 7} a=${row % 97},b=${row % 13}i ${row}`);
  }
  return lines.join('\n');
}

t.test('SIGTERM during heavy queries exits quickly and loses nothing acknowledged', async (t) => {
  const server = await startServer({ shards: 2, httpToml: 'body_limit = "64MiB"' });
  t.teardown(() => server.kill());
  let acknowledged = 0;
  for (let b = 0; b < 40; b++) {
    t.equal((await writeLines(server.url, body(b))).status, 204);
    acknowledged += ROWS_PER_BODY;
  }
  const heavy = 'SELECT host, dc, count(*), avg(a), max(b) FROM big GROUP BY host, dc ORDER BY host';
  const queries = [sql(server.url, heavy), sql(server.url, heavy)].map((q) =>
    q.then(
      (r) => r.status,
      () => 'connection closed',
    ),
  );
  // Writes keep coming while the signal arrives; count only what was acknowledged.
  let writing = true;
  const writer = (async () => {
    for (let b = 40; writing; b++) {
      try {
        const w = await writeLines(server.url, body(b));
        if (w.status === 204) acknowledged += ROWS_PER_BODY;
      } catch {
        return;
      }
    }
  })();
  await new Promise((r) => setTimeout(r, 300));
  const started = performance.now();
  await server.stop();
  const exitMs = performance.now() - started;
  writing = false;
  await writer;
  t.ok(exitMs < 10_000, `exited ${exitMs.toFixed(0)} ms after SIGTERM`);
  t.match(server.output(), /shutting down/);
  for (const status of await Promise.all(queries)) {
    t.not(status, 200, `the heavy query did not run to completion (${status})`);
  }

  const again = await startServer({ shards: 2, dataDir: server.dataDir });
  t.teardown(() => again.stop());
  const count = await sql(again.url, 'SELECT count(*) FROM big');
  const stored = count.body.output?.[0]?.records?.rows[0]?.[0] as number;
  t.ok(stored >= acknowledged, `every acknowledged row is stored (${stored} >= ${acknowledged})`);
});
