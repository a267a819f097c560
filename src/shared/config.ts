/**
 * Typed configuration: every default and every limit of the server lives here.
 * (Loading from TOML, environment overrides and validation are filled in by config-load.ts.)
 */
import os from 'node:os';

export type WalSyncMode = 'fsync' | 'none';

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
}

export interface SegmentConfig {
  /** Rows per block inside a segment; min/max statistics and checksums are per block. */
  blockRows: number;
  /** Compaction merges a table's segments once it has at least this many. */
  compactionTrigger: number;
}

export interface LoggingConfig {
  level: string;
}

export interface Config {
  enableTelemetry: boolean;
  userProvider?: string | undefined;
  initRegionsInBackground: boolean;
  initRegionsParallelism: number;
  http: HttpConfig;
  storage: StorageConfig;
  wal: WalConfig;
  memtable: MemtableConfig;
  segment: SegmentConfig;
  logging: LoggingConfig;
}

export function defaultConfig(): Config {
  return {
    enableTelemetry: true,
    userProvider: undefined,
    initRegionsInBackground: false,
    initRegionsParallelism: 16,
    http: {
      addr: '127.0.0.1:4000',
      timeoutMs: 0,
      bodyLimitBytes: 64 * 1024 * 1024,
      isStrictMode: false,
      enableApiServer: false,
      apiServerAddr: '127.0.0.1:4006',
      enableCors: true,
    },
    storage: { dataHome: './data', shards: Math.max(1, os.availableParallelism()) },
    wal: { syncMode: 'fsync', segmentBytes: 128 * 1024 * 1024 },
    memtable: { flushBytes: 64 * 1024 * 1024 },
    segment: { blockRows: 8192, compactionTrigger: 4 },
    logging: { level: 'info' },
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
  logLevel: string;
}
