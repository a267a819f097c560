/**
 * Keeps a per-shard copy of something derived from the catalog current: sent once every shard
 * has recovered, then again after each catalog change that alters it (the JSON of the last copy
 * sent decides). A failed send is retried with the next change; until then the shards act on
 * the copy they have, which each caller's note says is safe.
 */
import type { Logger } from 'pino';
import type { ShardTask } from '../shared/messages.js';
import type { Catalog } from './catalog.js';
import type { ShardCluster } from './shards.js';

export interface CatalogCopy<T> {
  /** What the copy is, for the log. */
  what: string;
  /** The copy as the catalog has it now. */
  current(catalog: Catalog): T;
  /** The shard task that installs it. */
  task(copy: T): ShardTask;
}

export function syncCatalogCopy<T>(
  catalog: Catalog,
  cluster: ShardCluster,
  recovered: Promise<unknown>,
  log: Logger,
  copy: CatalogCopy<T>,
): void {
  let ready = false;
  let sent = '';
  const send = async (): Promise<void> => {
    if (!ready) return;
    const value = copy.current(catalog);
    const text = JSON.stringify(value);
    if (text === sent) return;
    sent = text;
    try {
      await cluster.broadcast(copy.task(value));
    } catch (err) {
      sent = '';
      log.warn({ err: String(err) }, `could not send ${copy.what} to the shards`);
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
