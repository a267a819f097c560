/**
 * Keeps every shard's copy of the tables' retention current (shard task `retention`): once all
 * shards have recovered, and after each catalog change. A table's `ttl` is its own option, else
 * its database's (src/shared/ttl.ts); tables kept forever are not sent. Until a shard hears of a
 * ttl it keeps the table's rows, which only delays their expiry.
 */
import type { Logger } from 'pino';
import type { TableRetention } from '../shared/messages.js';
import { effectiveTtlMs, unitsPerSecondOf } from '../shared/ttl.js';
import type { Catalog } from './catalog.js';
import { syncCatalogCopy } from './catalog-sync.js';
import type { ShardCluster } from './shards.js';

/** The retention of every table with a ttl, as the shards apply it. */
export function tableRetentionsOf(catalog: Catalog): TableRetention[] {
  const out: TableRetention[] = [];
  for (const table of catalog.allTables()) {
    const ttlMs = effectiveTtlMs(table, catalog.getDatabase(table.db));
    if (ttlMs === null) continue;
    const timeIndex = table.columns.find((c) => c.name === table.timeIndex);
    out.push({ tableId: table.id, ttlMs, unitsPerSecond: unitsPerSecondOf(timeIndex?.type ?? 'TimestampMillisecond') });
  }
  return out;
}

/** Starts sending retention to the shards; `recovered` resolves when every shard is open. */
export function syncRetention(catalog: Catalog, cluster: ShardCluster, recovered: Promise<unknown>, log: Logger): void {
  // A failed send keeps the shards' older retention until the next change: expiry comes later.
  syncCatalogCopy(catalog, cluster, recovered, log, {
    what: 'table retention',
    current: tableRetentionsOf,
    task: (tables) => ({ op: 'retention', tables }),
  });
}
