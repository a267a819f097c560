/**
 * GROUP BY a tag and a `date_bin` time bucket over real shards: the shard reads the time index
 * from storage's int64 cells (no BigInt a row, functions/date-bin.ts) and gives a row the group of
 * the row before when their keys are equal (shard-exec.ts `groupRows`). What must hold: the groups
 * and their aggregates are those of the rows, computed here, whatever the bucket width and origin,
 * with rows in a segment and in the memtable, out of order, rewritten at the same timestamp, and
 * under a filter that keeps some rows of a batch (a selection over the cells).
 */
import t from 'tap';
import { prng } from '../helpers/prng.js';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const HOSTS = 9;

interface Row {
  host: string;
  ms: number;
  v: number;
}

/** Rows of every host at random times (some before T0, some repeating a time), in random order. */
function rows(seed: number, perHost: number): Row[] {
  const next = prng(seed);
  const out: Row[] = [];
  for (let h = 0; h < HOSTS; h++) {
    for (let i = 0; i < perHost; i++) {
      const ms = T0 + Math.floor((next() - 0.1) * 600_000);
      out.push({ host: `h${h}`, ms, v: Math.round(next() * 1000) / 4 });
    }
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as Row, out[i] as Row];
  }
  return out;
}

const lp = (batch: Row[]): string => batch.map((r) => `tb,host=${r.host} v=${r.v} ${r.ms}`).join('\n');

/** The expected groups: the last write of a (host, time) wins; bins by the definition. */
function expected(all: Row[], strideMs: number, originMs: number, keep: (v: number) => boolean): string[] {
  const latest = new Map<string, Row>();
  for (const r of all) latest.set(`${r.host}/${r.ms}`, r);
  const groups = new Map<string, { host: string; bin: number; n: number; sum: number; min: number; max: number }>();
  for (const r of latest.values()) {
    if (!keep(r.v)) continue;
    const bin = originMs + Math.floor((r.ms - originMs) / strideMs) * strideMs;
    const k = `${r.host}/${bin}`;
    const g = groups.get(k) ?? { host: r.host, bin, n: 0, sum: 0, min: Infinity, max: -Infinity };
    g.n++;
    g.sum += r.v;
    g.min = Math.min(g.min, r.v);
    g.max = Math.max(g.max, r.v);
    groups.set(k, g);
  }
  return [...groups.values()]
    .sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.bin - b.bin))
    .map((g) => JSON.stringify([g.host, g.bin, g.n, g.sum, g.min, g.max]));
}

t.test('GROUP BY tag, date_bin answers the groups of the rows', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const first = rows(3, 400);
  const second = rows(4, 300);
  // Rewrites of some first-batch rows at their own times, with new values.
  const rewrites = first.slice(0, 200).map((r) => ({ ...r, v: r.v + 1000 }));
  t.equal((await writeLines(server.url, lp(first))).status, 204, 'first batch written');
  t.equal((await sql(server.url, "ADMIN flush_table('tb')")).status, 200, 'flushed to a segment');
  t.equal((await writeLines(server.url, lp([...second, ...rewrites]))).status, 204, 'second batch in the memtable');
  const all = [...first, ...second, ...rewrites];

  const cases: Array<{
    stride: string;
    strideMs: number;
    origin?: string;
    originMs: number;
    where?: string;
    keep?: (v: number) => boolean;
  }> = [
    { stride: '1 minute', strideMs: 60_000, originMs: 0 },
    { stride: '7 seconds', strideMs: 7_000, originMs: 0 },
    { stride: '10 seconds', strideMs: 10_000, origin: '1970-01-01T00:00:03.250Z', originMs: 3_250 },
    { stride: '1 second', strideMs: 1_000, originMs: 0, where: 'v > 100', keep: (v) => v > 100 },
  ];
  for (const c of cases) {
    const bin = c.origin
      ? `date_bin(INTERVAL '${c.stride}', greptime_timestamp, '${c.origin}'::TIMESTAMP)`
      : `date_bin(INTERVAL '${c.stride}', greptime_timestamp)`;
    const statement =
      `SELECT host, CAST(${bin} AS BIGINT) / 1000000 AS b, count(*), sum(v), min(v), max(v) FROM tb` +
      `${c.where ? ` WHERE ${c.where}` : ''} GROUP BY host, b ORDER BY host, b`;
    const res = await sql(server.url, statement);
    t.equal(res.status, 200, `${c.stride}${c.where ? ` where ${c.where}` : ''}: answered`);
    const got = rowsOf(res.body).map((r) => JSON.stringify(r));
    const want = expected(all, c.strideMs, c.originMs, c.keep ?? (() => true));
    t.ok(want.length > HOSTS, `${c.stride}: ${want.length} groups expected`);
    t.same(got, want, `${c.stride}${c.where ? ` where ${c.where}` : ''}: groups and aggregates as computed`);
  }
});
