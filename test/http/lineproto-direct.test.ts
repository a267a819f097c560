/**
 * The direct write path of line protocol (src/shared/ingest/lineproto/point-parts.ts): points
 * whose measurement, tags and fields all exist with the right types skip planning and go straight
 * into per-shard parts; anything else takes the general path. What must hold: requests switching
 * between the paths store every point once, with NULL where a point lacks a field the request
 * carries and the column's default where the request does not carry it; the same series text
 * sent to two databases lands in each; type conflicts are refused as before; and known series
 * keep travelling by reference across a schema change.
 */
import t from 'tap';
import { metricSum, rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

async function rows(url: string, statement: string, db?: string): Promise<string[]> {
  const res = await sql(url, statement, db);
  if (res.status !== 200) throw new Error(`${statement}: ${JSON.stringify(res.body)}`);
  return rowsOf(res.body).map((r) => r.join('|'));
}

t.test('requests switching paths store every point once, NULL or default as the general path does', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const write = async (body: string) => t.equal((await writeLines(server.url, body)).status, 204, body);
  await write(`lp,host=a,dc=x v=1,n=10i,s="one",b=true ${T0}\nlp,host=b v=2 ${T0}`); // creates (general)
  await write(`lp,host=a,dc=x v=3,n=30i ${T0 + 1000}\nlp,host=b v=4,s="four" ${T0 + 1000}`); // direct
  t.equal((await sql(server.url, 'ALTER TABLE lp ADD COLUMN d DOUBLE DEFAULT 7')).status, 200);
  await write(`lp,host=a,dc=x v=5 ${T0 + 2000}\nlp,host=b d=6 ${T0 + 2000}`); // direct, carries d
  await write(`lp,host=c v=8 ${T0 + 3000}`); // a new series of known tags: direct
  await write(`lp,host=a,dc=x,rack=r1 v=9 ${T0 + 4000}`); // a new tag column: general
  await write(`lp,host=b v=10,extra=1u ${T0 + 5000}`); // a new field column: general
  const got = await rows(
    server.url,
    "SELECT host, coalesce(dc, '-'), coalesce(rack, '-'), greptime_timestamp, v, n, s, b, d, extra FROM lp ORDER BY host, greptime_timestamp",
  );
  const ts = (ms: number) => String(BigInt(ms) * 1_000_000n); // line protocol creates nanosecond time indexes
  t.same(got, [
    `a|x|-|${ts(T0)}|1|10|one|true|7|`,
    `a|x|-|${ts(T0 + 1000)}|3|30|||7|`,
    `a|x|-|${ts(T0 + 2000)}|5|||||`,
    `a|x|r1|${ts(T0 + 4000)}|9||||7|`,
    `b|-|-|${ts(T0)}|2||||7|`,
    `b|-|-|${ts(T0 + 1000)}|4||four||7|`,
    `b|-|-|${ts(T0 + 2000)}|||||6|`,
    `b|-|-|${ts(T0 + 5000)}|10||||7|1`,
    `c|-|-|${ts(T0 + 3000)}|8||||7|`,
  ]);
});

t.test('the same series text sent to two databases lands in each', async (t) => {
  // One shard: one decoding thread sees both databases (with two, requests alternate between them).
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  t.equal((await sql(server.url, 'CREATE DATABASE other')).status, 200);
  for (let step = 0; step < 4; step++) {
    for (const db of ['public', 'other']) {
      const line = `twin,host=a v=${db === 'public' ? step : 100 + step} ${T0 + step * 1000}`;
      t.equal((await writeLines(server.url, line, `db=${db}&precision=ms`)).status, 204);
    }
  }
  t.same(await rows(server.url, 'SELECT v FROM twin ORDER BY greptime_timestamp'), ['0', '1', '2', '3']);
  t.same(await rows(server.url, 'SELECT v FROM twin ORDER BY greptime_timestamp', 'other'), [
    '100',
    '101',
    '102',
    '103',
  ]);
});

t.test('type conflicts and timestamps out of range are refused as before, writing nothing', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, `tc,host=a v=1,n=1i ${T0}`)).status, 204);
  t.equal((await writeLines(server.url, `tc,host=a v=1,n=1i ${T0 + 1}`)).status, 204);
  const wrongType = await writeLines(server.url, `tc,host=a v=2,n=2.5 ${T0 + 2}`);
  t.equal(wrongType.status, 400, wrongType.text);
  t.match(wrongType.text, /n/);
  const tagAsField = await writeLines(server.url, `tc,host=a,v=x n=3i ${T0 + 3}`);
  t.equal(tagAsField.status, 400, tagAsField.text);
  const overflow = await writeLines(server.url, `tc,host=a v=3 9999999999999999`, 'db=public&precision=s');
  t.equal(overflow.status, 400, overflow.text);
  t.match(overflow.text, /overflow/i);
  t.same(await rows(server.url, 'SELECT count(*) FROM tc'), ['2']);
});

t.test('a schema change elsewhere keeps known series travelling by reference', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const pad = 'x'.repeat(200);
  const body = (step: number) =>
    Array.from({ length: 200 }, (_, h) => `kept,host=h${h},pad=${pad} v=${step} ${T0 + step * 1000}`).join('\n');
  const walBytes = () => metricSum(server.url, 'shoaldb_wal_bytes_total');
  const wal0 = await walBytes();
  t.equal((await writeLines(server.url, body(0))).status, 204);
  const first = (await walBytes()) - wal0;
  t.equal((await writeLines(server.url, body(1))).status, 204);
  t.equal((await sql(server.url, 'CREATE TABLE other (ts TIMESTAMP TIME INDEX, v DOUBLE)')).status, 200);
  const wal2 = await walBytes();
  for (let step = 2; step < 6; step++) t.equal((await writeLines(server.url, body(step))).status, 204);
  const laterEach = ((await walBytes()) - wal2) / 4;
  t.ok(laterEach < first / 4, `after the change, requests still carry ids (${laterEach} bytes each vs ${first})`);
  t.same(await rows(server.url, 'SELECT count(*), sum(v) FROM kept'), [`1200|${200 * (0 + 1 + 2 + 3 + 4 + 5)}`]);
});

t.test('points of one table alternating between field sets in one request keep each value in its column', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const write = async (body: string) => t.equal((await writeLines(server.url, body)).status, 204, body);
  await write(`alt,host=a v=0,n=0i,s="z" ${T0}`); // creates the table (general path)
  // Direct: four field sets, each coming back after another, in one request.
  await write(
    [
      `alt,host=a v=1 ${T0 + 1000}`,
      `alt,host=b n=2i ${T0 + 1000}`,
      `alt,host=a v=3 ${T0 + 2000}`,
      `alt,host=b s="four",v=4 ${T0 + 2000}`,
      `alt,host=c n=5i ${T0 + 1000}`,
      `alt,host=c v=6 ${T0 + 2000}`,
      `alt,host=a s="seven",v=7 ${T0 + 3000}`,
    ].join('\n'),
  );
  const got = await rows(server.url, "SELECT host, v, n, coalesce(s, '-') FROM alt ORDER BY host, greptime_timestamp");
  t.same(got, ['a|0|0|z', 'a|1||-', 'a|3||-', 'a|7||seven', 'b||2|-', 'b|4||four', 'c||5|-', 'c|6||-']);
});
