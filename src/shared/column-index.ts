/**
 * Column indexes as the catalog keeps them (`ColumnSchema.index`) and as storage uses them
 * (`SegmentIndexSpec`): the router turns the first into the second and sends it to every shard,
 * whose flushes and compactions build one term index per indexed String column of each segment
 * (docs/storage.md, Indexes; byte layout in docs/formats/segment.md).
 */
import type { ColumnIndex, TableSchema } from './types.js';

/** Options every FULLTEXT INDEX has unless WITH(...) says otherwise, as SHOW CREATE TABLE prints them. */
export const FULLTEXT_DEFAULTS: Readonly<Record<string, string>> = {
  analyzer: 'English',
  backend: 'bloom',
  case_sensitive: 'false',
  false_positive_rate: '0.01',
  granularity: '10240',
};

/** Options every SKIPPING INDEX has unless WITH(...) says otherwise. */
export const SKIPPING_DEFAULTS: Readonly<Record<string, string>> = {
  false_positive_rate: '0.01',
  granularity: '10240',
  type: 'BLOOM',
};

/** How a segment turns a column's values into terms. */
export type IndexAnalyzer = 'English' | 'Chinese' | 'none';

/**
 * What a shard needs to index one column of a table: the column id (its `str` values are indexed)
 * and how values become terms. `analyzer: 'none'` indexes each whole value (inverted, skipping).
 */
export interface SegmentIndexSpec {
  columnId: number;
  kind: ColumnIndex['kind'];
  analyzer: IndexAnalyzer;
  caseSensitive: boolean;
}

/**
 * Checks and completes index options the way GreptimeDB does: keys are lower-cased, unknown keys
 * and bad values are refused with `fail`, and defaults fill in what is missing.
 */
export function normalizeIndexOptions(
  kind: ColumnIndex['kind'],
  given: ReadonlyArray<{ key: string; value: string }>,
  fail: (message: string) => never,
): Record<string, string> {
  if (kind === 'inverted') {
    if (given.length > 0) fail('INVERTED INDEX takes no options');
    return {};
  }
  const defaults = kind === 'fulltext' ? FULLTEXT_DEFAULTS : SKIPPING_DEFAULTS;
  const out: Record<string, string> = { ...defaults };
  for (const { key, value } of given) {
    const k = key.toLowerCase();
    if (!(k in defaults)) fail(`unknown ${kind} index option: ${key}`);
    out[k] = canonicalOption(k, value, fail);
  }
  return out;
}

function canonicalOption(key: string, value: string, fail: (message: string) => never): string {
  const lower = value.toLowerCase();
  switch (key) {
    case 'analyzer':
      if (lower === 'english') return 'English';
      if (lower === 'chinese') return 'Chinese';
      return fail(`invalid analyzer: ${value} (expected English or Chinese)`);
    case 'case_sensitive':
      if (lower === 'true' || lower === 'false') return lower;
      return fail(`invalid case_sensitive: ${value} (expected true or false)`);
    case 'backend':
      if (lower === 'bloom' || lower === 'tantivy') return lower;
      return fail(`invalid backend: ${value} (expected bloom or tantivy)`);
    case 'type':
      if (lower === 'bloom') return 'BLOOM';
      return fail(`invalid skipping index type: ${value} (expected BLOOM)`);
    case 'granularity':
      if (/^[1-9]\d*$/.test(value)) return value;
      return fail(`invalid granularity: ${value}`);
    case 'false_positive_rate': {
      const rate = Number(value);
      if (Number.isFinite(rate) && rate > 0 && rate <= 1) return value;
      return fail(`invalid false_positive_rate: ${value} (expected a number in (0, 1])`);
    }
    default:
      return value;
  }
}

/** The segment index of a column, or null for columns storage does not index. */
export function segmentIndexSpecOf(column: TableSchema['columns'][number]): SegmentIndexSpec | null {
  const index = column.index;
  // Tags live in series keys, not in field columns; only String fields have str values to index.
  if (!index || column.semantic !== 'FIELD' || column.type !== 'String') return null;
  if (index.kind !== 'fulltext')
    return { columnId: column.id, kind: index.kind, analyzer: 'none', caseSensitive: true };
  return {
    columnId: column.id,
    kind: 'fulltext',
    analyzer: index.options.analyzer === 'Chinese' ? 'Chinese' : 'English',
    caseSensitive: index.options.case_sensitive === 'true',
  };
}

/** Index specs of every table that has any, as the router sends them to shards. */
export function segmentIndexSpecsOf(
  tables: readonly TableSchema[],
): Array<{ tableId: number; columns: SegmentIndexSpec[] }> {
  const out: Array<{ tableId: number; columns: SegmentIndexSpec[] }> = [];
  for (const t of tables) {
    const columns = t.columns.map(segmentIndexSpecOf).filter((s): s is SegmentIndexSpec => s !== null);
    if (columns.length > 0) out.push({ tableId: t.id, columns });
  }
  return out.sort((a, b) => a.tableId - b.tableId);
}
