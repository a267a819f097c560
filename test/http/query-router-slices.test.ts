/**
 * Router-side query work (joins) runs in slices: a join that explodes is refused on the memory
 * limit from its pair count, and while it works the router keeps answering /health and writes.
 */
import t from 'tap';
import { sql, startServer, writeLines } from '../helpers/server.js';

/** Polls /health every 10 ms until `done` resolves; returns the worst latency seen. */
async function worstHealthMs(url: string, done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  let worst = 0;
  while (!finished) {
    const t0 = performance.now();
    const res = await fetch(`${url}/health`);
    await res.arrayBuffer();
    worst = Math.max(worst, performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  return worst;
}

t.test('a 20-way self-join is refused on the memory limit without stalling the router', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const rows = ['m,host=a v=1 0', 'm,host=a v=2 4102444800', 'm,host=b v=3 1700000000'].join('\n');
  t.equal((await writeLines(server.url, rows, 'db=public&precision=s')).status, 204);

  const aliases = Array.from({ length: 20 }, (_, i) => `m t${i}`);
  const started = performance.now();
  const join = sql(server.url, `SELECT count(*) FROM ${aliases.join(', ')}`);
  const health = worstHealthMs(server.url, join);
  const write = await writeLines(server.url, 'm,host=c v=4 1700000001', 'db=public&precision=s');
  t.equal(write.status, 204, 'a write during the join is acknowledged');
  const res = await join;
  const ms = performance.now() - started;
  const worst = await health;
  t.equal(res.body.code, 6000, res.text);
  t.match(res.body.error, /memory limit .*query\.memory_limit.* joining/);
  t.ok(ms < 10_000, `answered in ${ms.toFixed(0)} ms`);
  // Before slicing the join held the event loop for seconds; the bound leaves room for a CI
  // machine running other tests at the same time.
  t.ok(worst < 250, `/health answered within ${worst.toFixed(0)} ms meanwhile`);

  const two = await sql(server.url, 'SELECT count(*) FROM m a JOIN m b ON a.host = b.host');
  t.same(two.body.output?.[0]?.records?.rows, [[6]], 'joins still answer (a: 2×2, b: 1, c: 1)');
});

t.test('a RANGE FILL grid of 400,000 rows is merged, filled, sorted and encoded in slices', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const slots = 400_000;
  const rows = `m,host=a v=1 1700000000\nm,host=a v=${slots} ${1_700_000_000 + slots - 1}`;
  t.equal((await writeLines(server.url, rows, 'db=public&precision=s')).status, 204);

  for (const fill of ['LINEAR', 'PREV']) {
    const statement = `SELECT greptime_timestamp, host, min(v) RANGE '1s' FILL ${fill} FROM m ALIGN '1s' BY (host) ORDER BY greptime_timestamp DESC`;
    // The body is read as text while /health is probed and parsed after: parsing megabytes of
    // JSON here would stall this process's own probe, not the server.
    const query = fetch(`${server.url}/v1/sql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `sql=${encodeURIComponent(statement)}`,
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
    const health = worstHealthMs(server.url, query);
    const write = await writeLines(server.url, 'other,host=c v=4 1700000001', 'db=public&precision=s');
    t.equal(write.status, 204, `a write during FILL ${fill} is acknowledged`);
    const res = await query;
    const worst = await health;
    t.equal(res.status, 200, res.text.slice(0, 200));
    const got =
      (JSON.parse(res.text) as { output: { records: { rows: unknown[][] } }[] }).output[0]?.records.rows ?? [];
    t.equal(got.length, slots, `FILL ${fill}: every slot`);
    // Descending: the last slot first; LINEAR interpolates 1..slots, PREV carries 1 forward.
    t.same(got[0], [(1_700_000_000 + slots - 1) * 1e9, 'a', slots]);
    t.same(got[1], [(1_700_000_000 + slots - 2) * 1e9, 'a', fill === 'LINEAR' ? slots - 1 : 1]);
    // Before slicing, this held the event loop for over a second.
    t.ok(worst < 100, `FILL ${fill}: /health answered within ${worst.toFixed(0)} ms meanwhile`);
  }
});
