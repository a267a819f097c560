/**
 * The router↔shard contract: the only thing the two sides share. Each shard is a Piscina pool of
 * one thread; the router sends it tasks and gets back replies. Errors cross as plain data
 * (`WireError`) because structured clone drops Error subclasses and their `code`.
 */

import type { MessagePort } from 'node:worker_threads';
import type { PromqlShardPlan } from '../query/promql/distribute/shard-plan.js';
import type { ShardPlan } from '../query/sql/plan/plan.js';
import type { SegmentIndexSpec } from './column-index.js';
import type { ShardConfig } from './config.js';
import type { HistogramSnapshot } from './duration-histogram.js';
import type { WireError } from './errors.js';
import type { DecodeRequest } from './ingest/decode.js';
import type { SchemaSnapshotData } from './ingest/schema-snapshot.js';
import type { RejectionReason } from './rejections.js';
import type { ProfileKind } from './thread-profiler.js';

/** A query fragment for every shard, in the language that planned it. */
export type ShardQueryPlan = { lang: 'sql'; plan: ShardPlan } | { lang: 'promql'; plan: PromqlShardPlan };

/** WAL appends a write left for the router to make durable (ShardStore.writeApplied). */
export interface WalSyncTicket {
  /** The WAL file's number and path; `appends`: how many appends of it must be covered. */
  file: number;
  path: string;
  appends: number;
}

/** A write task's answer: the payloads refused (key-refs.ts), and what is left to sync (null: nothing). */
export interface AppliedWrite {
  refused: number[];
  sync: WalSyncTicket | null;
}

export type ShardTask =
  /**
   * First task of every shard: open (recover) the storage under config.dir, with every table's
   * ttl and the ids of the tables that skip the WAL (so the first write after start is right).
   */
  | { op: 'open'; config: ShardConfig; retention?: TableRetention[] | undefined; skipWal?: number[] | undefined }
  /**
   * Group commit: several encoded WriteBatch payloads (one per ingest request) written to the WAL
   * together with one append, then applied to the memtable in order; answered with an
   * `AppliedWrite`. With `routerSyncs` the answer comes once applied and names the appends the
   * router must sync (src/router/wal-sync.ts); without it, once an fdatasync covers them.
   */
  | { op: 'write'; payloads: Uint8Array[]; routerSyncs?: boolean; trace?: ShardTraceContext | undefined }
  /** The router's fdatasync of this WAL file failed: write no more to it (ShardStore.leaveFailedWal). */
  | { op: 'wal-sync-failed'; file: number }
  /**
   * A query plan fragment, made by the query layer's planner for the shards (src/query/sql/plan/plan.ts,
   * src/query/promql/distribute/shard-plan.ts). `cancel` is a shared 4-byte flag the router sets
   * to 1 when the request times out or its client goes away; the shard checks it between scan
   * chunks, so a cancelled query stops using the shard's CPU.
   */
  | (ShardQueryPlan & { op: 'query'; cancel?: SharedArrayBuffer | undefined; trace?: ShardTraceContext | undefined })
  /**
   * Decode an ingest body in the shard's thread instead of the router's (see
   * src/shared/ingest/decode.ts): the router's thread is then left with HTTP alone, and every
   * shard shares the decoding. `schema` comes along when the shard's copy of the catalog is older
   * than the generation the request was planned against.
   */
  | { op: 'decode'; request: DecodeRequest; schema?: SchemaSnapshotData | undefined }
  /**
   * The shard's end of a channel the router sends queries on, beside the pool (router/shard-port.ts,
   * shard/task-port.ts); sent once, after `open`, with the port transferred.
   */
  | { op: 'port'; port: MessagePort }
  | { op: 'flush' }
  | { op: 'compact' }
  /** Forget tables (DROP TABLE / DROP DATABASE); `liveTableIds` variant lets a shard sweep orphans. */
  | { op: 'drop'; tableIds: number[] }
  /**
   * Every table's indexed columns (replaces what the shard knew): flushes and compactions after
   * it build those indexes into new segments. Sent after open and whenever the catalog changes them.
   */
  | { op: 'indexes'; tables: Array<{ tableId: number; columns: SegmentIndexSpec[] }> }
  /**
   * Every table's retention (replaces what the shard knew; tables not listed keep their rows
   * forever): the shard's retention pass retires segments past it (src/shard/retention.ts). Sent
   * after open and whenever the catalog changes.
   */
  | { op: 'retention'; tables: TableRetention[] }
  /**
   * The ids of every table with `skip_wal = 'true'` (replaces what the shard knew): a payload
   * whose tables all skip the WAL is applied to the memtable and acknowledged without being
   * logged. Sent after open and whenever the catalog changes (src/router/skip-wal-sync.ts).
   */
  | { op: 'skip-wal'; tableIds: number[] }
  /** Starts (endpoint set) or stops (null: exports what is queued first) the shard's own tracer provider. */
  | { op: 'tracing'; endpoint: string | null; sampleRatio: number; shardId: number }
  | { op: 'stats' }
  | { op: 'log-level'; level: string }
  /** Starts V8's CPU profiler (interval in µs) or heap sampling (interval in bytes) in the shard's isolate. */
  | { op: 'profile-start'; kind: ProfileKind; samplingInterval: number }
  /** Heap only: replies with the live sampled allocations so far; sampling goes on. */
  | { op: 'profile-read'; kind: 'heap' }
  /** `cpu`: stops and replies with the V8 CPU profile; `heap`: stops sampling and replies null. */
  | { op: 'profile-stop'; kind: ProfileKind }
  | { op: 'close' };

/** One table's `ttl` as the shard applies it. */
export interface TableRetention {
  tableId: number;
  /** Rows older than now minus this are expired; 0 is `instant` (nothing is kept). */
  ttlMs: number;
  /** Time index units per second (the unit segment times are in). */
  unitsPerSecond: number;
}

export type ShardReply<T = unknown> = { ok: true; value: T } | { ok: false; error: WireError };

/** A task on a shard's port, and its answer: the reply Piscina would have carried. */
export interface PortTask {
  id: number;
  task: ShardTask;
}
export interface PortAnswer {
  id: number;
  reply: ShardReply;
}

/** Counters and gauges one shard reports for /metrics and /status. */
/** One thread's V8 heap figures, in bytes. */
export interface ThreadHeap {
  /** Bytes of live and not yet collected objects. */
  used: number;
  /** Bytes the heap has reserved from the system. */
  total: number;
  /** Bytes of buffers and other memory held outside the heap by its objects. */
  external: number;
}

/** The calling thread's heap figures. */
export function threadHeap(): ThreadHeap {
  const m = process.memoryUsage();
  return { used: m.heapUsed, total: m.heapTotal, external: m.external };
}

/** What a shard counts as it works, reported in its stats (and as zeros while it recovers). */
export function zeroShardCounters() {
  return {
    rowsWritten: 0,
    /** Rows applied older than the row written before them in their series, WAL replay included (table-memtable.ts). */
    rowsOutOfOrder: 0,
    walBytesWritten: 0,
    walFsyncs: 0,
    /** Times a write waited for a flush at half of memtable.reject_size (ShardStore.stallForFlush). */
    writeStalls: 0,
    flushes: 0,
    compactions: 0,
    /** Write payloads refused for naming series keys by ids the shard no longer knew (key-refs.ts). */
    keyRefsRefused: 0,
    /** Segment blocks scans skipped because a column index showed they cannot match. */
    indexBlocksSkipped: 0,
    /** Segment blocks decoded by scans (a scan that stops early decodes only what it reached). */
    segmentBlocksRead: 0,
    /** Memtable rows scans read as rows (series answered from statistics read none). */
    memtableRowsRead: 0,
    /** Series parts (one series' rows in one segment or memtable) scans took from statistics. */
    seriesSummarised: 0,
    /** Series scans visited (a series index lets a selective scan visit only its candidates). */
    seriesVisited: 0,
    /** Segment index sections that failed their checksum or decoding (scans then read every block). */
    indexSectionsCorrupt: 0,
    /** Segments the retention pass retired whole because every row was past its table's ttl. */
    segmentsExpired: 0,
    /** Rows in those segments (rows compactions leave out for being past the ttl are not counted). */
    rowsExpired: 0,
    /** Full collections run after a flush retired its memtable (src/shard/retired-memory.ts). */
    memoryCollections: 0,
  };
}

export type ShardCounters = ReturnType<typeof zeroShardCounters>;

export interface ShardStats extends ShardCounters {
  shardId: number;
  ready: boolean;
  walFiles: number;
  memtableBytes: number;
  memtableRows: number;
  /** Series keys the shard knows by id, for writes that reference them (src/shard/key-refs.ts). */
  keyRefs: number;
  segmentCount: number;
  segmentBytes: number;
  /** The shard thread's page cache of inflated blocks (src/shard/segment/page-cache.ts). */
  pageCache: { bytes: number; hits: number; misses: number };
  /** `segmentBytes` by table id. */
  tableSegmentBytes: Record<string, number>;
  /** Queries this shard stopped because their request was cancelled or timed out. */
  queriesCancelled: number;
  /** Durations of each WAL fsync, memtable flush and compaction since start-up. */
  timings: Record<'walFsync' | 'flush' | 'compaction', HistogramSnapshot>;
  /** Entries of each ingest decoder's series cache in this shard's thread, by protocol. */
  seriesCached: Record<string, number>;
  /** This shard thread's V8 heap (its isolate alone; RSS is the process's and is not split by thread). */
  heap: ThreadHeap;
  /** Refusals by limit in this shard's thread (memtable.reject_size, query bounds checked here). */
  rejections: Partial<Record<RejectionReason, number>>;
  /** What recovery did at the last open. */
  recovery: {
    replayedRecords: number;
    replayedRows: number;
    /** Bytes cut from torn or corrupt WAL tails. */
    cutBytes: number;
    /** One human-readable line per cut, e.g. `wal/00000003.log: checksum mismatch at offset 8192, cut 120 bytes`. */
    cuts: string[];
    /** Live segments found damaged and moved to `quarantine/` (their rows are gone from the table). */
    segmentsQuarantined: number;
    /** The MANIFEST was damaged, moved to `quarantine/` and rebuilt from the segment files. */
    manifestRebuilt: boolean;
    /** One line per quarantined file: what was wrong, where, and what was dropped. */
    quarantined: string[];
    durationMs: number;
  };
}

/** Live segment bytes per table id, summed over every shard's stats. */
export function tableSegmentBytes(stats: readonly ShardStats[]): Map<number, number> {
  const sums = new Map<number, number>();
  for (const s of stats) {
    for (const [id, bytes] of Object.entries(s.tableSegmentBytes))
      sums.set(Number(id), (sums.get(Number(id)) ?? 0) + bytes);
  }
  return sums;
}

/** What a shard reports of recovery before it has opened (nothing replayed, cut or quarantined). */
export function emptyRecovery(): ShardStats['recovery'] {
  return {
    replayedRecords: 0,
    replayedRows: 0,
    cutBytes: 0,
    cuts: [],
    segmentsQuarantined: 0,
    manifestRebuilt: false,
    quarantined: [],
    durationMs: 0,
  };
}

/**
 * The router span a task was sent under, present only while tracing is on: the shard starts its
 * spans as children of it, so one request's spans in every thread share one trace.
 */
export interface ShardTraceContext {
  /** W3C `00-<trace id>-<span id>-<flags>`. */
  traceparent: string;
}
