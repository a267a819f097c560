/**
 * The protobuf form of a Loki push (`Content-Type: application/x-protobuf`): a snappy block (always,
 * whatever `Content-Encoding` says) holding a `logproto.PushRequest` (shared/proto/loki.ts). Decoded
 * with protobufjs into `LokiStream`s; every entry must have a timestamp that fits int64
 * nanoseconds and every stream a readable label string, or the whole request is refused.
 */
import { InvalidArgument } from '../../errors.js';
import { SnappyError, snappyDecompress } from '../../ingest/prom-remote/snappy-block.js';
import { lokiTypes, type WireStream } from '../../proto/loki.js';
import { LabelSyntaxError, parseLokiLabels } from './labels.js';
import { type LokiEntry, type LokiStream, timestampNsInRange } from './push-streams.js';

const NANOS_PER_SECOND = 1_000_000_000n;

/** The snappy block decompresses past the body limit: answered 413, as a body over the limit is. */
export class LokiBodyTooLarge extends Error {}

function decompress(body: Buffer, maxBytes: number): Buffer {
  try {
    return snappyDecompress(body, maxBytes);
  } catch (err) {
    if (err instanceof SnappyError && err.tooLarge) {
      throw new LokiBodyTooLarge(`Failed to buffer the request body: ${err.message}`);
    }
    throw new InvalidArgument(`Failed to decompress snappy Loki push request: ${(err as Error).message}`);
  }
}

/** A decoded int64 (`Long` with the `long` package, else a number) as an exact bigint. */
function int64Of(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  return BigInt(String(value));
}

/** The label string shortened for messages. */
function excerpt(text: string): string {
  return text.length > 120 ? `${JSON.stringify(text.slice(0, 120))}...` : JSON.stringify(text);
}

/**
 * Decodes a snappy-compressed `PushRequest`. `maxBytes` bounds the decompressed size (413 past it).
 * Throws `InvalidArgument` (400) for a bad block, bad protobuf or a bad stream or entry.
 */
export function decodePushProtobuf(body: Buffer, maxBytes: number): LokiStream[] {
  const raw = decompress(body, maxBytes);
  let streams: WireStream[];
  try {
    const message = lokiTypes.PushRequest.decode(raw) as unknown as { streams?: WireStream[] };
    streams = message.streams ?? [];
  } catch (err) {
    throw new InvalidArgument(`Failed to decode Loki push request: ${(err as Error).message}`);
  }
  const out: LokiStream[] = [];
  for (let s = 0; s < streams.length; s++) {
    const stream = streams[s] as WireStream;
    let labels: Array<[string, string]>;
    try {
      labels = parseLokiLabels(stream.labels ?? '');
    } catch (err) {
      if (!(err instanceof LabelSyntaxError)) throw err;
      throw new InvalidArgument(`Invalid Loki labels of stream ${s} ${excerpt(stream.labels ?? '')}: ${err.message}`);
    }
    const entries: LokiEntry[] = [];
    const wireEntries = stream.entries ?? [];
    for (let e = 0; e < wireEntries.length; e++) {
      const entry = wireEntries[e];
      const where = `stream ${s} entry ${e}`;
      if (!entry?.timestamp) throw new InvalidArgument(`Invalid Loki push request: ${where} has no timestamp`);
      const nanos = entry.timestamp.nanos ?? 0;
      if (nanos < 0 || nanos >= 1_000_000_000) {
        throw new InvalidArgument(`Invalid Loki push request: ${where} has nanos ${nanos} outside [0, 1e9)`);
      }
      const timestampNs = int64Of(entry.timestamp.seconds) * NANOS_PER_SECOND + BigInt(nanos);
      if (!timestampNsInRange(timestampNs)) {
        throw new InvalidArgument(
          `Invalid Loki push request: ${where} has a timestamp outside the int64 nanosecond range`,
        );
      }
      const metadata: Array<[string, string]> = (entry.structuredMetadata ?? []).map((p) => [p.name, p.value]);
      entries.push({ timestampNs, line: entry.line ?? '', metadata });
    }
    out.push({ labels, entries });
  }
  return out;
}
