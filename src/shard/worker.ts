/**
 * The shard worker: the thread that owns one shard's data. Piscina calls the default export once
 * per task; the store lives in module state for the life of the thread. Every reply is a plain
 * `ShardReply` so errors keep their code across the thread boundary.
 */
import pino from 'pino';
import { runShardPlan } from '../query/sql/shard-exec.js';
import { toWire } from '../shared/errors.js';
import type { ShardReply, ShardTask } from '../shared/messages.js';
import { ShardStore } from './store.js';

let store: ShardStore | null = null;
let log = pino({ name: 'shard' });

function requireStore(): ShardStore {
  if (!store) throw new Error('shard is not open');
  return store;
}

export default async function handle(task: ShardTask): Promise<ShardReply> {
  try {
    switch (task.op) {
      case 'open':
        log = pino({ name: `shard-${task.config.shardId}`, level: task.config.logLevel });
        store = await ShardStore.open(task.config, log);
        return { ok: true, value: store.stats() };
      case 'write':
        await requireStore().write(task.payloads);
        return { ok: true, value: null };
      case 'query':
        return { ok: true, value: runShardPlan(task.plan, requireStore()) };
      case 'flush':
        await requireStore().flush();
        return { ok: true, value: null };
      case 'compact':
        await requireStore().compact();
        return { ok: true, value: null };
      case 'drop':
        await requireStore().dropTables(task.tableIds);
        return { ok: true, value: null };
      case 'stats':
        return { ok: true, value: requireStore().stats() };
      case 'log-level':
        log.level = task.level;
        return { ok: true, value: null };
      case 'close':
        if (store) await store.close();
        store = null;
        return { ok: true, value: null };
    }
  } catch (err) {
    log.debug({ err }, 'shard task failed');
    return { ok: false, error: toWire(err) };
  }
}
