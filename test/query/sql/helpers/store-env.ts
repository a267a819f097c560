/**
 * A `TestEnv` over real `ShardStore`s in a temporary directory, with a restart that closes every
 * store and opens it again from disk (what sqlness's `ARG restart=true` asks for). The catalog
 * lives in the `TestEnv` and survives the restart, as the router's persisted catalog would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ShardStore } from '../../../../src/shard/store.js';
import type { ShardConfig } from '../../../../src/shared/config.js';
import { TestEnv } from './test-env.js';

const log = pino({ level: 'silent' });

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

/** A two-store environment on disk; `close` removes the directory. */
export class StoreEnv {
  private constructor(
    readonly env: TestEnv,
    private readonly dir: string,
  ) {}

  static async open(shardCount = 2): Promise<StoreEnv> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-sqlness-'));
    const stores = await Promise.all(
      Array.from({ length: shardCount }, (_, i) => ShardStore.open(config(dir, i), log)),
    );
    return new StoreEnv(new TestEnv(stores), dir);
  }

  /** Closes every store and reopens it from its directory (WAL replay, segments). */
  async restart(): Promise<void> {
    const shards = this.env.shards as ShardStore[];
    await Promise.all(shards.map((s) => s.close()));
    const reopened = await Promise.all(shards.map((_, i) => ShardStore.open(config(this.dir, i), log)));
    shards.splice(0, shards.length, ...reopened);
  }

  async close(): Promise<void> {
    await Promise.all((this.env.shards as ShardStore[]).map((s) => s.close()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
