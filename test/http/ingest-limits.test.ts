/**
 * Write-path limits from the config (ingest.line_max_bytes, ingest.shard_queue_size,
 * memtable.reject_size), each crossed over real HTTP: the documented error, nothing of a refused
 * request stored, everything acknowledged readable, the server still serving, and /metrics
 * counting the refusal by reason next to the shard timings.
 */

import t from 'tap';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

async function metricsText(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  return res.text();
}

/** The value of one exposition line, e.g. `shoaldb_requests_rejected_total{reason="x"}`; NaN when absent. */
function metricValue(text: string, series: string): number {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return Number.NaN;
}

async function countRows(url: string, table: string): Promise<number> {
  const res = await sql(url, `SELECT count(*) FROM ${table}`);
  if (res.status !== 200) throw new Error(`count failed: ${res.status} ${JSON.stringify(res.body)}`);
  return Number(rowsOf(res.body)[0]?.[0]);
}

function lines(table: string, first: number, count: number, pad = ''): string {
  const out: string[] = [];
  for (let i = first; i < first + count; i++)
    out.push(`${table},host=h${i % 50}${pad} v=${i} ${1_700_000_000_000 + i}`);
  return out.join('\n');
}

t.test('ingest.line_max_bytes refuses a longer line with 400 naming it; shorter lines are stored', async (t) => {
  const server = await startServer({ extraToml: '[ingest]\nline_max_bytes = "100B"' });
  t.teardown(() => server.stop());
  const long = `lm,host=a v=1 1\nlm,host=a s="${'x'.repeat(120)}" 2`;
  const refused = await writeLines(server.url, long);
  t.equal(refused.status, 400);
  t.match(refused.text, /line 2/);
  t.match(refused.text, /ingest\.line_max_bytes/);
  // Whole body refused: not even line 1 was written.
  t.equal((await sql(server.url, 'SELECT count(*) FROM lm')).status, 400, 'table never created');
  const ok = await writeLines(server.url, `lm,host=a v=1 1\nlm,host=a s="${'x'.repeat(40)}" 2`);
  t.equal(ok.status, 204);
  t.equal(await countRows(server.url, 'lm'), 2);
  const metrics = await metricsText(server.url);
  t.equal(metricValue(metrics, 'shoaldb_requests_rejected_total{reason="line_length"}'), 1);
});

t.test('ingest.shard_queue_size refuses writes past a full queue with 429, storing none of them', async (t) => {
  // A queue that holds one waiting write: a third concurrent write is refused. Two shards, and
  // rows of 50 series in every request: each request has a part for the shard that does not
  // decode it, and only such parts wait in the router (a decoder writes its own part itself when
  // it is the whole body, docs/partitioning.md).
  const server = await startServer({ shards: 2, extraToml: '[ingest]\nshard_queue_size = "1B"' });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, lines('q', 0, 1))).status, 204, 'table created');
  let accepted = 1;
  let refused = 0;
  const rows = 200;
  // Bounded: a few rounds of concurrent writers, until some were refused.
  for (let round = 0; round < 5 && refused === 0; round++) {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        writeLines(server.url, lines('q', 1_000_000 * (round + 1) + i * rows, rows)),
      ),
    );
    for (const r of results) {
      if (r.status === 204) accepted += rows;
      else if (r.status === 429 && r.text.includes('ingest.shard_queue_size')) {
        refused++;
        t.equal(r.headers.get('retry-after'), '1', 'a refused writer is told when to retry');
      } else t.fail(`unexpected answer ${r.status} ${r.text}`);
    }
  }
  t.ok(refused > 0, `some writes were refused (${refused})`);
  t.equal(await countRows(server.url, 'q'), accepted, 'exactly the acknowledged rows are stored');
  const metrics = await metricsText(server.url);
  t.equal(metricValue(metrics, 'shoaldb_requests_rejected_total{reason="shard_queue"}'), refused);
  t.equal(metricValue(metrics, 'shoaldb_shard_write_queue_writes{shard="0"}'), 0, 'queue drained');
  t.ok(metricValue(metrics, 'shoaldb_wal_fsync_duration_seconds_count{shard="0"}') > 0, 'fsyncs timed');
  t.equal((await writeLines(server.url, lines('q', 0, 1))).status, 204, 'still serving');
});

t.test('a body whose rows all belong to the decoding shard never waits in a shard queue', async (t) => {
  // One shard decodes and owns every body: it writes them itself, so even a queue of one byte
  // refuses none of 40 concurrent writers, and every row is stored.
  const server = await startServer({ shards: 1, extraToml: '[ingest]\nshard_queue_size = "1B"' });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, lines('own', 0, 1))).status, 204, 'table created');
  const rows = 200;
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) => writeLines(server.url, lines('own', 1_000_000 + i * rows, rows))),
  );
  t.same(
    results.map((r) => r.status),
    results.map(() => 204),
    'every write acknowledged',
  );
  t.equal(await countRows(server.url, 'own'), 1 + 40 * rows, 'every row stored');
  const metrics = await metricsText(server.url);
  t.ok(
    Number.isNaN(metricValue(metrics, 'shoaldb_requests_rejected_total{reason="shard_queue"}')) ||
      metricValue(metrics, 'shoaldb_requests_rejected_total{reason="shard_queue"}') === 0,
    'no shard-queue refusal',
  );
});

t.test(
  'Loki push and /v1/ingest past the in-flight write bytes: 429 with Retry-After, nothing of it stored',
  async (t) => {
    // Log rows stay in the shard that decodes them and never wait in a shard queue: what bounds
    // concurrent log writes is the bytes of bodies being handled.
    const server = await startServer({
      shards: 2,
      topLevelToml: 'max_in_flight_write_bytes = "4KiB"\nwrite_bytes_exhausted_policy = "fail"',
    });
    t.teardown(() => server.stop());
    const ns = (i: number): string => String(1_700_000_000_000_000_000n + BigInt(i) * 1000n);
    const routes: Array<{ name: string; table: string; post: (i: number) => Promise<Response> }> = [
      {
        name: 'Loki push',
        table: 'loki_logs',
        post: (i) =>
          fetch(`${server.url}/v1/logpush/api/v1/push`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              streams: [
                { stream: { job: 'j' }, values: Array.from({ length: 50 }, (_, k) => [ns(i * 50 + k), 'line']) },
              ],
            }),
          }),
      },
      {
        name: '/v1/ingest',
        table: 'applog',
        post: (i) =>
          fetch(`${server.url}/v1/ingest?table=applog&pipeline_name=greptime_identity`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(Array.from({ length: 50 }, (_, k) => ({ n: i * 50 + k, msg: 'line' }))),
          }),
      },
    ];
    for (const route of routes) {
      t.equal((await route.post(0)).status < 300, true, `${route.name}: table created`);
      let accepted = 50;
      let refused = 0;
      for (let round = 1; round <= 5 && refused === 0; round++) {
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => route.post(round * 1000 + i)));
        for (const r of answers) {
          if (r.status < 300) accepted += 50;
          else if (r.status === 429) {
            refused++;
            t.equal(r.headers.get('retry-after'), '1', `${route.name}: a refused writer is told when to retry`);
          } else t.fail(`${route.name}: unexpected answer ${r.status} ${await r.text()}`);
        }
      }
      t.ok(refused > 0, `${route.name}: some writes were refused (${refused})`);
      t.equal(await countRows(server.url, route.table), accepted, `${route.name}: exactly the acknowledged rows`);
    }
  },
);

t.test('memtable.reject_size refuses writes with 503 until a flush makes room', async (t) => {
  const server = await startServer({
    shards: 1,
    extraToml: '[memtable]\nflush_size = "1MiB"\nreject_size = "2MiB"',
  });
  t.teardown(() => server.stop());
  // One big write is taken (the memtables were empty) and leaves a flush of many MiB under way.
  const big = 200_000;
  const first = await writeLines(server.url, lines('mr', 0, big, ',zone=eu-central-1,rack=r17'));
  t.equal(first.status, 204, first.text);
  let accepted = big;
  let refusedText = '';
  let next = big;
  let resumed = false;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const res = await writeLines(server.url, lines('mr', next, 10));
    next += 10;
    if (res.status === 204) {
      accepted += 10;
      if (refusedText !== '') {
        resumed = true;
        break;
      }
    } else {
      t.equal(res.status, 503, res.text);
      t.equal(res.headers.get('retry-after'), '1');
      refusedText = res.text;
    }
    if (refusedText === '' && next > big + 2000) break;
  }
  t.match(refusedText, /memtable\.reject_size/, 'a write was refused while the flush ran');
  t.ok(resumed, 'writes were taken again after the flush');
  t.equal(await countRows(server.url, 'mr'), accepted, 'exactly the acknowledged rows are stored');
  const metrics = await metricsText(server.url);
  t.ok(metricValue(metrics, 'shoaldb_requests_rejected_total{reason="memtable"}') >= 1);
  t.ok(metricValue(metrics, 'shoaldb_flush_duration_seconds_count{shard="0"}') >= 1, 'flush timed');
  t.ok(metricValue(metrics, 'shoaldb_flush_duration_seconds_sum{shard="0"}') > 0);
});

t.test('/metrics exposes compaction and query durations, and queue depths per shard', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  for (let i = 0; i < 2; i++) {
    t.equal((await writeLines(server.url, lines('cm', i * 100, 100))).status, 204);
    t.equal((await sql(server.url, "ADMIN flush_table('cm')")).status, 200);
  }
  t.equal((await sql(server.url, "ADMIN compact_table('cm')")).status, 200);
  t.equal((await sql(server.url, 'SELECT count(*) FROM cm')).status, 200);
  const promql = await fetch(`${server.url}/v1/metricsapi/api/v1/query?query=cm&time=1700000000`);
  t.equal(promql.status, 200);
  const metrics = await metricsText(server.url);
  const compactions =
    metricValue(metrics, 'shoaldb_compaction_duration_seconds_count{shard="0"}') +
    metricValue(metrics, 'shoaldb_compaction_duration_seconds_count{shard="1"}');
  t.ok(compactions >= 1, `compactions timed (${compactions})`);
  t.equal(
    metricValue(metrics, 'shoaldb_compaction_duration_seconds_bucket{le="+Inf",shard="0"}'),
    metricValue(metrics, 'shoaldb_compaction_duration_seconds_count{shard="0"}'),
    '+Inf bucket equals the count',
  );
  t.equal(metricValue(metrics, 'shoaldb_query_duration_seconds_count{language="sql",outcome="ok"}') >= 3, true);
  t.equal(metricValue(metrics, 'shoaldb_query_duration_seconds_count{language="promql",outcome="ok"}'), 1);
  t.equal(metricValue(metrics, 'shoaldb_shard_write_queue_bytes{shard="1"}'), 0);
  t.match(metrics, /# TYPE shoaldb_wal_fsync_duration_seconds histogram/);
});
