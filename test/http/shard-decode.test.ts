/**
 * Line protocol, remote write and OpenTSDB put bodies are decoded in the shard workers, against
 * their copy of the catalog. What must hold: the decoders really run there (not in the router); a
 * request planned against an old copy never writes into a table that changed meanwhile (DROP,
 * TRUNCATE, ALTER); writes racing schema changes lose nothing acknowledged; and the decoders'
 * series caches still show in /metrics.
 */
import t from 'tap';
import { readPprof } from '../helpers/pprof.js';
import { remoteWrite } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

async function count(url: string, table: string): Promise<number> {
  const res = await sql(url, `SELECT count(*) FROM ${table}`);
  return Number(rowsOf(res.body)[0]?.[0] ?? -1);
}

async function putPoints(url: string, points: unknown[]): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/v1/tsjson/api/put`, { method: 'POST', body: JSON.stringify(points) });
  return { status: res.status, text: await res.text() };
}

async function profileFiles(url: string, thread: string): Promise<Set<string>> {
  const res = await fetch(`${url}/debug/prof/cpu?seconds=3&frequency=500&output=proto&thread=${thread}`, {
    method: 'POST',
  });
  return readPprof(Buffer.from(await res.arrayBuffer())).files;
}

t.test('ingest decoding in the shards', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const { url } = server;

  await t.test('the decoders run in the shard threads, not in the router', async (t) => {
    const lines = Array.from({ length: 5000 }, (_, i) => `prof,host=h${i % 500},dc=d${i % 7} v=${i} ${T0 + i}`).join(
      '\n',
    );
    const series = Array.from({ length: 1000 }, (_, i) => ({
      labels: { __name__: 'prof_rw', host: `h${i}` },
      samples: [{ value: i, timestamp: T0 }],
    }));
    const points = Array.from({ length: 1000 }, (_, i) => ({
      metric: 'prof_tsdb',
      timestamp: T0 + i,
      value: i,
      tags: { host: `h${i % 100}` },
    }));
    let stop = false;
    let writes = 0;
    const loop = (post: () => Promise<{ status: number }>) =>
      (async () => {
        while (!stop) if ((await post()).status === 204) writes++;
      })();
    const loops = [
      loop(() => writeLines(url, lines)),
      loop(() => remoteWrite(url, series)),
      loop(() => putPoints(url, points)),
    ];
    try {
      // One profile at a time (a second one is refused with 409).
      const router = await profileFiles(url, 'router');
      const shard0 = await profileFiles(url, 'shard-0');
      const shard1 = await profileFiles(url, 'shard-1');
      t.ok(writes > 0, `writes went on while profiling (${writes})`);
      for (const decoder of ['lineproto', 'prom-remote', 'opentsdb']) {
        // Any frame of the protocol's decoder modules (the profile lists every function sampled).
        const has = (files: Set<string>) => [...files].some((f) => f.includes(`shared/ingest/${decoder}/`));
        t.ok(has(shard0) || has(shard1), `a shard profile holds ${decoder}`);
        t.notOk(has(router), `the router profile does not hold ${decoder}`);
      }
    } finally {
      stop = true;
      await Promise.all(loops);
    }
  });

  await t.test('a dropped, truncated or altered table is never written under its old schema', async (t) => {
    t.equal((await writeLines(url, `dd,host=a v=1 ${T0}\ndd,host=b v=2 ${T0}`)).status, 204);
    t.equal(await count(url, 'dd'), 2);

    t.equal((await sql(url, 'DROP TABLE dd')).status, 200);
    t.equal((await writeLines(url, `dd,host=c v=3 ${T0 + 1}`)).status, 204, 'written after DROP');
    t.equal(await count(url, 'dd'), 1, 'only the row written after the drop, in the new table');

    t.equal((await sql(url, 'TRUNCATE TABLE dd')).status, 200);
    t.equal((await writeLines(url, `dd,host=d v=4 ${T0 + 2}`)).status, 204, 'written after TRUNCATE');
    t.same(rowsOf((await sql(url, 'SELECT host, v FROM dd')).body), [['d', 4]]);

    t.equal((await sql(url, 'ALTER TABLE dd ADD COLUMN note STRING')).status, 200);
    const wrong = await writeLines(url, `dd,host=e note=5i ${T0 + 3}`);
    t.equal(wrong.status, 400, 'an integer into the new string column is refused');
    t.match(wrong.text, /note/);
    t.equal((await writeLines(url, `dd,host=e note="five" ${T0 + 3}`)).status, 204);
    t.same(rowsOf((await sql(url, "SELECT note FROM dd WHERE host = 'e'")).body), [['five']]);

    t.equal((await sql(url, 'DROP TABLE dd')).status, 200);
    t.equal((await writeLines(url, `dd,host=f note=6i ${T0 + 4}`)).status, 204, 'the dropped type no longer binds');
    t.same(rowsOf((await sql(url, 'SELECT host, note FROM dd')).body), [['f', 6]]);
  });

  await t.test('a refused request creates no table, even one only it needed', async (t) => {
    t.equal((await writeLines(url, `typed,host=a v=1i ${T0}`)).status, 204);
    const r = await writeLines(url, `fresh_table,host=a v=1 ${T0}\ntyped,host=a v="text" ${T0}`);
    t.equal(r.status, 400, 'a type conflict in one table refuses the request');
    const tables = await sql(url, "SELECT table_name FROM information_schema.tables WHERE table_name = 'fresh_table'");
    t.same(rowsOf(tables.body), [], 'the other table was not created');
  });

  await t.test('remote write and OpenTSDB put after DROP TABLE write into the new table', async (t) => {
    const rw = (v: number) => [
      { labels: { __name__: 'rw_dd', host: 'a' }, samples: [{ value: v, timestamp: T0 + v }] },
    ];
    t.equal((await remoteWrite(url, rw(1))).status, 204);
    t.equal((await sql(url, 'DROP TABLE rw_dd')).status, 200);
    t.equal((await remoteWrite(url, rw(2))).status, 204);
    t.same(rowsOf((await sql(url, 'SELECT greptime_value FROM rw_dd')).body), [[2]]);

    const put = (v: number) => [{ metric: 'tsdb_dd', timestamp: T0 + v, value: v, tags: { host: 'a' } }];
    t.equal((await putPoints(url, put(1))).status, 204);
    t.equal((await sql(url, 'TRUNCATE TABLE tsdb_dd')).status, 200);
    t.equal((await putPoints(url, put(2))).status, 204);
    t.same(rowsOf((await sql(url, 'SELECT greptime_value FROM tsdb_dd')).body), [[2]]);

    const bad = await putPoints(url, [
      ...put(3),
      { metric: 'tsdb_dd', timestamp: T0, value: 'x', tags: { host: 'a' } },
    ]);
    t.equal(bad.status, 400, 'a bad point refuses the whole put');
    t.match(bad.text, /data point 1/);
    t.same(rowsOf((await sql(url, 'SELECT greptime_value FROM tsdb_dd')).body), [[2]], 'nothing of it stored');
  });

  await t.test('writes racing schema changes lose nothing acknowledged', async (t) => {
    t.equal((await writeLines(url, `race,host=h0 v=0 ${T0}`)).status, 204);
    let acknowledged = 1;
    let stop = false;
    const writers = [0, 1, 2].map(async (w) => {
      for (let round = 0; !stop && round < 200; round++) {
        // Each request also adds a column of its own, so decoders keep needing new schema.
        const lines = Array.from(
          { length: 50 },
          (_, i) => `race,host=h${w}_${i} v=${round},f${w}_${round % 10}=1 ${T0 + 1 + round * 100 + i}`,
        ).join('\n');
        const r = await writeLines(url, lines);
        if (r.status === 204) acknowledged += 50;
        else t.fail(`write answered ${r.status} ${r.text}`);
      }
    });
    const ddl = (async () => {
      for (let k = 0; k < 15; k++) {
        const r = await sql(url, `ALTER TABLE race ADD COLUMN extra${k} DOUBLE`);
        t.equal(r.status, 200, `ALTER ${k}`);
      }
      stop = true;
    })();
    await Promise.all([...writers, ddl]);
    t.equal(await count(url, 'race'), acknowledged, 'every acknowledged row is stored');
  });

  await t.test('the decoders series caches are reported in /metrics', async (t) => {
    const lines = Array.from({ length: 60 }, (_, i) => `cached,host=c${i} v=1 ${T0}`).join('\n');
    t.equal((await writeLines(url, lines)).status, 204);
    const series = Array.from({ length: 60 }, (_, i) => ({
      labels: { __name__: 'cached_rw', host: `c${i}` },
      samples: [{ value: 1, timestamp: T0 }],
    }));
    t.equal((await remoteWrite(url, series)).status, 204);
    const points = Array.from({ length: 60 }, (_, i) => ({
      metric: 'cached_tsdb',
      timestamp: T0,
      value: 1,
      tags: { h: `c${i}` },
    }));
    t.equal((await putPoints(url, points)).status, 204);
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const protocol of ['lineproto', 'metricsapi-write', 'opentsdb']) {
      const m = new RegExp(`shoaldb_series_cache_entries\\{protocol="${protocol}"\\} (\\d+)`).exec(text);
      t.ok(m, `a ${protocol} series-cache gauge`);
      t.ok(Number(m?.[1]) >= 60, `${protocol}: at least the 60 series just written (${m?.[1]})`);
    }
  });
});
