/**
 * An OpenTSDB put body → runs of samples per series, on the thread that decodes it, for the all-or-nothing form of
 * the request (no `summary` or `details`): the first bad point refuses the whole request. Bodies
 * in the plain shape collectors send are scanned in place (put-scan.ts); the others, and every
 * body with a bad point, are parsed whole (put-points.ts), which also words the refusal. The
 * series caches live here, one per database, for the life of the thread.
 */
import { InvalidArgument } from '../../errors.js';
import type { TableInsert } from '../../insert.js';
import { SeriesCache } from '../byte-series-cache.js';
import { PerDatabaseCaches } from '../per-database-caches.js';
import type { SchemaSnapshot } from '../schema-snapshot.js';
import { type SeriesRuns, samplesOf } from '../series-inserts.js';
import { describePoint, parsePutBody } from './put-points.js';
import { scanPutRuns } from './put-scan.js';
import { PutSeriesResolver } from './put-series.js';

/** Series-cache entries per generation and database, as remote write's. */
const CACHE_GENERATION = 131_072;

/** One resolver for the life of the thread (a server's shard count never changes). */
let resolver: PutSeriesResolver | null = null;
const caches = new PerDatabaseCaches((capacity) => new SeriesCache(capacity), CACHE_GENERATION);

/** Series held by this thread's OpenTSDB caches. */
export function putSeriesCached(): number {
  return (resolver?.size ?? 0) + caches.size;
}

export function decodePut(
  body: Uint8Array,
  db: string,
  schema: SchemaSnapshot,
  shards: number,
): { runs: SeriesRuns; extra: TableInsert[]; rows: number } {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const scanned = scanPutRuns(bytes, caches.of(db, schema.hasDatabase(db)), db, shards);
  if (scanned !== null) return { runs: scanned, extra: [], rows: samplesOf(scanned) };
  const points = parsePutBody(bytes);
  if (resolver?.shards !== shards) resolver = new PutSeriesResolver(shards);
  const put = resolver.runsOf(points, db, schema.hasDatabase(db));
  const first = put.invalid[0];
  if (first) throw new InvalidArgument(`Invalid ${describePoint(first)}: ${first.error}`);
  return { runs: put.runs, extra: [], rows: samplesOf(put.runs) };
}
