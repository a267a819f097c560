/**
 * Stage 4, continued (lifecycle.ts): `Content-Encoding` undone for the routes that accept
 * compressed bodies (ingest), bounded by the body limit once decompressed so that a small bomb
 * cannot exhaust memory.
 */
import zlib from 'node:zlib';
import { ZstdError, zstdDecompress } from '../../shared/zstd.js';
import { ClientError } from '../errors/catalogue.js';
import { bodyTooLarge } from './limits.js';

/** Without a configured limit, decompression still stops here. */
export const DECOMPRESSED_BYTES_MAX = 1024 * 1024 * 1024;

export function decompress(body: Buffer, encoding: string | undefined, limitBytes: number): Buffer {
  if (!encoding || body.length === 0) return body;
  const maxOutputLength = limitBytes > 0 ? limitBytes : DECOMPRESSED_BYTES_MAX;
  const enc = encoding.trim().toLowerCase();
  try {
    switch (enc) {
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, { maxOutputLength });
      case 'deflate':
        // HTTP "deflate" is zlib-wrapped, but some clients send raw deflate; accept both.
        try {
          return zlib.inflateSync(body, { maxOutputLength });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw err;
          return zlib.inflateRawSync(body, { maxOutputLength });
        }
      case 'br':
        return zlib.brotliDecompressSync(body, { maxOutputLength });
      case 'zstd':
        return Buffer.from(zstdDecompress(body, maxOutputLength));
      default:
        // As GreptimeDB: unknown encodings (and `identity`) pass through untouched (remote write
        // decodes snappy itself).
        return body;
    }
  } catch (err) {
    const tooLarge = err instanceof ZstdError && err.tooLarge;
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError || tooLarge) {
      throw bodyTooLarge();
    }
    throw new ClientError(
      'UndecodableBody',
      `Failed to decompress the request body (${enc}): ${(err as Error).message}`,
    );
  }
}
