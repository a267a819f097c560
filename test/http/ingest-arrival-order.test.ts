/**
 * Parts of concurrent writes reach the shards in the order the requests arrived
 * (src/router/ingest/arrival-order.ts): a large request's rows are applied before those of a small
 * one sent after it, even though the small one finishes decoding first on the other shard, so a
 * series never receives older rows after newer ones; /metrics counts rows that did.
 */
import t from 'tap';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

const SERIES = 200;

function rows(from: number, to: number): string {
  const out: string[] = [];
  for (let ts = from; ts < to; ts++) for (let h = 0; h < SERIES; h++) out.push(`ao,host=h${h} v=${ts} ${ts}`);
  return out.join('\n');
}

async function metric(url: string, prefix: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(prefix)) total += Number(line.split(' ').at(-1));
  return total;
}

const outOfOrder = (url: string) => metric(url, 'shoaldb_shard_rows_out_of_order_total{');
/** Counted by the route just before the request takes its place in line (IngestPipeline.writeDecodedTables). */
const ingestBytes = (url: string) => metric(url, 'shoaldb_ingest_bytes_total{protocol="lineproto"}');

t.test('a small write sent behind a large one is applied after it', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, rows(1, 2))).status, 204, 'table and series made');
  let next = 2;
  for (let round = 0; round < 4; round++) {
    const largeBody = rows(next, next + 1000);
    const before = await ingestBytes(server.url);
    const large = writeLines(server.url, largeBody);
    // The small write goes once the large one is in line; its decode takes far longer than this.
    while ((await ingestBytes(server.url)) < before + largeBody.length) await new Promise((r) => setTimeout(r, 1));
    const small = writeLines(server.url, rows(next + 1000, next + 1001));
    const [a, b] = await Promise.all([large, small]);
    t.equal(a.status, 204);
    t.equal(b.status, 204);
    next += 1001;
  }
  t.equal(await outOfOrder(server.url), 0, 'no row reached its series after a newer one');
  const res = await sql(server.url, 'SELECT count(*), max(v) FROM ao');
  t.same(rowsOf(res.body)[0]?.map(Number), [(next - 1) * SERIES, next - 1], 'every row stored');
});

t.test("the counter counts rows older than their series' last", async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, rows(10, 11))).status, 204);
  t.equal(await outOfOrder(server.url), 0);
  t.equal((await writeLines(server.url, rows(5, 6))).status, 204);
  t.equal(await outOfOrder(server.url), SERIES, 'one late row per series');
});
