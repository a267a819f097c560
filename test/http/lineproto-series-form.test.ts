/**
 * Line protocol hands the pipeline each series once (tag tuple, shard and storage key kept on the
 * parser's series record between requests). Property test against a plain model: random tag
 * sets per measurement (so a table's tag columns grow between requests), the same set with its
 * tags in another order, two databases with the same lines, and a restart in between. What SQL
 * reads back must be exactly the model.
 */
import t from 'tap';
import { prng } from '../helpers/prng.js';
import { rowsOf, sql, startServer, type TestServer } from '../helpers/server.js';

const MEASUREMENTS = ['lp_a', 'lp_b'];
const TAGS = ['h', 'r', 's', 'z'];
const VALUES = ['x', 'y', 'xy', 'x\\ y', 'x\\,y'];
const T0 = 1_700_000_000_000;

/** A series as the model names it: measurement and tags sorted, values unescaped. */
function canonical(measurement: string, tags: Array<[string, string]>): string {
  const sorted = [...tags].sort((p, q) => (p[0] < q[0] ? -1 : 1));
  return `${measurement}{${sorted.map(([k, v]) => `${k}=${v.replace(/\\(.)/g, '$1')}`).join(',')}}`;
}

async function stored(url: string, db: string): Promise<string[]> {
  const out: string[] = [];
  for (const m of MEASUREMENTS) {
    const res = await sql(url, `SELECT * FROM ${m}`, db);
    if (res.status !== 200) continue;
    const names = (res.body.output?.[0]?.records?.schema.column_schemas ?? []).map((c) => c.name);
    for (const row of rowsOf(res.body)) {
      const tags: Array<[string, string]> = [];
      let ts = 0;
      let v = 0;
      names.forEach((name, i) => {
        if (name === 'greptime_timestamp')
          ts = Math.round(Number(row[i]) / 1e6); // ns, past 2^53 in JSON
        else if (name === 'v') v = row[i] as number;
        else if (row[i] !== null) tags.push([name, row[i] as string]);
      });
      out.push(
        `${canonical(
          m,
          tags.map(([k, x]) => [k, x.replace(/([ ,])/g, '\\$1')]),
        )}@${ts}=${v}`,
      );
    }
  }
  return out.sort();
}

t.test('line protocol series keep their identity across requests, orders, databases and restarts', async (t) => {
  const rand = prng(Number(process.env.LP_SERIES_SEED ?? 5));
  const sets: Array<{ m: string; tags: Array<[string, string]> }> = [];
  for (let i = 0; i < 80; i++) {
    const tags: Array<[string, string]> = [];
    for (const k of TAGS) if (rand() < 0.5) tags.push([k, VALUES[Math.floor(rand() * VALUES.length)] as string]);
    sets.push({ m: MEASUREMENTS[i % 2] as string, tags });
  }
  const model = new Map<string, string[]>([
    ['public', []],
    ['other', []],
  ]);
  let clock = 0;
  const send = async (server: TestServer, rounds: number) => {
    for (let round = 0; round < rounds; round++) {
      // Early rounds use only part of the tag sets, so tables gain tag columns as rounds go on.
      const usable = Math.min(sets.length, 20 + round * 15);
      const lines: string[] = [];
      const sent: string[] = [];
      for (const set of sets.slice(0, usable)) {
        if (rand() < 0.3) continue;
        const tags = rand() < 0.4 ? [...set.tags].reverse() : set.tags;
        const ms = T0 + ++clock;
        const v = Math.round(rand() * 1000) / 4;
        lines.push(`${set.m}${tags.map(([k, x]) => `,${k}=${x}`).join('')} v=${v} ${ms}`);
        sent.push(`${canonical(set.m, set.tags)}@${ms}=${v}`);
      }
      for (const db of ['public', 'other']) {
        const res = await fetch(`${server.url}/v1/lineproto/write?db=${db}&precision=ms`, {
          method: 'POST',
          body: lines.join('\n'),
        });
        t.equal(res.status, 204, await res.text());
        model.get(db)?.push(...sent);
      }
    }
  };

  let server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  t.equal((await sql(server.url, 'CREATE DATABASE other')).status, 200);
  await send(server, 4);
  for (const db of ['public', 'other']) t.same(await stored(server.url, db), [...(model.get(db) ?? [])].sort(), db);

  await server.stop();
  server = await startServer({ dataDir: server.dataDir, shards: 2 });
  await send(server, 3);
  for (const db of ['public', 'other']) {
    t.same(await stored(server.url, db), [...(model.get(db) ?? [])].sort(), `${db} after a restart`);
  }
});
