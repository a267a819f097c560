/**
 * Keeps every shard's copy of the tables that skip the WAL current (shard task `skip-wal`): with
 * the `open` task, once all shards have recovered, and after each catalog change. As in
 * GreptimeDB, `skip_wal` is a table option only (no database default), on when it is 'true' in
 * any case. The catalog awaits the send before a CREATE or ALTER answers, so a write after an
 * ALTER ... SET 'skip_wal' = 'false' is logged. A failed send leaves a shard with its older copy
 * until the next change: a table it still thinks skips the WAL loses unflushed rows in a crash.
 */
import type { Logger } from 'pino';
import type { TableSchema } from '../shared/types.js';
import type { Catalog } from './catalog.js';
import { syncCatalogCopy } from './catalog-sync.js';
import type { ShardCluster } from './shards.js';

/** Whether a table's rows skip the WAL (GreptimeDB compares the option to "true" ignoring case). */
export function skipsWal(table: TableSchema): boolean {
  return table.options.skip_wal?.toLowerCase() === 'true';
}

/** The ids of the tables that skip the WAL, ascending. */
export function skipWalTablesOf(catalog: Catalog): number[] {
  return catalog
    .allTables()
    .filter(skipsWal)
    .map((t) => t.id)
    .sort((a, b) => a - b);
}

/** Starts sending the tables that skip the WAL to the shards; `recovered` resolves when every shard is open. */
export function syncSkipWal(catalog: Catalog, cluster: ShardCluster, recovered: Promise<unknown>, log: Logger): void {
  syncCatalogCopy(catalog, cluster, recovered, log, {
    what: 'tables that skip the WAL',
    current: skipWalTablesOf,
    task: (tableIds) => ({ op: 'skip-wal', tableIds }),
  });
}
