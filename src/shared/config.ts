/**
 * Typed configuration: every default and every limit of the server lives here.
 * (Loading from TOML, environment overrides and validation are filled in by config-load.ts.)
 */
import os from 'node:os';

/** Default bound on one line-protocol point's text (`ingest.line_max_bytes`), also the parser's own default. */
export const LINE_BYTES_MAX_DEFAULT = 1024 * 1024;

/** Upper bound of `storage.shards`: each shard is a worker thread with its own WAL and memtables. */
export const SHARDS_MAX = 64;

/** Upper bound of `segment.block_rows`; a block's columns are decoded into memory whole. */
export const BLOCK_ROWS_MAX = 1_048_576;

/** Upper bound of `init_regions_parallelism`; beyond it start-up only thrashes the disk. */
export const INIT_REGIONS_PARALLELISM_MAX = 1024;

/**
 * Default of `query.range_max_rows`. A range query's slot costs about 10 µs and a few hundred bytes
 * end to end (shard group, clone, merge, fill), so a query at the limit answers in about ten
 * seconds, and one past it is refused before that work starts.
 */
export const RANGE_MAX_ROWS_DEFAULT = 1_000_000;

/**
 * Most characters one evaluation of a string-building function (repeat, lpad, rpad, space,
 * replace) may produce over a batch of rows. V8 caps one string at 2^29 - 24 characters and
 * fails with an untyped RangeError past it; the bound turns that into a clear error well before.
 */
export const STRING_RESULT_CHARS_MAX = 2 ** 28;

/**
 * Spans one thread (the router, or one shard) may hold awaiting export. The SDK's default of 2048
 * drops a burst (a busy second makes several spans per request); past this one spans are dropped
 * rather than letting a slow collector grow memory without bound (~1 KiB per span).
 */
export const TRACE_QUEUE_SPANS_MAX = 32_768;

/** Spans per OTLP export request: big enough to keep up with the queue, small enough for body limits. */
export const TRACE_EXPORT_BATCH_SPANS = 2048;

/** Log levels accepted by `logging.level`: pino's names, plus `off` (GreptimeDB's spelling of `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent', 'off'] as const;

/**
 * Most ids one Splunk HEC `/ack` query may name: the answer holds one entry per id, so this bounds
 * it the way the body limit bounds the question. A client asks for its pending ids, far fewer.
 */
export const HEC_ACK_QUERY_IDS_MAX = 1_000_000;

export type WalSyncMode = 'fsync' | 'none';

/** GreptimeDB's `write_bytes_exhausted_policy`: `"wait"` (10 s), `"wait(<duration>)"` or `"fail"`. */
export type WriteBytesExhaustedPolicy = { kind: 'wait'; waitMs: number } | { kind: 'fail' };

export interface HttpConfig {
  addr: string;
  /** 0 = no timeout. */
  timeoutMs: number;
  /** 0 = no limit. */
  bodyLimitBytes: number;
  isStrictMode: boolean;
  enableApiServer: boolean;
  apiServerAddr: string;
  enableCors: boolean;
}

export interface StorageConfig {
  dataHome: string;
  shards: number;
  /** How often each shard looks for segments past their table's `ttl`; 0 = never. */
  retentionCheckIntervalMs: number;
}

export interface WalConfig {
  /** `fsync`: a write is acknowledged only after its WAL record is on disk. `none`: page cache only. */
  syncMode: WalSyncMode;
  /** A WAL file is rotated when it grows past this. */
  segmentBytes: number;
}

export interface MemtableConfig {
  /** A shard freezes and flushes its memtables once their estimated size passes this. */
  flushBytes: number;
  /**
   * A shard refuses writes (503, code 5000) while its memtables, active and awaiting flush, hold
   * more than this, and flushes; it takes writes again once the flush is through. 0 = unbounded.
   */
  rejectBytes: number;
}

/** Bounds of the write paths in the router. */
export interface IngestConfig {
  /** Longest line-protocol line (a point's text); a longer one fails the request with 400. */
  lineMaxBytes: number;
  /**
   * Encoded rows waiting in the router for one shard's next group commit; a write that would go
   * past it is refused whole with 429 (code 6001) before any shard takes a part. 0 = unbounded.
   */
  shardQueueBytes: number;
  /**
   * Series keys a shard remembers per decoding thread, so that requests name known series by id
   * instead of sending their keys (two generations of this many; a forgotten key costs its
   * request a second decode with every key in full).
   */
  keyRefs: number;
}

export interface SegmentConfig {
  /** Rows per block inside a segment; min/max statistics and checksums are per block. */
  blockRows: number;
  /** Compaction merges a table's segments once it has at least this many. */
  compactionTrigger: number;
  /**
   * Inflated segment blocks kept for later scans, over all shards (each takes its share); 0 = off.
   * Default: a sixteenth of the machine's memory, at most 256 MiB. Absent: off.
   */
  pageCacheBytes?: number;
  /**
   * Whether start-up reads every block of every live segment to check its CRC (damage is then
   * quarantined before anything is served). Off: start-up checks sizes, headers and footers only,
   * and a damaged block fails the scans that reach it, naming file and block. Absent: on.
   */
  verifyOnOpen?: boolean;
}

export interface QueryConfig {
  /**
   * Estimated memory one query may hold in rows and groups, in each shard and in the router;
   * 0 = unbounded. Past it the query fails with 6000 instead of taking the process down.
   */
  memoryLimitBytes: number;
  /**
   * Longest stretch a shard computes for one query before it lets waiting writes (and other
   * queries) run. Small keeps ingest flowing under queries; too small wastes time switching.
   */
  sliceMs: number;
  /**
   * Percent of a shard's thread its queries together may use while writes are arriving (1-100);
   * the rest is left to writes and to the router that parses them. 100 = no pacing.
   */
  shareUnderWritesPercent: number;
  /**
   * Most rows (time slots × BY groups) a RANGE ... ALIGN query may produce, counted before the
   * slots are allocated, in each shard and again for the FILL grid in the router; 0 = unbounded.
   */
  rangeMaxRows: number;
  /** Prometheus' 11,000 points per series of a range query (API and TQL); more is a 400. */
  maxPointsPerSeries: number;
  /** Prometheus' `--query.max-samples`: samples one PromQL query may hold at once; more is a 422. */
  maxSamples: number;
  /** Series one PromQL query may select (summed over shards); more is a 422. 0 = unbounded. */
  maxSeries: number;
  /**
   * Deadline of every query (SQL, PromQL, remote read), as Prometheus' `--query.timeout`: the
   * lesser of it and `http.timeout` applies; the Prometheus API caps its `timeout` parameter
   * with it. 0 = none.
   */
  timeoutMs: number;
}

/** Splunk HEC indexer acknowledgement (docs/logs-ingest.md); an unreported id costs ~30 bytes. */
export interface HecConfig {
  /** Writes need a data channel and answer with an `ackId`; `/ack` reports which are durable. */
  ackEnabled: boolean;
  /** Channels remembered at once; a new one past it (and no idle one to drop) gets 503. */
  ackMaxChannels: number;
  /** Unreported ids of one channel, requests being written included; past it 503. */
  ackMaxPendingPerChannel: number;
  /** Unreported ids over all channels; past it (and no idle channel to drop) 503. */
  ackMaxPending: number;
}

export interface LoggingConfig {
  level: string;
}

/** Self-tracing (docs/tracing.md): where spans go and whether tracing starts switched on. */
export interface TracingConfig {
  /** OTLP/HTTP protobuf traces URL; "" = none (enabling answers 503), "self" = our own main listener. */
  endpoint: string;
  /** Switched on at start-up; `POST /debug/enable_trace` switches it at run time. */
  enabled: boolean;
  /** Fraction (0-1) of new traces recorded; a child follows its parent's decision. */
  sampleRatio: number;
}

export interface Config {
  enableTelemetry: boolean;
  /** `static_user_provider:cmd:...`, `static_user_provider:file:<path>` or `watch_file_user_provider:<path>`; unset = no auth. */
  userProvider?: string | undefined;
  initRegionsInBackground: boolean;
  initRegionsParallelism: number;
  /**
   * Upper bound on the summed body sizes of write requests being handled at once; 0 = none.
   * Bounds the router's memory (and the shard inboxes) under overload.
   */
  maxInFlightWriteBytes: number;
  /** What a write does when the bound is reached: wait up to `waitMs` for room, or fail (429). */
  writeBytesExhaustedPolicy: WriteBytesExhaustedPolicy;
  /**
   * Queries (SQL, PromQL, remote read) running at once; past it a query is refused with 503 and
   * `Retry-After`. 0 = unbounded (GreptimeDB's default); bounded here so a burst of heavy queries
   * cannot take every shard's time and the router's memory.
   */
  maxConcurrentQueries: number;
  http: HttpConfig;
  storage: StorageConfig;
  wal: WalConfig;
  ingest: IngestConfig;
  memtable: MemtableConfig;
  segment: SegmentConfig;
  query: QueryConfig;
  hec: HecConfig;
  logging: LoggingConfig;
  tracing: TracingConfig;
  debug: DebugConfig;
}

/** Profiling switches (/debug/prof, docs/profiling.md). */
export interface DebugConfig {
  /** Sample live heap allocations in every thread from start-up, as /debug/prof/mem/activate does. */
  heapProfiling: boolean;
}

const MIB = 1024 * 1024;

/**
 * Memtable bounds sized to the machine: all shards' memtables together (`reject_size` each) may
 * hold an eighth of its memory, from 64 MiB to 512 MiB a shard, and a shard flushes at an eighth
 * of its bound, at most 64 MiB. A key the configuration sets is kept: `rejectBytes` then stays
 * at least twice a given `flushBytes`, and `flushBytes` follows a given `rejectBytes` (0, no
 * bound, flushes at 64 MiB).
 */
export function memtableDefaults(
  totalMemoryBytes: number,
  shards: number,
  given: Partial<MemtableConfig> = {},
): MemtableConfig {
  const share = Math.floor(totalMemoryBytes / 8 / Math.max(1, shards));
  let rejectBytes = given.rejectBytes ?? Math.min(512 * MIB, Math.max(64 * MIB, share));
  if (given.rejectBytes === undefined && given.flushBytes !== undefined) {
    rejectBytes = Math.max(rejectBytes, 2 * given.flushBytes);
  }
  const flushBytes =
    given.flushBytes ?? (rejectBytes === 0 ? 64 * MIB : Math.min(64 * MIB, Math.floor(rejectBytes / 8)));
  return { flushBytes, rejectBytes };
}

/** Every default in one place; `config/shoaldb.example.toml` must stay equal to it (a test checks). */
export function defaultConfig(): Config {
  const shards = Math.min(SHARDS_MAX, Math.max(1, os.availableParallelism()));
  return {
    enableTelemetry: true,
    userProvider: undefined,
    initRegionsInBackground: false,
    initRegionsParallelism: 16,
    maxInFlightWriteBytes: 512 * 1024 * 1024,
    writeBytesExhaustedPolicy: { kind: 'wait', waitMs: 10_000 },
    maxConcurrentQueries: 32,
    http: {
      addr: '127.0.0.1:4000',
      timeoutMs: 0,
      bodyLimitBytes: 64 * 1024 * 1024,
      isStrictMode: false,
      enableApiServer: false,
      apiServerAddr: '127.0.0.1:4006',
      enableCors: true,
    },
    storage: { dataHome: './data', shards, retentionCheckIntervalMs: 60_000 },
    wal: { syncMode: 'fsync', segmentBytes: 128 * 1024 * 1024 },
    ingest: { lineMaxBytes: LINE_BYTES_MAX_DEFAULT, shardQueueBytes: 256 * 1024 * 1024, keyRefs: 262_144 },
    memtable: memtableDefaults(os.totalmem(), shards),
    segment: {
      blockRows: 8192,
      compactionTrigger: 4,
      pageCacheBytes: pageCacheDefault(os.totalmem()),
      verifyOnOpen: true,
    },
    query: {
      memoryLimitBytes: 1024 * 1024 * 1024,
      sliceMs: 5,
      shareUnderWritesPercent: 12,
      rangeMaxRows: RANGE_MAX_ROWS_DEFAULT,
      maxPointsPerSeries: 11_000,
      maxSamples: 50_000_000,
      maxSeries: 1_000_000,
      timeoutMs: 120_000,
    },
    hec: { ackEnabled: false, ackMaxChannels: 10_000, ackMaxPendingPerChannel: 100_000, ackMaxPending: 1_000_000 },
    logging: { level: 'info' },
    tracing: { endpoint: '', enabled: false, sampleRatio: 1 },
    debug: { heapProfiling: false },
  };
}

/** What a shard worker needs of the configuration. */
export interface ShardConfig {
  shardId: number;
  /** The shard's own directory: `<data_home>/shards/<id>`. */
  dir: string;
  wal: WalConfig;
  memtable: MemtableConfig;
  segment: SegmentConfig;
  /** `ingest.key_refs`: see IngestConfig.keyRefs. */
  keyRefsPerThread: number;
  /** `query.slice_time`: see QueryConfig.sliceMs. */
  querySliceMs: number;
  /** `storage.retention_check_interval`: see StorageConfig.retentionCheckIntervalMs. */
  retentionCheckIntervalMs: number;
  /** `query.share_under_writes` as a fraction in (0, 1]. */
  queryShareUnderWrites: number;
  logLevel: string;
  /** The shared count of the shard's write tasks not yet started (src/shared/writes-waiting.ts). */
  writesWaiting?: SharedArrayBuffer | undefined;
  /** The router's catalog generation on disk (src/shared/catalog-generation.ts). */
  catalogGeneration?: SharedArrayBuffer | undefined;
  /** The shard's tag filter, which the router reads to leave the shard out of queries (src/shared/tag-filter.ts). */
  tagFilter?: SharedArrayBuffer | undefined;
}

/** `segment.page_cache_size` by default: a sixteenth of memory, at most 256 MiB. */
export function pageCacheDefault(totalMemory: number): number {
  return Math.min(256 * 1024 * 1024, Math.floor(totalMemory / 16));
}
