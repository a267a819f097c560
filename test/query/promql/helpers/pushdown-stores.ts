/**
 * The stores behind the PromQL pushdown tests: a catalog and in-process shard stores holding
 * metric tables (`greptime_value`, optionally `greptime_histogram`), each series on the store its
 * tags hash to, half of the data flushed to segments and half left in memtables.
 */
import { Catalog } from '../../../../src/router/catalog.js';
import type { ShardStore } from '../../../../src/shard/store.js';
import { encodeWriteBatch } from '../../../../src/shared/codec/write-batch.js';
import type { TableSchema } from '../../../../src/shared/types.js';
import { openStore, type TestRow, tableRows, tempDir } from '../../../shard/helpers.js';
import { fnv, type PushdownEnv } from './pushdown-compare.js';

/** One sample: a float (NaN payloads kept) or, in a histogram table, a stored histogram. */
export interface StoredSample {
  ts: number;
  value: number | null;
  histogram?: string | null;
}

export interface StoredMetric {
  name: string;
  tags: string[];
  /** Whether the table has a `greptime_histogram` column. */
  histograms?: boolean;
  series: Array<{ tags: Record<string, string>; samples: StoredSample[] }>;
}

function columnsOf(metric: StoredMetric): TableSchema['columns'] {
  return [
    { name: 'greptime_timestamp', type: 'TimestampMillisecond', semantic: 'TIMESTAMP', nullable: false },
    { name: 'greptime_value', type: 'Float64', semantic: 'FIELD', nullable: true },
    ...(metric.histograms
      ? [{ name: 'greptime_histogram', type: 'Binary' as const, semantic: 'FIELD' as const, nullable: true }]
      : []),
    ...metric.tags.map((name) => ({ name, type: 'String' as const, semantic: 'TAG' as const, nullable: true })),
  ] as TableSchema['columns'];
}

export async function storeMetrics(
  t: { teardown(fn: () => unknown): void },
  shards: number,
  metrics: StoredMetric[],
): Promise<PushdownEnv> {
  const catalog = await Catalog.open(tempDir(t), shards);
  const stores: ShardStore[] = [];
  for (let i = 0; i < shards; i++) stores.push(await openStore(tempDir(t)));
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  for (const metric of metrics) {
    const { table } = await catalog.createTable(
      {
        db: 'public',
        name: metric.name,
        columns: columnsOf(metric),
        timeIndex: 'greptime_timestamp',
        primaryKey: metric.tags,
        options: {},
      },
      false,
    );
    const idOf = (name: string): number => table.columns.find((c) => c.name === name)?.id as number;
    const valueId = idOf('greptime_value');
    const histogramId = metric.histograms ? idOf('greptime_histogram') : -1;
    const perShard: TestRow[][] = stores.map(() => []);
    for (const series of metric.series) {
      const shard = fnv(`${table.id}|${JSON.stringify(series.tags)}`) % shards;
      const tags: Record<number, string> = {};
      for (const [name, value] of Object.entries(series.tags)) tags[idOf(name)] = value;
      for (const s of series.samples) {
        const fields: TestRow['fields'] = { [valueId]: s.value };
        if (histogramId >= 0) fields[histogramId] = s.histogram ?? null;
        (perShard[shard] as TestRow[]).push({ ts: BigInt(s.ts), tags, fields });
      }
    }
    const kinds =
      histogramId >= 0 ? { [valueId]: 'f64' as const, [histogramId]: 'str' as const } : { [valueId]: 'f64' as const };
    for (let s = 0; s < shards; s++) {
      const rows = perShard[s] as TestRow[];
      if (rows.length === 0) continue;
      await (stores[s] as ShardStore).write([encodeWriteBatch({ tables: [tableRows(table.id, kinds, rows)] })]);
    }
  }
  await Promise.all(stores.map((s) => s.flush()));
  return { catalog, stores, ops: [] };
}
