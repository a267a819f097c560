/**
 * Keeps every shard's copy of the tables' column indexes current (shard task `indexes`): once
 * all shards have recovered, and after each catalog change that alters them. Shards build the
 * indexes they know of into the segments they write next; a segment written before a shard
 * learnt of an index simply has none (its compaction output will), which costs speed, not
 * correctness.
 */
import type { Logger } from 'pino';
import { segmentIndexSpecsOf } from '../shared/column-index.js';
import type { Catalog } from './catalog.js';
import { syncCatalogCopy } from './catalog-sync.js';
import type { ShardCluster } from './shards.js';

/** Starts sending index specs to the shards; `recovered` resolves when every shard is open. */
export function syncColumnIndexes(
  catalog: Catalog,
  cluster: ShardCluster,
  recovered: Promise<unknown>,
  log: Logger,
): void {
  // A failed send leaves new segments without the index until the next change: speed, not data.
  syncCatalogCopy(catalog, cluster, recovered, log, {
    what: 'column indexes',
    current: (c) => segmentIndexSpecsOf(c.allTables()),
    task: (tables) => ({ op: 'indexes', tables }),
  });
}
