/**
 * Nothing acknowledged is lost: SIGKILL the server while several clients write, restart it, and
 * check that every acknowledged batch is complete, that no batch is there that was never sent, and
 * that nothing is counted twice. Repeated over several kill/restart rounds on one data directory.
 */
import t from 'tap';
import { sql, startServer, tempDir } from '../helpers/server.js';

const ROWS_PER_BATCH = 200;
const WRITERS = 4;
const ROUNDS = 3;

function batchBody(batch: number): string {
  const lines: string[] = [];
  const base = 1_700_000_000_000 + batch * ROWS_PER_BATCH;
  for (let i = 0; i < ROWS_PER_BATCH; i++) {
    lines.push(`load,host=h${i % 17},dc=d${i % 3} batch=${batch}i,v=${i}.5 ${base + i}`);
  }
  return lines.join('\n');
}

t.test('every acknowledged row survives SIGKILL, none twice, none never sent', async (t) => {
  const dataDir = tempDir();
  const acked = new Set<number>();
  const sent = new Set<number>();
  let nextBatch = 0;

  for (let round = 0; round < ROUNDS; round++) {
    const server = await startServer({ dataDir });
    let stop = false;
    const writer = async (): Promise<void> => {
      while (!stop) {
        const batch = nextBatch++;
        sent.add(batch);
        try {
          const res = await fetch(`${server.url}/v1/lineproto/write?db=public&precision=ms`, {
            method: 'POST',
            body: batchBody(batch),
          });
          if (res.status === 204) acked.add(batch);
          else await res.text();
        } catch {
          // the kill cuts requests in flight: those batches are sent but not acknowledged
          return;
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);
    await new Promise((r) => setTimeout(r, 1500 + round * 300));
    await server.kill();
    stop = true;
    await Promise.all(writers);
  }
  t.ok(acked.size > 10, `enough batches were acknowledged (${acked.size})`);

  const server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  const res = await sql(server.url, 'SELECT batch, count(*) FROM load GROUP BY batch');
  t.equal(res.status, 200, 'the per-batch query answers');
  const counts = new Map<number, number>();
  for (const [batch, n] of res.body.output?.[0]?.records?.rows ?? []) counts.set(Number(batch), Number(n));

  let missing = 0;
  for (const b of acked) if (counts.get(b) !== ROWS_PER_BATCH) missing++;
  t.equal(missing, 0, 'every acknowledged batch is complete');
  const neverSent = [...counts.keys()].filter((b) => !sent.has(b));
  t.same(neverSent, [], 'no stored batch is one that was never sent');
  const doubled = [...counts.entries()].filter(([, n]) => n > ROWS_PER_BATCH);
  t.same(doubled, [], 'no batch has a row twice');
  const total = await sql(server.url, 'SELECT count(*) FROM load');
  const stored = [...counts.values()].reduce((a, b) => a + b, 0);
  t.same(total.body.output?.[0]?.records?.rows, [[stored]], 'count(*) agrees with the per-batch counts');
});
