/**
 * Aggregates from segment statistics (src/shard/scan-summaries.ts, segment/series-stats.ts):
 * `GROUP BY` tags of count/sum/avg/min/max with no row filter take a flushed series from its
 * segment's statistics instead of its blocks. What must hold: the answers are those of the rows
 * (before and after a flush, after a restart), no block is decoded for series the statistics
 * cover, and whatever could make the statistics wrong falls back to the rows: rows rewritten at
 * the same timestamps in a newer memtable or segment, tombstones, NaN values, a column added with
 * a DEFAULT, a time range that cuts a series.
 */
import t, { type Test } from 'tap';
import { metricSum, rowsOf, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const HOSTS = 12;
const ROWS = 200;
/** A row's time as the table stores it (line protocol creates nanosecond time indexes). */
const ns = (ms: number): bigint => BigInt(ms) * 1_000_000n;
const AGG = 'SELECT host, count(*), count(v), sum(v), avg(v), min(v), max(v) FROM m GROUP BY host ORDER BY host';

/** Host h, row i: v = h * 1000 + i, except every 10th row of odd hosts, which has only w. */
function lines(from: number, to: number, bump = 0, hosts = HOSTS): string {
  const out: string[] = [];
  for (let h = 0; h < hosts; h++) {
    for (let i = from; i < to; i++) {
      const field = h % 2 === 1 && i % 10 === 0 ? `w=${i}` : `v=${h * 1000 + i + bump},w=${i}`;
      out.push(`m,host=h${h},dc=d${h % 3} ${field} ${T0 + i * 1000}`);
    }
  }
  return out.join('\n');
}

async function answer(server: TestServer, statement = AGG): Promise<string[]> {
  const res = await sql(server.url, statement);
  if (res.status !== 200) throw new Error(`${statement}: ${JSON.stringify(res.body)}`);
  return rowsOf(res.body).map((r) => JSON.stringify(r));
}

async function flush(t: Test, server: TestServer): Promise<void> {
  t.equal((await sql(server.url, "ADMIN flush_table('m')")).status, 200, 'flushed');
}

/** The answer of AGG computed here: per host, values by timestamp (the last write wins). */
function model(values: Map<string, Map<number, number | null>>): string[] {
  return [...values.keys()].sort().map((host) => {
    const rows = [...(values.get(host) as Map<number, number | null>).values()];
    const present = rows.filter((v): v is number => v !== null);
    const sum = present.reduce((a, b) => a + b, 0);
    return JSON.stringify([
      host,
      rows.length,
      present.length,
      sum,
      sum / present.length,
      Math.min(...present),
      Math.max(...present),
    ]);
  });
}

function written(from: number, to: number, bump = 0, into = new Map<string, Map<number, number | null>>()) {
  for (let h = 0; h < HOSTS; h++) {
    const rows = into.get(`h${h}`) ?? new Map<number, number | null>();
    into.set(`h${h}`, rows);
    for (let i = from; i < to; i++) rows.set(i, h % 2 === 1 && i % 10 === 0 ? null : h * 1000 + i + bump);
  }
  return into;
}

t.test('flushed series are aggregated from their statistics, with the answers of their rows', async (t) => {
  let server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, lines(0, ROWS))).status, 204);
  const expected = model(written(0, ROWS));
  t.same(await answer(server), expected, 'from the memtable');
  await flush(t, server);
  const blocks0 = await metricSum(server.url, 'shoaldb_segment_blocks_read_total');
  t.same(await answer(server), expected, 'from the segments');
  t.equal(await metricSum(server.url, 'shoaldb_segment_blocks_read_total'), blocks0, 'no block decoded');
  // Grouped by another tag, several series fold into one group.
  const byDc = await answer(server, 'SELECT dc, count(*), sum(v) FROM m GROUP BY dc ORDER BY dc');
  t.equal(byDc.length, 3);
  t.equal(await metricSum(server.url, 'shoaldb_segment_blocks_read_total'), blocks0, 'no block decoded');
  // A query that needs the rows still reads them.
  let above = 0;
  for (const rows of written(0, ROWS).values()) for (const v of rows.values()) if (v !== null && v > 5000) above++;
  t.same(await answer(server, 'SELECT count(*) FROM m WHERE v > 5000'), [JSON.stringify([above])]);
  t.ok((await metricSum(server.url, 'shoaldb_segment_blocks_read_total')) > blocks0, 'a row filter reads blocks');
  // The statistics are on disk: a restart answers the same without decoding blocks.
  await server.kill();
  server = await startServer({ shards: 2, dataDir: server.dataDir });
  const blocks1 = await metricSum(server.url, 'shoaldb_segment_blocks_read_total');
  t.same(await answer(server), expected, 'after a restart');
  t.equal(await metricSum(server.url, 'shoaldb_segment_blocks_read_total'), blocks1, 'no block decoded');
});

t.test('rows rewritten at the same timestamps are merged, not counted twice', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, lines(0, ROWS))).status, 204);
  await flush(t, server);
  // Rows 150..249 again with other values: half overwrite flushed rows, in the memtable.
  t.equal((await writeLines(server.url, lines(150, 250, 7))).status, 204);
  const values = written(150, 250, 7, written(0, ROWS));
  t.same(await answer(server), model(values), 'segment and memtable overlap');
  // The same overlap between two segments.
  await flush(t, server);
  t.same(await answer(server), model(values), 'two overlapping segments');
  // Rows after the flushed span only: no overlap, and the answer is still the model's.
  t.equal((await writeLines(server.url, lines(300, 320))).status, 204);
  written(300, 320, 0, values);
  t.same(await answer(server), model(values), 'disjoint memtable rows');
  // Compacted (the two overlapping segments become one), flushed, then rows 310..314 rewritten:
  // only the newest segment overlaps the memtable, so the older one of each series is still taken
  // from its statistics.
  t.equal((await sql(server.url, "ADMIN compact_table('m')")).status, 200, 'compacted');
  await flush(t, server);
  t.equal((await writeLines(server.url, lines(310, 315, 11))).status, 204);
  written(310, 315, 11, values);
  const blocks0 = await metricSum(server.url, 'shoaldb_segment_blocks_read_total');
  t.same(await answer(server), model(values), 'one overlapping segment among disjoint ones');
  const summarised = (await metricSum(server.url, 'shoaldb_segment_blocks_read_total')) - blocks0;
  await answer(server, 'SELECT host, count(*), sum(v) FROM m WHERE v > -1 GROUP BY host');
  const all = (await metricSum(server.url, 'shoaldb_segment_blocks_read_total')) - blocks0 - summarised;
  t.ok(summarised > 0 && summarised < all, `reads the overlapping segment's blocks only (${summarised} of ${all})`);
  // A time range that cuts the series reads their rows.
  const cut = await answer(
    server,
    `SELECT host, count(*), sum(v) FROM m WHERE greptime_timestamp >= ${ns(T0 + 100_000)} AND greptime_timestamp < ${ns(T0 + 180_000)} GROUP BY host ORDER BY host`,
  );
  t.same(
    cut,
    [...values.keys()].sort().map((host) => {
      const rows = [...(values.get(host) as Map<number, number | null>)].filter(([i]) => i >= 100 && i < 180);
      const present = rows.map(([, v]) => v).filter((v): v is number => v !== null);
      return JSON.stringify([host, rows.length, present.reduce((a, b) => a + b, 0)]);
    }),
  );
});

t.test('tombstones, NaN values and defaults of added columns make the scan read rows', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, lines(0, ROWS))).status, 204);
  // A NaN in one series: its min, max, sum and avg are whatever the rows give.
  const nan = `INSERT INTO m (host, dc, v, w, greptime_timestamp) VALUES ('h2', 'd2', CAST('NaN' AS DOUBLE), 1, ${ns(T0 + 5_000_000)})`;
  t.equal((await sql(server.url, nan)).status, 200);
  const withNaN = await answer(server);
  await flush(t, server);
  t.same(await answer(server), withNaN, 'the NaN series answers as its rows did');

  const del = await sql(server.url, `DELETE FROM m WHERE host = 'h4' AND greptime_timestamp < ${ns(T0 + 50_000)}`);
  t.same(del.body.output, [{ affectedrows: 50 }]);
  await flush(t, server);
  const deleted = await answer(server, "SELECT count(*), sum(v) FROM m WHERE host = 'h4'");
  let sum = 0;
  for (let i = 50; i < ROWS; i++) sum += 4000 + i;
  t.same(deleted, [JSON.stringify([ROWS - 50, sum])], 'deleted rows stay deleted');
  const all = await answer(server, 'SELECT host, count(*) FROM m GROUP BY host ORDER BY host');
  t.same(all[6], JSON.stringify(['h4', ROWS - 50]), 'in a grouped aggregate too (h0, h1, h10, h11, h2, h3, h4)');

  t.equal((await sql(server.url, 'ALTER TABLE m ADD COLUMN x DOUBLE DEFAULT 5')).status, 200);
  const x = await answer(server, "SELECT host, count(x), sum(x) FROM m WHERE host = 'h0' GROUP BY host");
  t.same(x, [JSON.stringify(['h0', ROWS, ROWS * 5])], 'old rows read the default');
  // The NaN series, the deleted rows and the default all answer as the rows do after another flush.
  const before = await answer(
    server,
    'SELECT host, count(*), count(x), sum(x), min(v), max(v) FROM m GROUP BY host ORDER BY host',
  );
  await flush(t, server);
  t.same(
    await answer(server, 'SELECT host, count(*), count(x), sum(x), min(v), max(v) FROM m GROUP BY host ORDER BY host'),
    before,
  );
});

for (const flushed of [true, false]) {
  t.test(
    `append-mode tables keep every duplicate, ${flushed ? 'across segments' : 'in a memtable fold'}`,
    async (t) => {
      const server = await startServer({ shards: 2 });
      t.teardown(() => server.stop());
      const create =
        "CREATE TABLE m (ts TIMESTAMP TIME INDEX, host STRING, dc STRING, v DOUBLE, w DOUBLE, PRIMARY KEY (host, dc)) WITH ('append_mode' = 'true')";
      t.equal((await sql(server.url, create)).status, 200);
      for (let i = 0; i < 2; i++) {
        t.equal((await writeLines(server.url, lines(0, 100))).status, 204);
        if (flushed) await flush(t, server);
      }
      // Flushed, no block is decoded; in the memtable, no row is read.
      const metric = flushed ? 'shoaldb_segment_blocks_read_total' : 'shoaldb_memtable_rows_read_total';
      const before = await metricSum(server.url, metric);
      const res = await answer(server, 'SELECT host, count(*), sum(v) FROM m GROUP BY host ORDER BY host');
      t.equal(await metricSum(server.url, metric), before, 'summarised');
      const once = written(0, 100);
      t.same(
        res,
        [...once.keys()].sort().map((host) => {
          const present = [...(once.get(host) as Map<number, number | null>).values()].filter(
            (v): v is number => v !== null,
          );
          return JSON.stringify([host, 200, 2 * present.reduce((a, b) => a + b, 0)]);
        }),
      );
    },
  );
}

t.test('memtable series are aggregated from folds kept between scans, extended by later writes', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const rowsRead = () => metricSum(server.url, 'shoaldb_memtable_rows_read_total');
  t.equal((await writeLines(server.url, lines(0, ROWS))).status, 204);
  const values = written(0, ROWS);
  const read0 = await rowsRead();
  t.same(await answer(server), model(values), 'first scan');
  t.same(await answer(server, 'SELECT dc, count(*), sum(v) FROM m GROUP BY dc ORDER BY dc').then((r) => r.length), 3);
  t.equal(await rowsRead(), read0, 'no memtable row read');
  // Later rows extend each series' fold; the answer is still the rows'.
  t.equal((await writeLines(server.url, lines(ROWS, ROWS + 50))).status, 204);
  written(ROWS, ROWS + 50, 0, values);
  t.same(await answer(server), model(values), 'after more rows');
  t.equal(await rowsRead(), read0, 'no memtable row read');
  // Rows late and out of order, at new timestamps: still summarised.
  t.equal((await writeLines(server.url, lines(ROWS + 60, ROWS + 70))).status, 204);
  t.equal((await writeLines(server.url, lines(ROWS + 55, ROWS + 60))).status, 204);
  written(ROWS + 55, ROWS + 70, 0, values);
  t.same(await answer(server), model(values), 'after rows out of order');
  t.equal(await rowsRead(), read0, 'no memtable row read');
  // A row rewritten at its timestamp in the same memtable: the last write wins, read from rows.
  t.equal((await writeLines(server.url, lines(ROWS + 62, ROWS + 63, 5))).status, 204);
  written(ROWS + 62, ROWS + 63, 5, values);
  t.same(await answer(server), model(values), 'after a rewrite');
  t.ok((await rowsRead()) > read0, 'rewritten series read as rows');
  // A time range that cuts the series, and a row filter, read rows; so does a NaN.
  const read1 = await rowsRead();
  const cut = await answer(server, `SELECT count(*) FROM m WHERE greptime_timestamp < ${ns(T0 + 10_000)}`);
  t.same(cut, [JSON.stringify([HOSTS * 10])]);
  t.ok((await rowsRead()) > read1, 'a cut range reads rows');
  const nan = `INSERT INTO m (host, dc, v, w, greptime_timestamp) VALUES ('h2', 'd2', CAST('NaN' AS DOUBLE), 1, ${ns(T0 + 5_000_000)})`;
  t.equal((await sql(server.url, nan)).status, 200);
  const read2 = await rowsRead();
  const before = await answer(server);
  t.ok((await rowsRead()) > read2, 'the series with a NaN is read as rows');
  // The same answers once flushed.
  await flush(t, server);
  t.same(await answer(server), before, 'flushed');
});

t.test('late rows inside a flushed span are told apart by timestamp, not by span', async (t) => {
  // Small blocks, so a series spans many and reading the few a late row reaches shows.
  const server = await startServer({ shards: 2, extraToml: '[segment]\nblock_rows = 16' });
  t.teardown(() => server.stop());
  // Even rows flushed, then the odd rows of the last stretch arrive late, in the segment's span.
  const even = (from: number, to: number) =>
    lines(from, to)
      .split('\n')
      .filter((l) => (Number(l.slice(l.lastIndexOf(' ') + 1)) - T0) % 2000 === 0)
      .join('\n');
  t.equal((await writeLines(server.url, even(0, ROWS))).status, 204);
  await flush(t, server);
  const values = new Map<string, Map<number, number | null>>();
  for (const [host, rows] of written(0, ROWS)) values.set(host, new Map([...rows].filter(([i]) => i % 2 === 0)));
  const blocks0 = await metricSum(server.url, 'shoaldb_segment_blocks_read_total');
  t.same(await answer(server), model(values), 'segments only');
  const allBlocks =
    (await answer(server, 'SELECT host, count(*), sum(v) FROM m WHERE v > -1 GROUP BY host').then(() =>
      metricSum(server.url, 'shoaldb_segment_blocks_read_total'),
    )) - blocks0;
  const odd = lines(ROWS - 10, ROWS)
    .split('\n')
    .filter((l) => (Number(l.slice(l.lastIndexOf(' ') + 1)) - T0) % 2000 !== 0)
    .join('\n');
  t.equal((await writeLines(server.url, odd)).status, 204);
  for (const [host, rows] of written(ROWS - 10, ROWS)) {
    for (const [i, v] of rows) if (i % 2 === 1) values.get(host)?.set(i, v);
  }
  const blocks1 = await metricSum(server.url, 'shoaldb_segment_blocks_read_total');
  const summarised1 = await metricSum(server.url, 'shoaldb_scan_series_summarised_total');
  t.same(await answer(server), model(values), 'late rows at new timestamps');
  const checked = (await metricSum(server.url, 'shoaldb_segment_blocks_read_total')) - blocks1;
  t.ok(
    checked < allBlocks / 2,
    `only the blocks the late rows reach are read (${checked}, a full read is ${allBlocks})`,
  );
  t.equal(
    (await metricSum(server.url, 'shoaldb_scan_series_summarised_total')) - summarised1,
    2 * HOSTS,
    'every series from its segment and its memtable statistics',
  );
  // One of them rewritten at a flushed timestamp: that series is read as rows, with the model's answer.
  t.equal((await writeLines(server.url, lines(ROWS - 2, ROWS - 1, 3, 1))).status, 204);
  values.get('h0')?.set(ROWS - 2, ROWS - 2 + 3);
  const summarised2 = await metricSum(server.url, 'shoaldb_scan_series_summarised_total');
  t.same(await answer(server), model(values), 'a rewrite among late rows');
  t.equal(
    (await metricSum(server.url, 'shoaldb_scan_series_summarised_total')) - summarised2,
    2 * HOSTS - 2,
    'the rewritten series is read as rows, the others not',
  );
});
