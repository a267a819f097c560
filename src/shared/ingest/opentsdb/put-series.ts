/**
 * OpenTSDB data points → runs of resolved series for the shared metric-table path
 * (../series-inserts.ts). A point's metric and tags are checked and resolved once per series:
 * the cache key is the metric and the tag pairs as sent (length-prefixed, so no crafted string
 * can pass for another series); only the timestamp and value are checked per point. A point that
 * misses the cache goes through `checkPoint`, which also gives the messages of bad points.
 */
import { KeyedSeriesCache, keyPart } from '../keyed-series-cache.js';
import { PerDatabaseCaches } from '../per-database-caches.js';
import { pointRuns, type ResolvedSeries, resolveSeries, type SeriesRuns } from '../series-inserts.js';
import { checkPoint, isPointError, numericValueOf, type PointError, timestampMsOf } from './put-points.js';

/** Series-cache entries per generation and database. */
const CACHE_GENERATION = 131_072;

/** A cached OpenTSDB series: its metric and tags as sent, and the series after it last time. */
interface SentSeries {
  series: ResolvedSeries;
  /** Metric, then each tag name and value, in the order the point listed them. */
  sent: string[];
  next: SentSeries | undefined;
}

/** Whether the point names `entry`'s series exactly as it was sent before (no string built). */
function sameAsSent(entry: SentSeries, p: Record<string, unknown>): boolean {
  const sent = entry.sent;
  if (p.metric !== sent[0]) return false;
  const tags = p.tags;
  if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) return false;
  let j = 1;
  for (const name in tags) {
    if (name !== sent[j] || (tags as Record<string, unknown>)[name] !== sent[j + 1]) return false;
    j += 2;
  }
  return j === sent.length;
}

function sentOf(metric: string, tags: Array<[string, string]>): string[] {
  const out = [metric];
  for (const [name, value] of tags) out.push(name, value);
  return out;
}

export interface PutRuns {
  runs: SeriesRuns;
  /** `pointOf[i]`: the request position of run i's point. */
  pointOf: Uint32Array;
  datapoints: unknown[];
  invalid: PointError[];
}

function keyOf(p: Record<string, unknown>): string | null {
  const metric = p.metric;
  const tags = p.tags;
  if (typeof metric !== 'string' || typeof tags !== 'object' || tags === null || Array.isArray(tags)) return null;
  let key = keyPart('', metric);
  for (const name in tags) {
    const value = (tags as Record<string, unknown>)[name];
    if (typeof value !== 'string') return null;
    key = keyPart(keyPart(key, name), value);
  }
  return key;
}

export class PutSeriesResolver {
  private readonly caches: PerDatabaseCaches<KeyedSeriesCache<SentSeries>>;

  constructor(readonly shards: number) {
    this.caches = new PerDatabaseCaches((capacity) => new KeyedSeriesCache<SentSeries>(capacity), CACHE_GENERATION);
  }

  /** Series held in every database's cache. */
  get size(): number {
    return this.caches.size;
  }

  /**
   * The good points of a request as runs (one point each), and the bad ones with their errors.
   * `dbExists`: whether `db` is a database (only those get a cache, see PerDatabaseCaches).
   */
  runsOf(points: unknown[], db: string, dbExists: boolean): PutRuns {
    const cache = this.caches.of(db, dbExists);
    const n = points.length;
    const series: ResolvedSeries[] = [];
    const timestamps = new Float64Array(n);
    const values = new Float64Array(n);
    const pointOf = new Uint32Array(n);
    const invalid: PointError[] = [];
    let previous: SentSeries | undefined;
    for (let i = 0; i < n; i++) {
      const datapoint = points[i];
      const p = typeof datapoint === 'object' && datapoint !== null && !Array.isArray(datapoint) ? datapoint : null;
      // Senders repeat their series in order: try the successor of the previous series first,
      // comparing the point's strings with those it was cached from; else look the key up.
      let known: SentSeries | undefined;
      let key: string | null = null;
      const guess = previous?.next;
      if (p !== null && guess !== undefined && sameAsSent(guess, p as Record<string, unknown>)) known = guess;
      else if (p !== null) {
        key = keyOf(p as Record<string, unknown>);
        if (key !== null) known = cache.get(key);
      }
      let resolved: SentSeries;
      let timestampMs: number | string;
      let value: number | string;
      if (known !== undefined) {
        const fields = p as Record<string, unknown>;
        timestampMs = timestampMsOf(fields.timestamp);
        value = numericValueOf(fields.value);
        if (typeof timestampMs === 'string' || typeof value === 'string') {
          invalid.push({
            index: i,
            datapoint,
            error: typeof timestampMs === 'string' ? timestampMs : (value as string),
          });
          continue;
        }
        resolved = known;
      } else {
        const checked = checkPoint(datapoint, i);
        if (isPointError(checked)) {
          invalid.push(checked);
          continue;
        }
        resolved = {
          series: resolveSeries(db, checked.metric, [...checked.tags], this.shards),
          sent: sentOf(checked.metric, checked.tags),
          next: undefined,
        };
        if (key !== null) cache.set(key, resolved);
        timestampMs = checked.timestampMs;
        value = checked.value;
      }
      if (previous !== undefined && previous.next !== resolved) previous.next = resolved;
      previous = resolved;
      const run = series.length;
      series.push(resolved.series);
      timestamps[run] = timestampMs;
      values[run] = value;
      pointOf[run] = i;
    }
    return { runs: pointRuns(series, timestamps, values), pointOf, datapoints: points, invalid };
  }
}
