/**
 * Series key ids (src/shared/series-key-blob.ts) are minted per thread from a counter, so a new
 * process mints the same ids again: the first series a shard's decoder sees after a restart gets
 * the id the first one had before it. The WAL replay must not bring the old ids back, or the new
 * series' samples land in the old series.
 */
import t from 'tap';
import { remoteWrite } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

t.test('a series written after a restart is its own, whatever key id it gets', async (t) => {
  // One shard: the same thread decodes every request, in both processes.
  let server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  let res = await remoteWrite(server.url, [
    { labels: { __name__: 'kid', host: 'before' }, samples: [{ value: 1, timestamp: T0 }] },
  ]);
  t.equal(res.status, 204);
  await server.stop(); // no flush: the row comes back from the WAL
  server = await startServer({ dataDir: server.dataDir, shards: 1 });
  res = await remoteWrite(server.url, [
    { labels: { __name__: 'kid', host: 'after' }, samples: [{ value: 2, timestamp: T0 + 1 }] },
  ]);
  t.equal(res.status, 204);
  const rows = rowsOf((await sql(server.url, 'SELECT host, greptime_value FROM kid ORDER BY host')).body);
  t.same(rows, [
    ['after', 2],
    ['before', 1],
  ]);
});
