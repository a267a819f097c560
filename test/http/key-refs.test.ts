/**
 * Series keys by reference (src/shard/key-refs.ts): once a decoder has sent a key to a shard, it
 * sends only its id. What must hold: the WAL then carries little more than the samples; a shard
 * that forgot a key refuses the part that names it, and the request goes again in full without
 * losing or doubling a sample; and a crash replays every row from the WAL, whose files define
 * each id they use even across rotations.
 */
import t, { type Test } from 'tap';
import { prng } from '../helpers/prng.js';
import { remoteWrite, type TestSeries } from '../helpers/prom-remote.js';
import { metricSum, rowsOf, sql, startServer, type TestServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const LONG = 'x'.repeat(200); // long keys, so that sending them or not shows in the WAL bytes

function seriesOf(hosts: number[], step: number): TestSeries[] {
  return hosts.map((h) => ({
    labels: { __name__: 'kref', host: `h${h}`, pad: LONG },
    samples: [{ value: h * 1000 + step, timestamp: T0 + step * 1000 }],
  }));
}

/** Rows per host, and the sum of their values, as SQL reads them. */
async function readBack(url: string): Promise<Map<string, [number, number]>> {
  const res = await sql(url, 'SELECT host, count(*), sum(greptime_value) FROM kref GROUP BY host');
  return new Map(rowsOf(res.body).map((r) => [String(r[0]), [Number(r[1]), Number(r[2])]]));
}

function model(writes: Array<[number[], number]>): Map<string, [number, number]> {
  const m = new Map<string, [number, number]>();
  for (const [hosts, step] of writes) {
    for (const h of hosts) {
      const [n, sum] = m.get(`h${h}`) ?? [0, 0];
      m.set(`h${h}`, [n + 1, sum + h * 1000 + step]);
    }
  }
  return m;
}

t.test('known series travel by id: the WAL holds the samples, not the keys again', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const hosts = Array.from({ length: 200 }, (_, i) => i);
  const walBytes = () => metricSum(server.url, 'shoaldb_wal_bytes_total');
  const wal0 = await walBytes();
  t.equal((await remoteWrite(server.url, seriesOf(hosts, 0))).status, 204);
  const first = (await walBytes()) - wal0;
  // Requests alternate between the two decoders: the second one sends the keys too.
  t.equal((await remoteWrite(server.url, seriesOf(hosts, 1))).status, 204);
  const wal2 = await walBytes();
  for (let step = 2; step < 6; step++) t.equal((await remoteWrite(server.url, seriesOf(hosts, step))).status, 204);
  const laterEach = ((await walBytes()) - wal2) / 4;
  t.ok(first > 200 * 200, `the first request carries the keys (${first} bytes)`);
  t.ok(laterEach < first / 4, `later requests carry ids (${laterEach} bytes each vs ${first})`);
  t.ok((await metricSum(server.url, 'shoaldb_shard_key_refs')) >= 200, 'the shards know the keys by id');
  t.same(await readBack(server.url), model([0, 1, 2, 3, 4, 5].map((s) => [hosts, s])));
});

/**
 * Two keys per generation: the shards forget almost every key between requests, refuse the parts
 * that name them by id, and each such request goes again with its keys in full.
 */
async function forgottenKeys(t: Test, shards: number, seed: number, appendMode = false): Promise<void> {
  const server = await startServer({ shards, extraToml: '[ingest]\nkey_refs = 2' });
  t.teardown(() => server.stop());
  if (appendMode) {
    const create = `CREATE TABLE kref (greptime_timestamp TIMESTAMP(3) TIME INDEX, host STRING, pad STRING,
      greptime_value DOUBLE, PRIMARY KEY (host, pad)) WITH ('append_mode' = 'true')`;
    t.equal((await sql(server.url, create)).status, 200, 'append-mode table');
  }
  const rand = prng(seed);
  const writes: Array<[number[], number]> = [];
  for (let step = 0; step < 30; step++) {
    const hosts = Array.from({ length: 40 }, (_, i) => i).filter(() => rand() < 0.7);
    t.equal((await remoteWrite(server.url, seriesOf(hosts, step))).status, 204, `write ${step}`);
    writes.push([hosts, step]);
  }
  t.ok((await metricSum(server.url, 'shoaldb_shard_key_refs_refused_total')) > 0, 'refusals happened and were resent');
  t.same(await readBack(server.url), model(writes), 'every sample once, in its own series');
}

t.test('a shard that forgot a key refuses the part; the request goes again in full', (t) => forgottenKeys(t, 2, 5));

// One shard: every body is the decoding shard's own, which it writes without the router's queue.
t.test('a decoder that forgot a key of a body it writes itself decodes it again in full', (t) =>
  forgottenKeys(t, 1, 11),
);

// Append mode: a request's rows stay with the shard that decodes it and that shard writes them; a
// refused body is decoded again and its rows written once, on one shard.
t.test('an append-mode table on two shards: refused bodies are written once', (t) => forgottenKeys(t, 2, 17, true));

t.test('after a crash the WAL defines every id its records use, across file rotations', async (t) => {
  // Small WAL files: many rotations, each file must define the ids it references again.
  const extraToml = '[wal]\nsegment_size = "8KiB"';
  let server: TestServer = await startServer({ shards: 2, extraToml });
  t.teardown(() => server.stop());
  const hosts = Array.from({ length: 60 }, (_, i) => i);
  const writes: Array<[number[], number]> = [];
  const rand = prng(9);
  for (let step = 0; step < 25; step++) {
    const some = hosts.filter(() => rand() < 0.8);
    t.equal((await remoteWrite(server.url, seriesOf(some, step))).status, 204);
    writes.push([some, step]);
    // A flush deletes the WAL files that sent the keys in full: the files after it must define
    // the ids they reference themselves.
    if (step === 8) t.equal((await sql(server.url, "ADMIN flush_table('kref')")).status, 200);
  }
  await server.kill();
  server = await startServer({ shards: 2, extraToml, dataDir: server.dataDir });
  t.equal(await metricSum(server.url, 'shoaldb_wal_recovery_cut_bytes'), 0, 'no WAL record was refused at replay');
  t.same(await readBack(server.url), model(writes), 'every acknowledged sample is back, in its own series');
  // And writing goes on after the restart (new decoders, new ids).
  t.equal((await remoteWrite(server.url, seriesOf(hosts, 99))).status, 204);
  writes.push([hosts, 99]);
  t.same(await readBack(server.url), model(writes));
});
