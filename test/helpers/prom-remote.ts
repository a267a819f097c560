/**
 * A small Prometheus remote write / read client for tests, built on the server's own protobuf
 * schema (src/shared/proto/prometheus.ts) and snappyjs, plus an independent
 * decoder of streamed XOR-chunk responses (written from Prometheus' format description, not from
 * the server's encoder) to check what the server sends.
 */
import snappy from 'snappyjs';
import { int64ToNumber, prometheusTypes, STREAMED_CONTENT_TYPE } from '../../src/shared/proto/prometheus.js';

export interface TestSample {
  value: number;
  timestamp: number;
}

export interface TestSeries {
  labels: Record<string, string> | Array<[string, string]>;
  samples: TestSample[];
}

export interface TestMetadata {
  type: number;
  metric_family_name: string;
  help?: string;
  unit?: string;
}

function labelList(labels: TestSeries['labels']): Array<{ name: string; value: string }> {
  const pairs = Array.isArray(labels) ? labels : Object.entries(labels);
  return pairs.map(([name, value]) => ({ name, value }));
}

/** A `WriteRequest` as protobuf bytes (not compressed). */
export function writeRequestBytes(series: TestSeries[], metadata: TestMetadata[] = []): Uint8Array {
  const message = prometheusTypes.WriteRequest.fromObject({
    timeseries: series.map((s) => ({ labels: labelList(s.labels), samples: s.samples })),
    metadata,
  });
  return prometheusTypes.WriteRequest.encode(message).finish();
}

export function snappyBlock(bytes: Uint8Array): Buffer {
  return snappy.compress(Buffer.from(bytes));
}

/** POSTs a raw body to the remote write endpoint with Prometheus' headers. */
export async function postRemoteWrite(
  url: string,
  body: Uint8Array,
  query = '',
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/v1/metricsapi/write${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
      ...headers,
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** Encodes, compresses and POSTs a write request. */
export function remoteWrite(url: string, series: TestSeries[], query = '', metadata: TestMetadata[] = []) {
  return postRemoteWrite(url, snappyBlock(writeRequestBytes(series, metadata)), query);
}

export type MatcherOp = 'EQ' | 'NEQ' | 'RE' | 'NRE';
const MATCHER_TYPES: Record<MatcherOp, number> = { EQ: 0, NEQ: 1, RE: 2, NRE: 3 };

export interface TestQuery {
  start: number;
  end: number;
  matchers: Array<[string, MatcherOp, string]>;
}

export function readRequestBytes(queries: TestQuery[], acceptedResponseTypes: number[] = []): Uint8Array {
  const message = prometheusTypes.ReadRequest.fromObject({
    queries: queries.map((q) => ({
      start_timestamp_ms: q.start,
      end_timestamp_ms: q.end,
      matchers: q.matchers.map(([name, op, value]) => ({ type: MATCHER_TYPES[op], name, value })),
    })),
    accepted_response_types: acceptedResponseTypes,
  });
  return prometheusTypes.ReadRequest.encode(message).finish();
}

export async function postRemoteRead(url: string, body: Uint8Array, query = '') {
  const res = await fetch(`${url}/v1/metricsapi/read${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-read-version': '0.1.0',
    },
    body,
  });
  return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) };
}

/** A series as read back: labels as an object, samples with raw value bits. */
export interface ReadSeries {
  labels: Record<string, string>;
  /** [timestamp ms, value] pairs. */
  samples: Array<[number, number]>;
  /** Each value's 64 bits as hex, so NaN payloads can be compared. */
  bits: string[];
}

const bitsProbe = new Float64Array(1);
const bitsView = new BigUint64Array(bitsProbe.buffer);

/** The IEEE-754 bits of a number, as 16 hex digits. */
export function bitsOf(value: number): string {
  bitsProbe[0] = value;
  return (bitsView[0] as bigint).toString(16).padStart(16, '0');
}

/** The number with the given bits (read straight into a typed array, so NaN payloads survive). */
export function numberOfBits(hex: string): number {
  bitsView[0] = BigInt(`0x${hex}`);
  return bitsProbe[0] as number;
}

/** Remote read with SAMPLES: one list of series per query. */
export async function remoteRead(url: string, queries: TestQuery[], query = ''): Promise<ReadSeries[][]> {
  const res = await postRemoteRead(url, snappyBlock(readRequestBytes(queries)), query);
  if (res.status !== 200) throw new Error(`remote read failed: ${res.status} ${new TextDecoder().decode(res.body)}`);
  const raw = snappy.uncompress(Buffer.from(res.body));
  const decoded = prometheusTypes.ReadResponse.decode(raw) as unknown as {
    results: Array<{
      timeseries: Array<{
        labels: Array<{ name: string; value: string }>;
        samples: Array<{ value: number; timestamp: unknown }>;
      }>;
    }>;
  };
  return decoded.results.map((r) =>
    (r.timeseries ?? []).map((ts) => {
      const samples: Array<[number, number]> = [];
      const bits: string[] = [];
      for (const s of ts.samples ?? []) {
        samples.push([int64ToNumber(s.timestamp), s.value ?? 0]);
        bits.push(bitsOf(s.value ?? 0));
      }
      return { labels: Object.fromEntries(ts.labels.map((l) => [l.name, l.value])), samples, bits };
    }),
  );
}

// ---- streamed XOR chunks: an independent decoder ----

/** CRC-32C, bit by bit (deliberately not the server's table-driven version). */
function crc32cSlow(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export class BitReader {
  private bit = 0;
  constructor(private readonly bytes: Uint8Array) {}

  read(n: number): bigint {
    let out = 0n;
    for (let i = 0; i < n; i++) {
      const byte = this.bytes[this.bit >>> 3];
      if (byte === undefined) throw new Error('XOR chunk ends early');
      out = (out << 1n) | BigInt((byte >>> (7 - (this.bit & 7))) & 1);
      this.bit++;
    }
    return out;
  }

  uvarint(): bigint {
    let out = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = this.read(8);
      out |= (b & 0x7fn) << shift;
      if (b < 0x80n) return out;
    }
  }
}

/** Decodes one XOR chunk into [t, bits-as-bigint] pairs, following Prometheus' layout. */
export function decodeXorChunk(data: Uint8Array): Array<[number, bigint]> {
  const count = ((data[0] as number) << 8) | (data[1] as number);
  const r = new BitReader(data.subarray(2));
  const out: Array<[number, bigint]> = [];
  let t = 0n;
  let delta = 0n;
  let value = 0n;
  let leading = 0n;
  let trailing = 0n;
  for (let i = 0; i < count; i++) {
    if (i === 0) {
      const z = r.uvarint();
      t = z & 1n ? -((z + 1n) >> 1n) : z >> 1n;
      value = r.read(64);
    } else {
      if (i === 1) {
        delta = r.uvarint();
      } else {
        let prefix = 0;
        while (prefix < 4 && r.read(1) === 1n) prefix++;
        const sizes = [0, 14, 17, 20, 64];
        const size = sizes[prefix] as number;
        let dod = 0n;
        if (size > 0) {
          dod = r.read(size);
          if (size < 64 && dod > 1n << BigInt(size - 1)) dod -= 1n << BigInt(size);
          if (size === 64) dod = BigInt.asIntN(64, dod);
        }
        delta += dod;
      }
      t += delta;
      if (r.read(1) === 1n) {
        if (r.read(1) === 1n) {
          leading = r.read(5);
          let significant = r.read(6);
          if (significant === 0n) significant = 64n;
          trailing = 64n - leading - significant;
        }
        const significant = 64n - leading - trailing;
        value ^= r.read(Number(significant)) << trailing;
      }
    }
    out.push([Number(t), value]);
  }
  return out;
}

/** Splits a streamed response into its frames, checking each CRC, and decodes them. */
export function decodeChunkedBody(body: Uint8Array): Array<{
  queryIndex: number;
  series: Array<{
    labels: Record<string, string>;
    chunks: Array<{ min: number; max: number; type: number; data: Uint8Array }>;
  }>;
}> {
  const frames = [];
  let pos = 0;
  while (pos < body.length) {
    let length = 0;
    let shift = 0;
    for (;;) {
      const b = body[pos++] as number;
      length += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) break;
    }
    const crc = new DataView(body.buffer, body.byteOffset + pos, 4).getUint32(0, false);
    pos += 4;
    const message = body.subarray(pos, pos + length);
    pos += length;
    if (crc32cSlow(message) !== crc) throw new Error('frame checksum mismatch');
    const decoded = prometheusTypes.ChunkedReadResponse.decode(message) as unknown as {
      chunked_series: Array<{
        labels: Array<{ name: string; value: string }>;
        chunks: Array<{ min_time_ms: unknown; max_time_ms: unknown; type: number; data: Uint8Array }>;
      }>;
      query_index: unknown;
    };
    frames.push({
      queryIndex: int64ToNumber(decoded.query_index),
      series: (decoded.chunked_series ?? []).map((s) => ({
        labels: Object.fromEntries(s.labels.map((l) => [l.name, l.value])),
        chunks: (s.chunks ?? []).map((c) => ({
          min: int64ToNumber(c.min_time_ms),
          max: int64ToNumber(c.max_time_ms),
          type: c.type,
          data: c.data,
        })),
      })),
    });
  }
  return frames;
}

export { STREAMED_CONTENT_TYPE };
