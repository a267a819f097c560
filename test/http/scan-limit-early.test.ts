/**
 * A LIMIT over a table without primary key stops reading early: the table is one series, which
 * the scan reads in time order, so the first rows that pass the filter are the answer and the
 * blocks after them are never decoded. The rows must be exactly those of a full sort.
 */
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';

async function blocksRead(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('shoaldb_segment_blocks_read_total{')) sum += Number(line.split(' ').pop());
  }
  return sum;
}

t.test('LIMIT on a table without primary key decodes only the blocks it needs', async (t) => {
  const server = await startServer({ extraToml: '[segment]\nblock_rows = 1024', shards: 1 });
  t.teardown(() => server.stop());
  const { url } = server;
  t.equal(
    (await sql(url, "CREATE TABLE events (ts TIMESTAMP TIME INDEX, msg STRING, n BIGINT) WITH (append_mode = 'true')"))
      .status,
    200,
  );
  const rows = 40_960; // 40 blocks; a scan chunk is 4,096 rows (4 blocks)
  for (let start = 0; start < rows; start += 4096) {
    const values = Array.from({ length: 4096 }, (_, i) => {
      const n = start + i;
      return `(${1_700_000_000_000 + n}, '${n % 7 === 0 ? 'hit' : 'miss'} ${n}', ${n})`;
    }).join(', ');
    t.equal((await sql(url, `INSERT INTO events VALUES ${values}`)).status, 200);
  }
  t.equal((await sql(url, "ADMIN flush_table('events')")).status, 200);

  const before = await blocksRead(url);
  const limited = rowsOf((await sql(url, "SELECT n FROM events WHERE msg LIKE 'hit%' LIMIT 5")).body);
  const read = (await blocksRead(url)) - before;
  t.same(
    limited.map((r) => Number(r[0])),
    [0, 7, 14, 21, 28],
    'the first matches in time order',
  );
  t.ok(read > 0 && read <= 6, `few blocks decoded (${read} of ${rows / 1024})`);

  const ordered = rowsOf(
    (await sql(url, "SELECT n FROM events WHERE msg LIKE 'hit%' ORDER BY ts LIMIT 5 OFFSET 10")).body,
  );
  t.same(
    ordered.map((r) => Number(r[0])),
    [70, 77, 84, 91, 98],
    'an explicit ORDER BY the time index with OFFSET',
  );
  const desc = rowsOf((await sql(url, 'SELECT n FROM events ORDER BY ts DESC LIMIT 3')).body);
  t.same(
    desc.map((r) => Number(r[0])),
    [rows - 1, rows - 2, rows - 3],
    'descending order still reads everything it must',
  );
  const full = rowsOf((await sql(url, 'SELECT count(*) FROM events')).body);
  t.same(full, [[rows]]);
});
