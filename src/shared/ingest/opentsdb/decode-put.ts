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

/** One resolver for the life of the thread (a server's shard count never changes). */
let resolver: PutSeriesResolver | null = null;

/** Series held by this thread's OpenTSDB caches. */
export function putSeriesCached(): number {
  return resolver?.size ?? 0;
}

export function decodePut(
  body: Uint8Array,
  db: string,
  schema: SchemaSnapshot,
  shards: number,
): { inserts: TableInsert[]; rows: number } {
  const points = parsePutBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  if (resolver?.shards !== shards) resolver = new PutSeriesResolver(shards);
  const put = resolver.runsOf(points, db, schema.hasDatabase(db));
  const first = put.invalid[0];
  if (first) throw new InvalidArgument(`Invalid ${describePoint(first)}: ${first.error}`);
  const inserts = seriesInserts(put.runs, (d, table) => schema.getTable(d, table)).map((t) => t.insert);
  return { inserts, rows: inserts.reduce((n, i) => n + i.rowCount, 0) };
}
