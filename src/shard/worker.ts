/**
 * The shard worker: the thread that owns one shard's data. Piscina calls the default export once
 * per task; the store lives in module state for the life of the thread. Every reply is a plain
 * `ShardReply` so errors keep their code across the thread boundary.
 */
import pino from 'pino';
import { Piscina } from 'piscina';
import { ownedBuffers } from '../query/columns.js';
import { runPromqlShardPlan } from '../query/promql/store/shard-entry.js';
import { groupBuffers } from '../query/sql/exec/group-wire.js';
import { runShardPlan } from '../query/sql/exec/shard-exec.js';
import { toWire } from '../shared/errors.js';
import { type ShardReply, type ShardTask, threadHeap } from '../shared/messages.js';
import { endSpan, withSpan } from '../shared/tracing/active-tracer.js';
import { WritesWaiting } from '../shared/writes-waiting.js';
import { decoderSeriesCached, runDecodeTask, setOwnWrites } from './decode-task.js';
import { runProfileTask } from './profiling.js';
import { QueryPacer } from './query-pacer.js';
import { QueryTurn } from './query-turn.js';
import { ShardStore } from './store.js';
import { serveTaskPort } from './task-port.js';
import { switchShardTracing, taskSpan } from './tracing.js';

let store: ShardStore | null = null;
let querySliceMs = 5;
let pacer = new QueryPacer(1);
let writesWaiting = new WritesWaiting();
let queriesCancelled = 0;
const countCancelled = (): void => {
  queriesCancelled++;
};

let log = pino({ name: 'shard' });

function requireStore(): ShardStore {
  if (!store) throw new Error('shard is not open');
  return store;
}

export default async function handle(task: ShardTask): Promise<ShardReply> {
  // Only writes and queries carry a trace, and only while tracing is on; the rest pay one compare.
  const span = task.op === 'write' || task.op === 'query' ? taskSpan(task.op, task.trace) : null;
  if (span === null) return handleTask(task);
  const reply = await withSpan(span, () => handleTask(task));
  endSpan(span, reply.ok === false ? reply.error.message : undefined);
  return reply;
}

async function handleTask(task: ShardTask): Promise<ShardReply> {
  try {
    switch (task.op) {
      case 'open':
        log = pino({ name: `shard-${task.config.shardId}`, level: task.config.logLevel });
        store = await ShardStore.open(task.config, log, task.retention, task.skipWal);
        querySliceMs = task.config.querySliceMs;
        pacer = new QueryPacer(task.config.queryShareUnderWrites);
        writesWaiting = new WritesWaiting(task.config.writesWaiting);
        if (task.config.catalogGeneration) {
          setOwnWrites(task.config.shardId, task.config.catalogGeneration, (payloads) => {
            pacer.noteWrite();
            return requireStore().write(payloads);
          });
        }
        return { ok: true, value: store.stats() };
      case 'write':
        writesWaiting.started();
        pacer.noteWrite();
        // The indices of payloads refused for unknown key references (see key-refs.ts), and the
        // WAL appends left for the router to sync when it syncs them.
        if (task.routerSyncs === true) return { ok: true, value: await requireStore().writeApplied(task.payloads) };
        return { ok: true, value: { refused: await requireStore().write(task.payloads), sync: null } };
      case 'port':
        serveTaskPort(task.port, handle, (err) =>
          log.error({ err }, 'a task from the router was lost (not deserialisable)'),
        );
        return { ok: true, value: null };
      case 'wal-sync-failed':
        await requireStore().leaveFailedWal(task.file);
        return { ok: true, value: null };
      case 'query': {
        const turn = new QueryTurn(querySliceMs, task.cancel, countCancelled, pacer.rest, writesWaiting.any);
        const source = turn.sliced(requireStore());
        if (task.lang === 'promql') {
          // Sample arrays go back transferred, not copied (Piscina's movable wrapper).
          const answer = await runPromqlShardPlan(task.plan, source, turn);
          const reply: ShardReply = { ok: true, value: answer.value };
          const movable = { [Piscina.transferableSymbol]: answer.transfer, [Piscina.valueSymbol]: reply };
          return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]) as unknown as ShardReply;
        }
        const result = await runShardPlan(task.plan, source);
        const reply: ShardReply = { ok: true, value: result };
        // Typed result columns go back transferred: the shard made them for this answer only.
        const transfer = result.kind === 'rows' ? ownedBuffers(result.columns) : groupBuffers(result);
        if (transfer.length === 0) return reply;
        const movable = { [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: reply };
        return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]) as unknown as ShardReply;
      }
      case 'decode':
        writesWaiting.started();
        return await runDecodeTask(task);
      case 'flush':
        await requireStore().flush();
        return { ok: true, value: null };
      case 'compact':
        await requireStore().compact();
        return { ok: true, value: null };
      case 'drop':
        await requireStore().dropTables(task.tableIds);
        return { ok: true, value: null };
      case 'indexes':
        requireStore().setIndexes(task.tables);
        return { ok: true, value: null };
      case 'retention':
        requireStore().setRetention(task.tables);
        return { ok: true, value: null };
      case 'skip-wal':
        requireStore().setSkipWal(task.tableIds);
        return { ok: true, value: null };
      case 'stats':
        return {
          ok: true,
          value: {
            ...requireStore().stats(),
            queriesCancelled,
            seriesCached: decoderSeriesCached(),
            heap: threadHeap(),
          },
        };
      case 'log-level':
        log.level = task.level;
        return { ok: true, value: null };
      case 'tracing':
        await switchShardTracing(task.endpoint, task.sampleRatio, task.shardId);
        return { ok: true, value: null };
      case 'profile-start':
      case 'profile-read':
      case 'profile-stop':
        return { ok: true, value: await runProfileTask(task) };
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
