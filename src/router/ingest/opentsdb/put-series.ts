/**
 * OpenTSDB data points → runs of resolved series for the shared metric-table path
 * (../series-inserts.ts). A point's metric and tags are checked and resolved once per series:
 * the cache key is the metric and the tag pairs as sent (length-prefixed, so no crafted string
 * can pass for another series); only the timestamp and value are checked per point. A point that
 * misses the cache goes through `checkPoint`, which also gives the messages of bad points.
 */
import { KeyedSeriesCache, keyPart } from '../keyed-series-cache.js';
import { type ResolvedSeries, resolveSeries, type SeriesRuns } from '../series-inserts.js';
import { checkPoint, isPointError, numericValueOf, type PointError, timestampMsOf } from './put-points.js';

/** Series-cache entries per generation and database. */
const CACHE_GENERATION = 131_072;

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
  private readonly caches = new Map<string, KeyedSeriesCache>();

  constructor(private readonly shards: number) {}

  private cacheOf(db: string): KeyedSeriesCache {
    let cache = this.caches.get(db);
    if (!cache) {
      cache = new KeyedSeriesCache(CACHE_GENERATION);
      this.caches.set(db, cache);
    }
    return cache;
  }

  /** The good points of a request as runs (one point each), and the bad ones with their errors. */
  runsOf(points: unknown[], db: string): PutRuns {
    const cache = this.cacheOf(db);
    const n = points.length;
    const series: ResolvedSeries[] = [];
    const timestamps = new Float64Array(n);
    const values = new Float64Array(n);
    const pointOf = new Uint32Array(n);
    const invalid: PointError[] = [];
    for (let i = 0; i < n; i++) {
      const datapoint = points[i];
      const p = typeof datapoint === 'object' && datapoint !== null && !Array.isArray(datapoint) ? datapoint : null;
      const key = p ? keyOf(p as Record<string, unknown>) : null;
      const known = key === null ? undefined : cache.get(key);
      let resolved: ResolvedSeries;
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
        resolved = resolveSeries(db, checked.metric, checked.tags, this.shards);
        if (key !== null) cache.set(key, resolved);
        timestampMs = checked.timestampMs;
        value = checked.value;
      }
      const run = series.length;
      series.push(resolved);
      timestamps[run] = timestampMs;
      values[run] = value;
      pointOf[run] = i;
    }
    const count = new Uint32Array(series.length).fill(1);
    const start = new Uint32Array(series.length);
    for (let k = 0; k < start.length; k++) start[k] = k;
    return { runs: { series, start, count, timestamps, values }, pointOf, datapoints: points, invalid };
  }
}
