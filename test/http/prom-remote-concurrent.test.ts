/**
 * Many remote-write requests in flight at once, each a scraper's shape (the same 2,500 series, one
 * sample each, a new timestamp per request): every acknowledged sample is stored with its own
 * value. Two bodies decoded on one shard thread must not share its decompression buffer; a
 * decoder that yielded in the middle of a body lost about 5% of the samples this way.
 */
import t from 'tap';
import {
  postRemoteWrite,
  remoteWrite,
  snappyBlock,
  type TestSeries,
  writeRequestBytes,
} from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const SERIES = 2_500;
const REQUESTS = 48;
const IN_FLIGHT = 8;
const T0 = 1_700_000_000_000;

/** Request r: series s holds r * SERIES + s at T0 + r seconds. */
function body(r: number): Uint8Array {
  const series: TestSeries[] = [];
  for (let s = 0; s < SERIES; s++) {
    series.push({
      labels: { __name__: 'scraped', job: 'node', instance: `host-${s}` },
      samples: [{ value: r * SERIES + s, timestamp: T0 + r * 1000 }],
    });
  }
  return snappyBlock(writeRequestBytes(series));
}

t.test('concurrent remote writes store every acknowledged sample with its value', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  // The table exists before the load, so every request takes the decoders' direct path.
  t.equal(
    (
      await remoteWrite(server.url, [
        {
          labels: { __name__: 'scraped', job: 'node', instance: 'host-0' },
          samples: [{ value: -1, timestamp: T0 - 1000 }],
        },
      ])
    ).status,
    204,
  );
  const bodies = Array.from({ length: REQUESTS }, (_, r) => body(r));
  let next = 0;
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const b = bodies[next++] as Uint8Array;
        statuses.push((await postRemoteWrite(server.url, b)).status);
      }
    }),
  );
  t.same([...new Set(statuses)], [204], 'every request acknowledged');
  const total = REQUESTS * SERIES;
  const res = await sql(
    server.url,
    `SELECT count(*), sum(greptime_value), count(DISTINCT instance) FROM scraped WHERE greptime_timestamp >= ${T0}`,
  );
  t.equal(res.status, 200);
  // Values 0 .. total-1, each once.
  t.same(rowsOf(res.body)[0], [total, (total * (total - 1)) / 2, SERIES], 'every sample, with its own value');
  const misplaced = await sql(
    server.url,
    `SELECT count(*) FROM scraped WHERE greptime_timestamp >= ${T0} AND greptime_value != (CAST(greptime_timestamp AS BIGINT) - ${T0}) / 1000 * ${SERIES} + CAST(substr(instance, 6) AS BIGINT)`,
  );
  t.same(rowsOf(misplaced.body), [[0]], 'each value in its own series and time');
});
