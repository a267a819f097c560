/**
 * The PromQL shard plan: what the router sends each shard to read series for a selector. The
 * router has already resolved everything that needs the catalog (`__name__` → tables, database
 * labels, `__field__` → value column, matchers on labels a table lacks); a shard only scans.
 *
 * Everything here survives structured clone: plain objects, strings and numbers.
 *
 * `eval` carries the resolved tables of each selector of its subtree and reads them through
 * `selectLocal` too, so every op reads series the same way. Bump `PROMQL_SHARD_PLAN_VERSION` when
 * a shape changes incompatibly.
 */
import type { PhysicalKind, TimeUnit } from '../../../shared/types.js';
import type { MatchOp } from '../types.js';

/**
 * 2: `seriesMax` in selects and eval plans, `seriesSelected` in eval answers.
 * 3: native histograms in eval answers (packed step series, histogram fold states).
 */
export const PROMQL_SHARD_PLAN_VERSION = 3;

/** A label matcher on one tag column of a table. */
export interface TagMatcher {
  columnId: number;
  op: MatchOp;
  value: string;
}

/** One table to read series from. */
export interface TableSelect {
  tableId: number;
  /** The `__name__` of every series (the table name). */
  metric: string;
  /** Unit of the table's time index; samples come back in ms. */
  timeUnit: TimeUnit;
  /** Tag columns; each becomes a label named after its column. */
  tags: Array<{ id: number; name: string }>;
  /** The field read as the sample value (numbers only; NULL rows are skipped). */
  value: { id: number; kind: Extract<PhysicalKind, 'f64' | 'i64' | 'u64'> };
  /**
   * The Binary field holding native histogram samples (`greptime_histogram`), when the table has
   * one: a row whose value is NULL and whose histogram is not is a histogram sample.
   */
  histogram?: { id: number } | undefined;
  /** Every matcher must hold; an absent tag counts as the empty string, as in Prometheus. */
  matchers: TagMatcher[];
  /**
   * Set when the table's series may have rows in several shards (append mode, partition.ts): no
   * shard sees them whole, so the router reads them raw and joins their parts.
   */
  spread?: true | undefined;
}

/** A series read: matching series of some tables with their samples in [minMs, maxMs]. */
export interface LocalSelect {
  tables: TableSelect[];
  /** Inclusive lower bound in ms; null = unbounded. */
  minMs: number | null;
  /** Inclusive upper bound in ms; null = unbounded. */
  maxMs: number | null;
  /** Most samples one shard may return before the query fails (`query.max_samples`). */
  samplesMax: number;
  /**
   * Most series one shard may return before the query fails (`query.max_series`; 0 = unbounded).
   * The router checks their sum over the shards again.
   */
  seriesMax: number;
}

/** The per-shard bounds of every selection, as the router's limits set them. */
export type SelectBounds = Pick<LocalSelect, 'samplesMax' | 'seriesMax'>;
