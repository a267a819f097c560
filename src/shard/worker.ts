/**
 * The shard worker: the thread that owns one shard's data. Piscina calls the default export once
 * per task; the store lives in module state for the life of the thread. Every reply is a plain
 * `ShardReply` so errors keep their code across the thread boundary.
 */
import pino from 'pino';
import { Piscina } from 'piscina';
import { runPromqlShardPlan } from '../query/promql/store/shard-entry.js';
import { runShardPlan } from '../query/sql/shard-exec.js';
import { DbError, ErrorCode, toWire } from '../shared/errors.js';
import type { ShardReply, ShardTask } from '../shared/messages.js';
import type { ScanSource } from '../shared/scan.js';
import { ShardStore } from './store.js';

let store: ShardStore | null = null;
let queriesCancelled = 0;

/**
 * The store as a scan source that stops at the next chunk once the router raised the query's
 * cancel flag. Throwing inside for-of closes the store's iterator, which releases its segments.
 */
function cancellable(source: ScanSource, cancel: SharedArrayBuffer | undefined): ScanSource {
  if (!cancel) return source;
  const flag = new Int32Array(cancel);
  return {
    scan(request) {
      const inner = source.scan(request);
      return {
        *[Symbol.iterator]() {
          for (const chunk of inner) {
            if (Atomics.load(flag, 0) !== 0) {
              queriesCancelled++;
              throw new DbError(ErrorCode.Cancelled, 'Query was cancelled');
            }
            yield chunk;
          }
        },
      };
    },
  };
}
/** A check that throws once the router raised the query's cancel flag (for evaluation loops). */
function cancelPoll(cancel: SharedArrayBuffer | undefined): (() => void) | undefined {
  if (!cancel) return undefined;
  const flag = new Int32Array(cancel);
  return () => {
    if (Atomics.load(flag, 0) === 0) return;
    queriesCancelled++;
    throw new DbError(ErrorCode.Cancelled, 'Query was cancelled');
  };
}
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
        if (task.lang === 'promql') {
          // Sample arrays go back transferred, not copied (Piscina's movable wrapper).
          const answer = await runPromqlShardPlan(
            task.plan,
            cancellable(requireStore(), task.cancel),
            cancelPoll(task.cancel),
          );
          const reply: ShardReply = { ok: true, value: answer.value };
          const movable = { [Piscina.transferableSymbol]: answer.transfer, [Piscina.valueSymbol]: reply };
          return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]) as unknown as ShardReply;
        }
        return { ok: true, value: runShardPlan(task.plan, cancellable(requireStore(), task.cancel)) };
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
        return { ok: true, value: { ...requireStore().stats(), queriesCancelled } };
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
