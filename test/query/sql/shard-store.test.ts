import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { ShardStore } from '../../../src/shard/store.js';
import type { ShardConfig } from '../../../src/shared/config.js';
import { registerEndToEnd } from './helpers/e2e-suite.js';
import { rows, run, TestEnv } from './helpers/test-env.js';

// executeSql end to end over two real storage engines in a temporary directory: the same
// behaviour as execute.test.ts, plus data that has been flushed to segment files.

const log = pino({ level: 'silent' });
const dirs = new Map<TestEnv, string>();

function config(dir: string, shardId: number): ShardConfig {
  return {
    shardId,
    dir: path.join(dir, `shard-${shardId}`),
    wal: { syncMode: 'none', segmentBytes: 1 << 20 },
    memtable: { flushBytes: 64 << 20, rejectBytes: 0 },
    segment: { blockRows: 4, compactionTrigger: 4 },
    keyRefsPerThread: 1024,
    querySliceMs: 5,
    retentionCheckIntervalMs: 0,
    queryShareUnderWrites: 1,
    logLevel: 'silent',
  };
}

async function make(): Promise<TestEnv> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-sql-'));
  const stores = await Promise.all([0, 1].map((i) => ShardStore.open(config(dir, i), log)));
  const env = new TestEnv(stores);
  dirs.set(env, dir);
  return env;
}

async function close(env: TestEnv): Promise<void> {
  await Promise.all(env.shards.map((s) => (s as ShardStore).close()));
  fs.rmSync(dirs.get(env) ?? '', { recursive: true, force: true });
  dirs.delete(env);
}

registerEndToEnd(t, { make, close });

t.test('rows flushed to segments are found again, pruned by time range', async (t) => {
  const env = await make();
  try {
    await run(env, 'CREATE TABLE f (host STRING PRIMARY KEY, v BIGINT, ts TIMESTAMP TIME INDEX)');
    const values = Array.from({ length: 40 }, (_, i) => `('h${i % 3}', ${i}, ${i * 1000})`).join(', ');
    await run(env, `INSERT INTO f VALUES ${values}`);
    await Promise.all(env.shards.map((s) => (s as ShardStore).flush()));
    await run(env, "INSERT INTO f VALUES ('h0', 100, 0)");
    t.same(await rows(env, 'SELECT count(*), sum(v) FROM f'), [[40n, 880n]]);
    t.same(await rows(env, 'SELECT v FROM f WHERE ts >= 10000 AND ts < 13000 ORDER BY v'), [[10n], [11n], [12n]]);
    t.same(await rows(env, "SELECT host, count(*) FROM f WHERE host = 'h1' GROUP BY host"), [['h1', 13n]]);
    t.same(await rows(env, 'SELECT v FROM f LIMIT 2'), [[100n], [3n]]);
  } finally {
    await close(env);
  }
});
