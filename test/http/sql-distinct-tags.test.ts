/**
 * `DISTINCT` over a tag with no row filter (`count(DISTINCT host)`, grouped by another tag or not)
 * folds one value a series: from series runs while rows are in the memtable, from series
 * statistics once flushed (no block is decoded: `shoaldb_segment_blocks_read_total` stays put).
 * The answers are those of the rows, computed here; a series whose rows hold no value of the tag
 * adds nothing, and a row filter takes the general path with the same answer.
 */
import t, { type Test } from 'tap';
import { metricSum, rowsOf, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
let server: TestServer;
/** dc → hosts seen there. */
const model = new Map<string, Set<string>>();
const allHosts = new Set<string>();

t.before(async () => {
  server = await startServer({ shards: 2 });
  const lines: string[] = [];
  for (let h = 0; h < 90; h++) {
    const dc = `dc${h % 4}`;
    for (let i = 0; i < 30; i++) {
      // Every fifth host has rows without the host tag too (a series of its own, host NULL).
      const host = h % 5 === 0 && i % 2 === 0 ? '' : `,host=h${h % 70}`;
      lines.push(`d,dc=${dc}${host} v=${i} ${T0 + i * 1000}`);
      if (host !== '') {
        if (!model.has(dc)) model.set(dc, new Set());
        model.get(dc)?.add(`h${h % 70}`);
        allHosts.add(`h${h % 70}`);
      }
    }
  }
  const res = await writeLines(server.url, lines.join('\n'));
  if (res.status !== 204) throw new Error(`write ${res.status}`);
});
t.teardown(() => server.stop());

async function rows(statement: string): Promise<unknown[][]> {
  const res = await sql(server.url, statement);
  if (res.status !== 200) throw new Error(`${statement}: ${JSON.stringify(res.body)}`);
  return rowsOf(res.body);
}

async function check(t: Test, stage: string): Promise<void> {
  t.same(await rows('SELECT count(DISTINCT host) FROM d'), [[allHosts.size]], `${stage}: whole table`);
  const perDc = [...model.keys()].sort().map((dc) => [dc, model.get(dc)?.size]);
  t.same(await rows('SELECT dc, count(DISTINCT host) FROM d GROUP BY dc ORDER BY dc'), perDc, `${stage}: per dc`);
  t.same(
    await rows("SELECT count(DISTINCT host) FROM d WHERE v >= 0 AND dc != 'none'"),
    [[allHosts.size]],
    `${stage}: with a row filter (general path), the same`,
  );
}

t.test('in the memtable (series runs)', (t) => check(t, 'memtable'));

t.test('in segments: from series statistics, no block decoded', async (t) => {
  t.equal((await sql(server.url, "ADMIN flush_table('d')")).status, 200);
  const blocks = await metricSum(server.url, 'shoaldb_segment_blocks_read_total');
  const summarised = await metricSum(server.url, 'shoaldb_scan_series_summarised_total');
  t.same(
    await rows('SELECT dc, count(DISTINCT host) FROM d GROUP BY dc ORDER BY dc'),
    [...model.keys()].sort().map((dc) => [dc, model.get(dc)?.size]),
  );
  t.equal(await metricSum(server.url, 'shoaldb_segment_blocks_read_total'), blocks, 'no block decoded');
  t.ok(
    (await metricSum(server.url, 'shoaldb_scan_series_summarised_total')) > summarised,
    'series taken from statistics',
  );
  await check(t, 'segments');
});
