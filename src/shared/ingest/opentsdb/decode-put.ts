/**
 * An OpenTSDB put body → inserts, on the thread that decodes it, for the all-or-nothing form of
 * the request (no `summary` or `details`): the first bad point refuses the whole request. The
 * series caches live here, one per database, for the life of the thread.
 */
import { InvalidArgument } from '../../errors.js';
import type { TableInsert } from '../../insert.js';
import type { SchemaSnapshot } from '../schema-snapshot.js';
import { seriesInserts } from '../series-inserts.js';
import { describePoint, parsePutBody } from './put-points.js';
import { PutSeriesResolver } from './put-series.js';

/** The schema of the call in progress: only databases that exist get a cache. */
let current: SchemaSnapshot | null = null;
const resolvers = new Map<number, PutSeriesResolver>();

/** The resolver for `shards` shards (one per shard count; a server has one). */
function resolverFor(shards: number): PutSeriesResolver {
  let resolver = resolvers.get(shards);
  if (!resolver) {
    resolver = new PutSeriesResolver(shards, (db) => current?.hasDatabase(db) === true);
    resolvers.set(shards, resolver);
  }
  return resolver;
}

/** Series held by this thread's OpenTSDB caches. */
export function putSeriesCached(): number {
  let n = 0;
  for (const r of resolvers.values()) n += r.size;
  return n;
}

export function decodePut(
  body: Uint8Array,
  db: string,
  schema: SchemaSnapshot,
  shards: number,
): { inserts: TableInsert[]; rows: number } {
  const points = parsePutBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  current = schema;
  let put: ReturnType<PutSeriesResolver['runsOf']>;
  try {
    put = resolverFor(shards).runsOf(points, db);
  } finally {
    current = null;
  }
  const first = put.invalid[0];
  if (first) throw new InvalidArgument(`Invalid ${describePoint(first)}: ${first.error}`);
  const inserts = seriesInserts(put.runs, (d, table) => schema.getTable(d, table)).map((t) => t.insert);
  return { inserts, rows: inserts.reduce((n, i) => n + i.rowCount, 0) };
}
