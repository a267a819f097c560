/**
 * The rules that turn one remote-write label set into a series (reference ingest §2.3): the
 * metric name picks the table, database labels pick the database and are not stored, physical
 * table labels are dropped, an empty value is no label, and every name must be a valid label
 * name and appear once. They run once per distinct label set (see series-cache.ts).
 */
import { InvalidArgument } from '../../errors.js';
import { type SeriesEntry, seriesEntry } from '../byte-series-cache.js';
import { resolveSeries } from '../series-inserts.js';

export const METRIC_NAME_LABEL = '__name__';

/**
 * Labels that choose the database of a series instead of becoming tags. `__schema__` is the
 * deprecated spelling and wins when several are present, as in GreptimeDB.
 */
export const DATABASE_LABELS = ['x_greptime_database', '__database__', '__schema__'] as const;

/**
 * Labels naming GreptimeDB's metric-engine physical table. ShoalDB stores every metric in its own
 * table, so they only get removed from the tags (see docs/metrics-storage.md).
 */
export const PHYSICAL_TABLE_LABELS = ['x_greptime_physical_table', '__physical_table__'] as const;

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function describe(names: readonly string[], values: readonly string[]): string {
  const pairs = names.map((n, i) => `${n}=${JSON.stringify(values[i] ?? '')}`);
  const text = `{${pairs.join(', ')}}`;
  return text.length > 200 ? `${text.slice(0, 200)}...}` : text;
}

function stripCatalogPrefix(db: string): string {
  return db.startsWith('greptime-') ? db.slice('greptime-'.length) : db;
}

/**
 * The series of labels as sent (`names[i]` = `values[i]`), written to `defaultDb` unless a label
 * says otherwise. `bytes[start, end)` are the labels' wire bytes, kept as the cache key. Throws
 * InvalidArgument for a label set the reference refuses.
 */
export function seriesEntryOf(
  names: readonly string[],
  values: readonly string[],
  defaultDb: string,
  shards: number,
  bytes: Uint8Array,
  start: number,
  end: number,
): SeriesEntry {
  let metric = '';
  let db = defaultDb;
  let schemaLabel: string | null = null;
  const tags: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const value = values[i] as string;
    if (!LABEL_NAME.test(name)) {
      throw new InvalidArgument(`Invalid label name: ${JSON.stringify(name)} in series ${describe(names, values)}`);
    }
    if (seen.has(name)) throw new InvalidArgument(`Duplicate label name ${name} in series ${describe(names, values)}`);
    seen.add(name);
    // An empty value is the same as no label at all (Prometheus' rule).
    if (value === '') continue;
    if (name === METRIC_NAME_LABEL) metric = value;
    else if (name === '__schema__') schemaLabel = value;
    else if ((DATABASE_LABELS as readonly string[]).includes(name)) db = value;
    else if (!(PHYSICAL_TABLE_LABELS as readonly string[]).includes(name)) tags.push([name, value]);
  }
  if (metric === '') {
    throw new InvalidArgument(`Missing metric name (label __name__) in series ${describe(names, values)}`);
  }
  const series = resolveSeries(stripCatalogPrefix(schemaLabel ?? db), metric, tags, shards);
  return seriesEntry(series, bytes, start, end);
}
