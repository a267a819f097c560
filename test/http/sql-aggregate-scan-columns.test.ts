/**
 * An aggregate reads only the columns it names: the scan-order keys (tags, then the time index)
 * that make `last_value` and its kin deterministic over shards are read only when such a call
 * is there. Before, every aggregate query read every tag of every row (a percentile by hour of
 * one field read the host, region and datacenter of ten million rows it never used). Checked
 * through EXPLAIN's scan line, and the answers through the same queries run for real.
 */
import t from 'tap';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

/** The `Scan:` line of a statement's EXPLAIN. */
async function scanLine(url: string, statement: string): Promise<string> {
  const res = await sql(url, `EXPLAIN ${statement}`);
  const text = JSON.stringify(res.body);
  const match = /Scan: table_id=\d+, columns=\[([^\]]*)\]/.exec(text);
  if (match === null) throw new Error(`no scan line in ${text.slice(0, 400)}`);
  return match[1] as string;
}

t.test('aggregates read the scan-order keys only when a call depends on row order', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const lines = [];
  for (let i = 0; i < 40; i++) lines.push(`cpu,host=h${i % 4},region=r${i % 2} usage=${i},idle=${100 - i} ${i * 1000}`);
  await writeLines(server.url, lines.join('\n'));

  const onlyField = await scanLine(server.url, 'SELECT max(usage) FROM cpu');
  t.notMatch(onlyField, /tag:|time:/, `max(usage) reads no tag nor the time index: ${onlyField}`);
  const byHour = await scanLine(
    server.url,
    "SELECT date_bin(INTERVAL '1 hour', greptime_timestamp) AS hour, approx_percentile_cont(usage, 0.9) FROM cpu GROUP BY hour",
  );
  t.notMatch(byHour, /tag:/, `a percentile by hour reads no tag: ${byHour}`);
  t.match(byHour, /time:/, 'but the time index it buckets');
  const ordered = await scanLine(server.url, 'SELECT last_value(usage) FROM cpu');
  t.equal((ordered.match(/tag:/g) ?? []).length, 2, `last_value reads both tags: ${ordered}`);
  t.match(ordered, /time:/, 'and the time index, its scan order');

  t.same(rowsOf((await sql(server.url, 'SELECT max(usage) FROM cpu')).body), [[39]]);
  t.same(
    rowsOf((await sql(server.url, 'SELECT last_value(usage) FROM cpu')).body),
    [[39]],
    'the last row in scan order',
  );
  t.same(rowsOf((await sql(server.url, "SELECT last_value(usage) FROM cpu WHERE host = 'h0'")).body), [[36]]);
});
