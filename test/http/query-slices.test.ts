/**
 * A shard serves writes between the slices of a long query: its scan pauses every
 * `query.slice_time` and a write that arrived meanwhile runs at the next pause. Without slices a
 * write to the shard waited for the whole query.
 */
import t from 'tap';
import { sql, startServer, writeLines } from '../helpers/server.js';

const ROWS_PER_BODY = 10_000;

function body(b: number): string {
  const lines: string[] = [];
  for (let i = 0; i < ROWS_PER_BODY; i++) {
    const row = b * ROWS_PER_BODY + i;
    lines.push(`big,host=h${row % 2000},dc=d${row % 7} a=${row % 97},b=${row % 13}i,c="s${row % 5}" ${row}`);
  }
  return lines.join('\n');
}

t.test('writes are acknowledged while a long scan runs on the same shard', async (t) => {
  const server = await startServer({ shards: 1, httpToml: 'body_limit = "64MiB"' });
  t.teardown(() => server.stop());
  const bodies = 40;
  for (let b = 0; b < bodies; b++) t.equal((await writeLines(server.url, body(b))).status, 204);

  const heavy = 'SELECT host, dc, count(*), avg(a), max(b), min(c) FROM big GROUP BY host, dc ORDER BY host';
  let queryDone = false;
  const started = performance.now();
  const query = sql(server.url, heavy).then((res) => {
    queryDone = true;
    return { res, ms: performance.now() - started };
  });
  const latencies: number[] = [];
  let n = 0;
  while (!queryDone) {
    const t0 = performance.now();
    const w = await writeLines(server.url, `small,host=x v=${n} ${1_700_000_000_000 + n}`);
    if (!queryDone) latencies.push(performance.now() - t0);
    t.equal(w.status, 204);
    n++;
    await new Promise((r) => setTimeout(r, 20));
  }
  const { res, ms } = await query;
  t.equal(res.status, 200, res.text);
  t.equal(res.body.output?.[0]?.records?.rows.length, 14_000, 'one row per (host, dc)');
  latencies.sort((a, b) => a - b);
  const worst = latencies[latencies.length - 1] ?? 0;
  t.comment(`query ${ms.toFixed(0)} ms; ${latencies.length} writes during it, worst ${worst.toFixed(0)} ms`);
  t.ok(latencies.length >= 3, 'the query ran long enough to write during it');
  t.ok(
    worst < Math.max(250, ms / 4),
    `no write waited for the query (worst ${worst.toFixed(0)} ms of ${ms.toFixed(0)})`,
  );
  const small = await sql(server.url, 'SELECT count(*) FROM small');
  t.same(small.body.output?.[0]?.records?.rows, [[n]], 'every acknowledged write is there');
});

/** The sum over every shard of one /metrics counter. */
async function counter(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}\\{[^}]*\\} ([0-9.e+]+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

t.test('a sliced scan answers from one snapshot while flushes and compactions run under it', async (t) => {
  // Small memtables and segments, so that a query's slices interleave with flushes and compactions.
  const server = await startServer({
    shards: 1,
    extraToml:
      '[memtable]\nflush_size = "1MiB"\nreject_size = "0"\n[segment]\ncompaction_trigger = 2\nblock_rows = 1024\n',
  });
  t.teardown(() => server.stop());
  const bodies = 30;
  for (let b = 0; b < bodies; b++) t.equal((await writeLines(server.url, body(b))).status, 204);
  let rows = bodies * ROWS_PER_BODY;
  // Σ a over every row, as the body() generator makes it.
  const sumOfA = (n: number): number => {
    let sum = 0;
    for (let row = 0; row < n; row++) sum += row % 97;
    return sum;
  };
  const statement = 'SELECT count(*), sum(a), count(DISTINCT host) FROM big';
  const flushesBefore = await counter(server.url, 'shoaldb_flushes_total');
  const compactionsBefore = await counter(server.url, 'shoaldb_compactions_total');

  for (let round = 0; round < 3; round++) {
    // The query and the maintenance are sent together: the flush freezes the memtable the scan
    // reads and the compaction retires the segments it reads, while its slices go on.
    const [answer, flushed, compacted] = await Promise.all([
      sql(server.url, statement),
      sql(server.url, "ADMIN flush_table('big')"),
      sql(server.url, "ADMIN compact_table('big')"),
    ]);
    t.equal(flushed.status, 200, flushed.text);
    t.equal(compacted.status, 200, compacted.text);
    t.equal(answer.status, 200, answer.text);
    t.same(answer.body.output?.[0]?.records?.rows, [[rows, sumOfA(rows), 2000]], `round ${round}: every row once`);
    // More rows for the next round's memtable, at new timestamps.
    t.equal((await writeLines(server.url, body(bodies + round))).status, 204);
    rows += ROWS_PER_BODY;
  }
  t.ok((await counter(server.url, 'shoaldb_flushes_total')) > flushesBefore, 'flushes ran during the rounds');
  t.ok(
    (await counter(server.url, 'shoaldb_compactions_total')) > compactionsBefore,
    'compactions ran during the rounds',
  );
});
