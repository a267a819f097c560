/**
 * Remote read responses (reference admin §7.5, Prometheus `storage/remote/codec.go`):
 *
 * - SAMPLES: one `ReadResponse` with a `QueryResult` per query, in query order; the route
 *   snappy-compresses it.
 * - STREAMED_XOR_CHUNKS: a sequence of frames, each `uvarint(len) | crc32c(message) as uint32
 *   big-endian | message`, the message a `ChunkedReadResponse` holding series of one query
 *   (`query_index`) with their samples in chunks of at most 120 samples: XOR for floats,
 *   HISTOGRAM / FLOAT_HISTOGRAM for native histograms (histogram-chunk.ts). A frame is closed
 *   once it holds about FRAME_BYTES_MAX; a series longer than that continues in the next frame
 *   under the same labels, as Prometheus' server does. Not compressed.
 *
 * Messages are written field by field with protobufjs' Writer (field numbers from
 * shared/proto/prometheus.ts) so that no object is built per sample. Every field is written, zeros too:
 * skipping "default" doubles would turn -0 into 0.
 */
import type protobuf from 'protobufjs';
import type { Labels, SeriesSamples } from '../../../query/promql/types.js';
import {
  CHUNK_ENCODING_FLOAT_HISTOGRAM,
  CHUNK_ENCODING_HISTOGRAM,
  CHUNK_ENCODING_XOR,
} from '../../../shared/proto/prometheus.js';
import { protobufjs } from '../../../shared/proto/protobufjs.js';
import { crc32c } from './crc32c.js';
import { type EncodedChunk, encodeHistogramChunks } from './histogram-chunk.js';
import { isWhole, writeHistogram } from './read-histogram.js';
import { encodeXorChunk, SAMPLES_PER_CHUNK } from './xor-chunk.js';

/** Target size of one streamed frame (Prometheus' server uses 1 MiB). */
export const FRAME_BYTES_MAX = 1024 * 1024;

const LENGTH_DELIMITED = 2;
const VARINT = 0;
const FIXED64 = 1;

function tag(field: number, wireType: number): number {
  return (field << 3) | wireType;
}

function writeLabels(w: protobuf.Writer, labels: Labels): void {
  for (const label of labels) {
    w.uint32(tag(1, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, LENGTH_DELIMITED)).string(label.name);
    w.uint32(tag(2, LENGTH_DELIMITED)).string(label.value);
    w.ldelim();
  }
}

/** A `ReadResponse` with one `QueryResult` per entry of `results`. */
export function encodeReadResponse(results: readonly (readonly SeriesSamples[])[]): Uint8Array {
  const w = protobufjs().Writer.create();
  for (const series of results) {
    w.uint32(tag(1, LENGTH_DELIMITED)).fork();
    for (const s of series) {
      w.uint32(tag(1, LENGTH_DELIMITED)).fork();
      writeLabels(w, s.labels);
      for (let i = 0; i < s.t.length; i++) {
        if (s.h?.[i] !== undefined) continue;
        w.uint32(tag(2, LENGTH_DELIMITED)).fork();
        w.uint32(tag(1, FIXED64)).double(s.v[i] as number);
        w.uint32(tag(2, VARINT)).int64(s.t[i] as number);
        w.ldelim();
      }
      // Native histogram samples: TimeSeries.histograms (field 4).
      const hs = s.h;
      if (hs)
        for (let i = 0; i < s.t.length; i++) {
          const h = hs[i];
          if (h !== undefined) writeHistogram(w, 4, s.t[i] as number, h, s.hInteger?.[i] === true);
        }
      w.ldelim();
    }
    w.ldelim();
  }
  return w.finish();
}

type PendingChunk = EncodedChunk;

/** One `ChunkedReadResponse` message. */
function encodeChunkedMessage(
  queryIndex: number,
  series: ReadonlyArray<{ labels: Labels; chunks: PendingChunk[] }>,
): Uint8Array {
  const w = protobufjs().Writer.create();
  for (const s of series) {
    w.uint32(tag(1, LENGTH_DELIMITED)).fork();
    writeLabels(w, s.labels);
    for (const c of s.chunks) {
      w.uint32(tag(2, LENGTH_DELIMITED)).fork();
      w.uint32(tag(1, VARINT)).int64(c.minMs);
      w.uint32(tag(2, VARINT)).int64(c.maxMs);
      w.uint32(tag(3, VARINT)).int32(c.encoding);
      w.uint32(tag(4, LENGTH_DELIMITED)).bytes(c.data);
      w.ldelim();
    }
    w.ldelim();
  }
  w.uint32(tag(2, VARINT)).int64(queryIndex);
  return w.finish();
}

/** `uvarint(len) | crc32c BE | message`. */
function frame(message: Uint8Array): Uint8Array {
  const header: number[] = [];
  let length = message.length;
  while (length >= 0x80) {
    header.push((length & 0x7f) | 0x80);
    length >>>= 7;
  }
  header.push(length);
  const out = new Uint8Array(header.length + 4 + message.length);
  out.set(header, 0);
  new DataView(out.buffer).setUint32(header.length, crc32c(message), false);
  out.set(message, header.length + 4);
  return out;
}

/** Rough encoded size of labels, to decide when a frame is full. */
function labelsBytes(labels: Labels): number {
  let n = 0;
  for (const l of labels) n += l.name.length + l.value.length + 6;
  return n;
}

/** What a sample is, for cutting a series into runs of one chunk encoding. */
function kindOf(s: SeriesSamples, i: number): number {
  const h = s.h?.[i];
  if (h === undefined) return CHUNK_ENCODING_XOR;
  return s.hInteger?.[i] === true && isWhole(h) ? CHUNK_ENCODING_HISTOGRAM : CHUNK_ENCODING_FLOAT_HISTOGRAM;
}

/**
 * The chunks of a series in time order: each run of float samples in XOR chunks, each run of
 * histograms in histogram chunks (integer ones as written, the others as float histograms).
 */
function chunksOf(s: SeriesSamples): EncodedChunk[] {
  const chunks: EncodedChunk[] = [];
  let from = 0;
  while (from < s.t.length) {
    const kind = kindOf(s, from);
    let to = from + 1;
    while (to < s.t.length && kindOf(s, to) === kind) to++;
    if (kind === CHUNK_ENCODING_XOR) {
      for (let at = from; at < to; at += SAMPLES_PER_CHUNK) {
        const end = Math.min(to, at + SAMPLES_PER_CHUNK);
        chunks.push({
          encoding: CHUNK_ENCODING_XOR,
          minMs: s.t[at] as number,
          maxMs: s.t[end - 1] as number,
          data: encodeXorChunk(s.t, s.v, at, end),
        });
      }
    } else {
      chunks.push(...encodeHistogramChunks(s.t, s.h ?? [], kind === CHUNK_ENCODING_HISTOGRAM, from, to));
    }
    from = to;
  }
  return chunks;
}

/** The whole body of a streamed response: frames for each query in order. */
export function encodeChunkedReadResponse(results: readonly (readonly SeriesSamples[])[]): Uint8Array {
  const frames: Uint8Array[] = [];
  results.forEach((seriesList, queryIndex) => {
    let pending: Array<{ labels: Labels; chunks: PendingChunk[] }> = [];
    let pendingBytes = 0;
    const flush = (): void => {
      if (pending.length === 0) return;
      frames.push(frame(encodeChunkedMessage(queryIndex, pending)));
      pending = [];
      pendingBytes = 0;
    };
    for (const s of seriesList) {
      let current: { labels: Labels; chunks: PendingChunk[] } | null = null;
      for (const chunk of chunksOf(s)) {
        if (!current) {
          current = { labels: s.labels, chunks: [] };
          pending.push(current);
          pendingBytes += labelsBytes(s.labels);
        }
        current.chunks.push(chunk);
        pendingBytes += chunk.data.length + 32;
        if (pendingBytes >= FRAME_BYTES_MAX) {
          flush();
          current = null;
        }
      }
    }
    flush();
  });
  const total = frames.reduce((n, f) => n + f.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}
