/**
 * Grouped SQL answers cross from the shards to the router as packed columns (group-wire.ts) when
 * every aggregate's states are plain numbers, and as objects otherwise; `/metrics` counts the
 * groups by form. Asserted over a real server: the form a query's groups took, and that the
 * answers of both forms are those of the rows.
 */
import t from 'tap';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

const HOSTS = 40;

async function groupsReturned(url: string): Promise<{ packed: number; objects: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = { packed: 0, objects: 0 };
  for (const m of text.matchAll(/^shoaldb_sql_shard_groups_returned_total\{form="(\w+)"\} (\d+)$/gm)) {
    out[m[1] as 'packed' | 'objects'] = Number(m[2]);
  }
  return out;
}

t.test('number states travel packed, others as objects; both answer as the rows do', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const lines: string[] = [];
  for (let h = 0; h < HOSTS; h++)
    for (let i = 0; i < 50; i++) lines.push(`gw,host=h${h} v=${h + i} ${1_700_000_000_000 + i * 1000}`);
  t.equal((await writeLines(server.url, lines.join('\n'))).status, 204, 'written');

  const before = await groupsReturned(server.url);
  const numbers = await sql(
    server.url,
    'SELECT host, count(*), sum(v), avg(v), min(v), max(v) FROM gw GROUP BY host ORDER BY host',
  );
  t.equal(numbers.status, 200);
  const afterNumbers = await groupsReturned(server.url);
  t.equal(afterNumbers.packed - before.packed, HOSTS, 'every group of number states came packed');
  t.equal(afterNumbers.objects - before.objects, 0, 'none as objects');
  const rows = rowsOf(numbers.body);
  t.same(
    rows.find((r) => r[0] === 'h3'),
    ['h3', 50, 50 * 3 + 1225, 3 + 24.5, 3, 52],
    'a group answers as its rows',
  );

  const lists = await sql(server.url, 'SELECT host, count(*), array_agg(v) FROM gw GROUP BY host ORDER BY host');
  t.equal(lists.status, 200);
  const afterLists = await groupsReturned(server.url);
  t.equal(afterLists.objects - afterNumbers.objects, HOSTS, 'groups with a list state came as objects');
  t.equal(afterLists.packed - afterNumbers.packed, 0, 'none of them packed');
  const agg = rowsOf(lists.body).find((r) => r[0] === 'h3') as unknown[];
  t.same(
    [agg[0], agg[1], [...(agg[2] as number[])].sort((a, b) => a - b)],
    ['h3', 50, Array.from({ length: 50 }, (_, i) => 3 + i)],
  );
});
