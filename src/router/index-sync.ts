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
import type { ShardCluster } from './shards.js';

/** Starts sending index specs to the shards; `recovered` resolves when every shard is open. */
export function syncColumnIndexes(
  catalog: Catalog,
  cluster: ShardCluster,
  recovered: Promise<unknown>,
  log: Logger,
): void {
  let ready = false;
  let sent = '';
  const send = async (): Promise<void> => {
    if (!ready) return;
    const tables = segmentIndexSpecsOf(catalog.allTables());
    const text = JSON.stringify(tables);
    if (text === sent) return;
    sent = text;
    try {
      await cluster.broadcast({ op: 'indexes', tables });
    } catch (err) {
      // Sent again with the next catalog change; until then new segments lack the index.
      sent = '';
      log.warn({ err: String(err) }, 'could not send column indexes to the shards');
    }
  };
  catalog.onChange(send);
  recovered.then(
    () => {
      ready = true;
      return send();
    },
    () => {},
  );
}
