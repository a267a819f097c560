/**
 * The router's handle on the shard workers. Each shard is a Piscina pool of exactly one thread,
 * so its state (WAL, memtable, segments) lives in one place. Writes to a shard are queued here and
 * sent as one task at a time carrying every payload that queued up meanwhile: that is both the
 * ordering guarantee (Piscina itself may reorder tasks) and group commit (one fsync per task).
 */
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { type Context, type Link, type Span, SpanKind, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Piscina } from 'piscina';
import { CatalogGeneration } from '../shared/catalog-generation.js';
import type { Config, ShardConfig } from '../shared/config.js';
import { addSnapshots, DurationHistogram, type HistogramSnapshot } from '../shared/duration-histogram.js';
import { DbError, ErrorCode, fromWire } from '../shared/errors.js';
import type { DecodeReply } from '../shared/ingest/decode.js';
import {
  type AppliedWrite,
  emptyRecovery,
  type ShardQueryPlan,
  type ShardReply,
  type ShardStats,
  type ShardTask,
  type TableRetention,
  zeroShardCounters,
} from '../shared/messages.js';
import { countRejection } from '../shared/rejections.js';
import { TagFilter } from '../shared/tag-filter.js';
import { activeTraceContext, endSpan, isTracing, startSpan, traceparentOf } from '../shared/tracing/active-tracer.js';
import { WritesWaiting } from '../shared/writes-waiting.js';
import type { QueueDepth } from './metrics.js';
import { ShardPort } from './shard-port.js';
import { fragmentFor, targetShards } from './shard-pruning.js';
import { DECODES_IN_FLIGHT, QUERIES_IN_FLIGHT, startShardThreads, WRITE_TASKS_IN_FLIGHT } from './shard-threads.js';
import { WalSync } from './wal-sync.js';

/** Upper bound on the payload bytes one group commit carries; the rest waits for the next task. */
const GROUP_COMMIT_BYTES_MAX = 32 * 1024 * 1024;

interface PendingWrite {
  payload: Uint8Array;
  /** The request's trace context while tracing is on, else null. */
  traceContext: Context | null;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Streams whose decoder turns are remembered (ShardCluster.lastDecoder). */
const STREAMS_REMEMBERED = 4096;

/** A counting gate with a FIFO of waiters. */
class Gate {
  active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Holders and waiters. */
  get load(): number {
    return this.active + this.waiting.length;
  }

  /** Hands the slot to the next waiter, if any (`active` stays the same then). */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

class Shard {
  ready = false;
  readonly decodes = new Gate(DECODES_IN_FLIGHT);
  readonly queries = new Gate(QUERIES_IN_FLIGHT);
  openError: DbError | null = null;
  private readonly pending: PendingWrite[] = [];
  /** Payload bytes in `pending`: what waits for the next group commit. */
  queuedBytes = 0;

  get queuedWrites(): number {
    return this.pending.length;
  }
  private writesInFlight = 0;
  /** Write and decode tasks sent and not yet started, which cut the shard's query slices short. */
  readonly writesWaiting = new WritesWaiting();
  /** The series this shard holds, as it publishes them (shared/tag-filter.ts). */
  readonly tagFilter = new TagFilter();

  /** The fdatasyncs of this shard's WAL appends (wal-sync.ts). */
  readonly walSync: WalSync;
  /** The channel queries, decodes and writes go on once the shard is open (shard-port.ts); null before. */
  private port: ShardPort | null = null;

  constructor(
    readonly id: number,
    readonly pool: Piscina,
  ) {
    this.walSync = new WalSync(id, (file) => {
      this.run({ op: 'wal-sync-failed', file }).catch(() => undefined);
    });
  }

  /**
   * Runs one task. With a span (tracing on), the task carries its traceparent so the shard's spans
   * join the request's trace, and the span ends when the shard answers.
   */
  async run<T>(task: ShardTask, transferList?: ArrayBuffer[], span: Span | null = null): Promise<T> {
    if (span !== null && (task.op === 'write' || task.op === 'query'))
      task.trace = { traceparent: traceparentOf(span) };
    const counted = task.op === 'write' || task.op === 'decode';
    if (counted) this.writesWaiting.sent();
    let reply: ShardReply<T>;
    try {
      reply =
        (task.op === 'query' || task.op === 'write' || task.op === 'decode') && this.port !== null
          ? await this.port.run<T>(task, transferList)
          : ((await this.pool.run(task, transferList ? { transferList } : {})) as ShardReply<T>);
    } catch (err) {
      // The shard's handler answers every task it takes, so no answer means it never took this one.
      if (counted) this.writesWaiting.withdrawn();
      endSpan(span, err);
      throw err;
    }
    if (!reply.ok) {
      const err = fromWire(reply.error);
      endSpan(span, err);
      throw err;
    }
    endSpan(span);
    return reply.value;
  }

  /** Opens the shard's channel (shard-port.ts): its end goes over in a Piscina task of its own. */
  async openPort(log: Logger): Promise<void> {
    const { port1, port2 } = new MessageChannel();
    await this.run({ op: 'port', port: port2 }, [port2 as unknown as ArrayBuffer]);
    this.port = new ShardPort(this.id, port1, (err) =>
      log.error({ shard: this.id, err: String(err) }, 'a shard answer was lost (not deserialisable)'),
    );
  }

  /** Closes the shard's channel; tasks still waiting on it fail. */
  closePort(): void {
    this.port?.close();
    this.port = null;
  }

  /** The router-side span of a task sent to this shard; null when tracing is off or nothing traced is active. */
  taskSpan(op: string, parent?: Context, links?: Link[]): Span | null {
    if (!isTracing()) return null;
    return startSpan(
      `shard-task ${op}`,
      { 'shoaldb.shard.id': this.id },
      { kind: SpanKind.CLIENT, parent, ...(links && links.length > 0 ? { links } : {}) },
    );
  }

  write(payload: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ payload, traceContext: activeTraceContext(), resolve, reject });
      this.queuedBytes += payload.byteLength;
      this.drain();
    });
  }

  /**
   * Sends the pending writes as group commits, up to WRITE_TASKS_IN_FLIGHT at once: the shard
   * runs them one after the other in the order sent, and the next group is already on the
   * shard's thread when the previous one's fsync returns.
   */
  private drain(): void {
    while (this.pending.length > 0 && this.writesInFlight < WRITE_TASKS_IN_FLIGHT) {
      const group: PendingWrite[] = [];
      let bytes = 0;
      while (this.pending.length > 0 && (group.length === 0 || bytes < GROUP_COMMIT_BYTES_MAX)) {
        const next = this.pending.shift() as PendingWrite;
        bytes += next.payload.byteLength;
        group.push(next);
      }
      this.queuedBytes -= bytes;
      this.writesInFlight++;
      void this.commit(group).finally(() => {
        this.writesInFlight--;
        this.drain();
      });
    }
  }

  /**
   * Sends one group commit; the task's answer frees its slot for the next group, and the
   * group's writes are acknowledged once the appends it names are durable (wal-sync.ts). While
   * tracing, the shard syncs them itself, so the span tree keeps the WAL's fdatasync under the
   * shard's write.
   */
  private async commit(group: PendingWrite[]): Promise<void> {
    const payloads = group.map((g) => g.payload);
    let applied: AppliedWrite;
    try {
      const span = this.groupSpan(group);
      applied = await this.run<AppliedWrite>(
        { op: 'write', payloads, routerSyncs: span === null },
        payloads.map((p) => p.buffer as ArrayBuffer),
        span,
      );
    } catch (err) {
      for (const g of group) g.reject(err as Error);
      return;
    }
    const { refused, sync } = applied;
    for (const i of refused) (group[i] as PendingWrite).reject(new KeyRefRefused(this.id));
    const settle = (err: Error | null): void => {
      group.forEach((g, i) => {
        if (refused.includes(i)) return;
        if (err === null) g.resolve();
        else g.reject(err);
      });
    };
    if (sync === null) settle(null);
    else this.walSync.durable(sync).then(() => settle(null), settle);
  }

  /**
   * One group commit serves several requests: its span is a child of the first traced one and
   * links the others, so each request's trace still leads to the WAL write that made it durable.
   */
  private groupSpan(group: PendingWrite[]): Span | null {
    if (!isTracing()) return null;
    const traced = group.filter((g) => g.traceContext !== null);
    const first = traced[0];
    if (first === undefined) return null;
    const links: Link[] = [];
    for (const g of traced.slice(1)) {
      const linked = trace.getSpanContext(g.traceContext as Context);
      if (linked) links.push({ context: linked });
    }
    const span = this.taskSpan('write', first.traceContext as Context, links);
    span?.setAttribute('shoaldb.write.payloads', group.length);
    return span;
  }
}

/**
 * The shard refused a payload that names series keys by ids it no longer knows (nothing of it
 * was written); the request's decoder sends that part again with every key in full.
 */
export class KeyRefRefused extends DbError {
  constructor(readonly shardId: number) {
    super(ErrorCode.RequestOutdated, `shard ${shardId} no longer knows a series key the write names by id`);
  }
}

export class ShardCluster {
  private constructor(
    private readonly shards: Shard[],
    private readonly log: Logger,
    /** `ingest.shard_queue_size`; 0 = unbounded. */
    private readonly queueBytesMax: number,
  ) {}

  get count(): number {
    return this.shards.length;
  }

  /** The catalog generation on disk, as the shards read it (catalog-generation.ts). */
  readonly generation = new CatalogGeneration();

  /**
   * The shard that ran the last decode task of each stream (protocol, database, table): a
   * stream's bodies take turns among the shards, and so do its append-mode rows, which stay in the
   * shard that decodes them (partition.ts). One turn for all streams sent one of two streams that
   * alternate always to the same shard.
   */
  private readonly lastDecoder = new Map<string, number>();

  /**
   * Opens (recovers) the storage of every shard thread (started here unless `pools` were started
   * before, see shard-threads.ts), at most `init_regions_parallelism` at a
   * time. With `init_regions_in_background` the returned promise resolves before recovery ends and
   * requests that reach a shard still recovering fail with 4008 (503).
   */
  static async start(
    config: Config,
    log: Logger,
    deadTableIds: number[],
    retention: TableRetention[] = [],
    skipWal: number[] = [],
    pools: Piscina[] = startShardThreads(config.storage.shards),
  ): Promise<{ cluster: ShardCluster; recovered: Promise<void> }> {
    const shards = pools.map((pool, id) => new Shard(id, pool));
    const cluster = new ShardCluster(shards, log, config.ingest.shardQueueBytes);
    const openOne = async (shard: Shard): Promise<void> => {
      const shardConfig: ShardConfig = {
        shardId: shard.id,
        dir: path.resolve(config.storage.dataHome, 'shards', String(shard.id)),
        wal: config.wal,
        memtable: config.memtable,
        segment: {
          ...config.segment,
          pageCacheBytes: Math.floor((config.segment.pageCacheBytes ?? 0) / config.storage.shards),
        },
        keyRefsPerThread: config.ingest.keyRefs,
        querySliceMs: config.query.sliceMs,
        retentionCheckIntervalMs: config.storage.retentionCheckIntervalMs,
        queryShareUnderWrites: config.query.shareUnderWritesPercent / 100,
        logLevel: config.logging.level,
        writesWaiting: shard.writesWaiting.buffer,
        catalogGeneration: cluster.generation.buffer,
        tagFilter: shard.tagFilter.buffer,
      };
      try {
        await shard.run({ op: 'open', config: shardConfig, retention, skipWal });
        await shard.openPort(log);
        if (deadTableIds.length > 0) await shard.run({ op: 'drop', tableIds: deadTableIds });
        shard.ready = true;
      } catch (err) {
        shard.openError = err instanceof DbError ? err : new DbError(ErrorCode.StorageUnavailable, String(err));
        log.error({ shard: shard.id, err: String(err) }, 'shard failed to open');
        throw err;
      }
    };
    const recovered = runLimited(shards, Math.max(1, config.initRegionsParallelism), openOne);
    if (!config.initRegionsInBackground) await recovered;
    else recovered.catch(() => undefined);
    return { cluster, recovered };
  }

  private requireReady(shard: Shard): void {
    if (shard.ready) return;
    if (shard.openError)
      throw new DbError(ErrorCode.StorageUnavailable, `shard ${shard.id} failed to open: ${shard.openError.message}`);
    throw new DbError(ErrorCode.RegionNotReady, `shard ${shard.id} is not ready (still recovering)`, {
      retryAfterSeconds: 1,
    });
  }

  /**
   * Refuses a write (429, code 6001) when any part would take its shard's queue past
   * `ingest.shard_queue_size`. Called for all parts of a request before any is queued, so a
   * refused request left nothing behind. A part always fits an empty queue, whatever its size:
   * the bound is on waiting, not on request size (that is `http.body_limit`).
   */
  checkQueueRoom(bytesPerShard: readonly number[]): void {
    if (this.queueBytesMax <= 0) return;
    for (let id = 0; id < bytesPerShard.length; id++) {
      const bytes = bytesPerShard[id] as number;
      const shard = this.shards[id] as Shard;
      if (bytes === 0 || shard.queuedBytes === 0 || shard.queuedBytes + bytes <= this.queueBytesMax) continue;
      countRejection('shard_queue');
      throw new DbError(
        ErrorCode.RateLimited,
        `Rate limited: shard ${id} has ${shard.queuedBytes} bytes of writes waiting, over ingest.shard_queue_size (${this.queueBytesMax}); retry later`,
        { retryAfterSeconds: 1 },
      );
    }
  }

  /** Writes waiting in each shard's queue (payloads and bytes), for /metrics. */
  queueDepths(): QueueDepth[] {
    return this.shards.map((s) => ({
      shardId: s.id,
      writes: s.queuedWrites,
      bytes: s.queuedBytes,
      tasksWaiting: s.writesWaiting.count(),
    }));
  }

  /** Appends one encoded WriteBatch to a shard; resolves once it is durable (per the WAL mode). */
  write(shardId: number, payload: Uint8Array): Promise<void> {
    const shard = this.shards[shardId] as Shard;
    this.requireReady(shard);
    return shard.write(payload);
  }

  /**
   * The ready shard to decode the next ingest body on: the one with the fewest decodes in
   * flight or waiting, taking turns among equals, so every shard shares the work.
   */
  nextDecoder(stream = ''): number {
    const last = this.lastDecoder.get(stream) ?? -1;
    let best = -1;
    for (let i = 0; i < this.shards.length; i++) {
      const id = (last + 1 + i) % this.shards.length;
      const shard = this.shards[id] as Shard;
      if (!shard.ready) continue;
      if (best < 0 || shard.decodes.load < (this.shards[best] as Shard).decodes.load) best = id;
    }
    if (best < 0) {
      this.requireReady(this.shards[0] as Shard);
      best = 0;
    }
    // Bounded: streams come and go (a table per request is possible).
    if (this.lastDecoder.size >= STREAMS_REMEMBERED && !this.lastDecoder.has(stream)) this.lastDecoder.clear();
    this.lastDecoder.set(stream, best);
    return best;
  }

  /**
   * Runs a decode task (see src/shared/ingest/decode.ts) on shard `shardId`. The body is copied
   * into the message, not transferred: the router keeps it for a retry (and see
   * src/shard/decode-task.ts on buffers moved more than once). At most DECODES_IN_FLIGHT per shard reach its thread; the rest wait here in
   * order, so Piscina's own queue never overflows and writes and queries keep their turns.
   */
  async decode(shardId: number, task: Extract<ShardTask, { op: 'decode' }>): Promise<DecodeReply> {
    const shard = this.shards[shardId] as Shard;
    this.requireReady(shard);
    await shard.decodes.acquire();
    try {
      return await shard.run<DecodeReply>(task);
    } finally {
      shard.decodes.release();
    }
  }

  /** Runs the same task on every shard; results come back in shard order. */
  async broadcast<T>(task: ShardTask): Promise<T[]> {
    for (const s of this.shards) this.requireReady(s);
    return Promise.all(this.shards.map((s) => s.run<T>(task)));
  }

  /**
   * Runs a query fragment on every shard that may hold series it reads (shard-pruning.ts). When
   * `signal` fires, the shards' shared cancel flag is raised (they stop at their next scan chunk)
   * and the returned promise rejects at once.
   */
  async query<T>(query: ShardQueryPlan, signal?: AbortSignal): Promise<T[]> {
    for (const s of this.shards) this.requireReady(s);
    const cancel = new SharedArrayBuffer(4);
    const flag = new Int32Array(cancel);
    const targets = targetShards(this.shards, query);
    const fragment = fragmentFor(query, targets.length);
    const run = Promise.all(
      targets.map(async (s) => {
        await s.queries.acquire();
        try {
          // Cancelled while it waited for a slot: the caller has its answer already.
          if (Atomics.load(flag, 0) !== 0) throw new DbError(ErrorCode.Cancelled, 'Query was cancelled');
          return await s.run<T>(
            { op: 'query', ...fragment, cancel },
            undefined,
            s.taskSpan(query.lang === 'sql' ? 'query sql' : 'query promql'),
          );
        } finally {
          s.queries.release();
        }
      }),
    );
    if (!signal) return run;
    return new Promise<T[]>((resolve, reject) => {
      const onAbort = (): void => {
        Atomics.store(flag, 0, 1);
        reject(
          signal.reason instanceof Error ? signal.reason : new DbError(ErrorCode.Cancelled, 'Query was cancelled'),
        );
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      run.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  /** Stats of every shard; a shard still recovering reports `ready: false` with zeros. */
  async stats(): Promise<ShardStats[]> {
    return Promise.all(
      this.shards.map(async (s) => {
        if (!s.ready) return emptyStats(s.id);
        const stats = await s.run<ShardStats>({ op: 'stats' });
        // The shard's WAL fdatasyncs are made in both threads (wal-sync.ts); the figures add up.
        const synced = s.walSync.stats();
        stats.walFsyncs += synced.syncs;
        stats.timings.walFsync = addSnapshots(stats.timings.walFsync, synced.timing);
        return stats;
      }),
    );
  }

  /**
   * Starts (endpoint set) or stops (null) every shard's tracer provider. Stopping resolves after
   * each shard exported what it had queued.
   */
  async setTracing(endpoint: string | null, sampleRatio: number): Promise<void> {
    for (const s of this.shards) this.requireReady(s);
    await Promise.all(this.shards.map((s) => s.run({ op: 'tracing', endpoint, sampleRatio, shardId: s.id })));
  }

  allReady(): boolean {
    return this.shards.every((s) => s.ready);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.shards.map(async (s) => {
        try {
          if (s.ready) await s.run({ op: 'close' });
        } catch (err) {
          this.log.warn({ shard: s.id, err: String(err) }, 'shard close failed');
        }
        s.walSync.close();
        s.closePort();
        await s.pool.destroy();
      }),
    );
  }
}

function emptyStats(shardId: number): ShardStats {
  return {
    shardId,
    ready: false,
    ...zeroShardCounters(),
    walFiles: 0,
    memtableBytes: 0,
    memtableRows: 0,
    keyRefs: 0,
    segmentCount: 0,
    pageCache: { bytes: 0, hits: 0, misses: 0 },
    tableSegmentBytes: {},
    segmentBytes: 0,
    queriesCancelled: 0,
    seriesCached: {},
    heap: { used: 0, total: 0, external: 0 },
    timings: { walFsync: emptySnapshot(), flush: emptySnapshot(), compaction: emptySnapshot() },
    rejections: {},
    recovery: emptyRecovery(),
  };
}

function emptySnapshot(): HistogramSnapshot {
  return new DurationHistogram().snapshot();
}

/** Runs `fn` over `items` with at most `limit` at once; rejects with the first failure. */
async function runLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(workers);
}
