/**
 * A remote-write body (snappy block of a `WriteRequest`) → runs of samples per series, on the thread that decodes
 * it. The series caches live here, one per database, for the life of the thread.
 */
import { InvalidArgument } from '../../errors.js';
import type { TableInsert } from '../../insert.js';
import { WireError } from '../../proto/wire.js';
import { SeriesCache } from '../byte-series-cache.js';
import { PerDatabaseCaches } from '../per-database-caches.js';
import type { SchemaSnapshot } from '../schema-snapshot.js';
import { histogramInserts, type SeriesRuns, samplesOf } from '../series-inserts.js';
import { metadataInsert } from './metadata.js';
import { SnappyError, snappyDecompress } from './snappy-block.js';
import { runsOf } from './to-inserts.js';
import { decodeWriteRequest } from './write-decode.js';
import { decodeWriteRequestV2 } from './write-decode-v2.js';

/** Without a configured body limit, decompression still stops here (as the HTTP server does). */
const DECOMPRESSED_BYTES_MAX = 1024 * 1024 * 1024;
/**
 * Series-cache entries per generation and database (at most twice as many are held). About half
 * a KiB each for a TSBS-sized label set, so the default bounds the cache near 128 MiB.
 */
const SERIES_CACHE_GENERATION = 131_072;

/**
 * Bodies decompress into one buffer per thread, reused: a fresh one per request (a scraper's is
 * ~250 KiB) was most of the thread's off-heap allocation, and V8 answers that with premature
 * scavenges ("external memory pressure": 45% of them under rw-1). Safe because a body is decoded
 * synchronously and nothing keeps its bytes (series caches copy theirs). Larger bodies than this
 * get their own buffer, so one huge request does not pin its size for the thread's life.
 */
const SCRATCH_BYTES_MAX = 16 * 1024 * 1024;
let scratch = Buffer.allocUnsafeSlow(0);

function scratchOf(length: number): Buffer {
  if (length > SCRATCH_BYTES_MAX) return Buffer.allocUnsafe(length);
  if (scratch.length < length)
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_BYTES_MAX, Math.max(length, 2 * scratch.length)));
  return scratch.subarray(0, length);
}

const caches = new PerDatabaseCaches((capacity) => new SeriesCache(capacity), SERIES_CACHE_GENERATION);

/** Series held by this thread's remote-write caches. */
export function remoteWriteSeriesCached(): number {
  return caches.size;
}

/** Samples, native histogram samples and exemplars a remote write stores (exemplars: none yet). */
export interface WrittenCounts {
  samples: number;
  histograms: number;
  exemplars: number;
}

export type RemoteWriteDecoded =
  /**
   * `rows`: the float and histogram samples; `extra`: metadata rows (written but not counted) and
   * histogram inserts; `written`: the request's parts by kind.
   */
  | { runs: SeriesRuns; extra: TableInsert[]; rows: number; written: WrittenCounts }
  /** Refused before decoding, with an HTTP status of its own (413: decompresses past the limit). */
  | { refused: { status: number; message: string } };

export function decodeRemoteWrite(
  body: Uint8Array,
  db: string,
  bodyLimitBytes: number,
  schema: SchemaSnapshot,
  shards: number,
  version: 1 | 2 = 1,
): RemoteWriteDecoded {
  const raw = decompressRemoteBody(body, bodyLimitBytes, true);
  if ('refused' in raw) return raw;
  let decoded: ReturnType<typeof decodeWriteRequest>;
  try {
    const resolver = { cache: caches.of(db, schema.hasDatabase(db)), defaultDb: db, shards };
    decoded = version === 2 ? decodeWriteRequestV2(raw.bytes, resolver) : decodeWriteRequest(raw.bytes, resolver);
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    throw new InvalidArgument(`Failed to decode prometheus remote request: ${err.message}`);
  }
  const runs = runsOf(decoded);
  const metadata = metadataInsert(decoded.metadata, db);
  const extra = metadata ? [metadata] : [];
  // Histograms take the general path (series-inserts.ts); a request without any keeps the direct one.
  const histograms =
    decoded.histograms.series.length > 0 ? histogramInserts(decoded.histograms, schema.getTable.bind(schema)) : [];
  extra.push(...histograms);
  const written = {
    samples: samplesOf(runs),
    histograms: samplesOf(decoded.histograms),
    // Exemplars are accepted and not stored.
    exemplars: 0,
  };
  return { runs, extra, rows: written.samples + written.histograms, written };
}

/**
 * A remote-write or remote-read body (a snappy block) decompressed, at most to the body limit.
 * Past it, a refusal with 413 (as a body over the limit gets); a malformed block is an
 * InvalidArgument. `reused`: into this thread's scratch buffer, valid until the next call that
 * reuses it (for a caller that is done with the bytes before it yields).
 */
export function decompressRemoteBody(
  body: Uint8Array,
  bodyLimitBytes: number,
  reused = false,
): { bytes: Buffer } | { refused: { status: number; message: string } } {
  try {
    const bytes = snappyDecompress(
      Buffer.from(body.buffer, body.byteOffset, body.byteLength),
      bodyLimitBytes > 0 ? bodyLimitBytes : DECOMPRESSED_BYTES_MAX,
      reused ? scratchOf : undefined,
    );
    return { bytes };
  } catch (err) {
    if (err instanceof SnappyError && err.tooLarge) {
      return { refused: { status: 413, message: `Failed to buffer the request body: ${err.message}` } };
    }
    throw new InvalidArgument(`Failed to decompress snappy prometheus remote request: ${(err as Error).message}`);
  }
}
