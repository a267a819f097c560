/**
 * In-process fuzzing of the remaining readers (issue 16): OTLP metrics, traces and logs
 * (protobuf and JSON, decoded and converted to rows), Loki push (protobuf and JSON), the event
 * collector's events and raw bodies, the `/v1/logs` query, content decompression with its output
 * bound, and the shard's own files — WAL records and payloads, segments, the manifest. Each input
 * is answered or refused with the documented error, never another exception; the file readers
 * never take a corrupt file for a good one without their checks (a refused file names itself).
 *
 * FUZZ_RUNS sets the cases per target (default 300); FUZZ_SEED replays a failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { ClientError } from '../../src/router/errors/catalogue.js';
import { decompress } from '../../src/router/http/decompress.js';
import { eventRows } from '../../src/router/ingest/hec/event-rows.js';
import { parseEventStream } from '../../src/router/ingest/hec/event-stream.js';
import { rawRows } from '../../src/router/ingest/hec/raw-rows.js';
import { logsToInserts } from '../../src/router/ingest/otlp/logs-to-inserts.js';
import { decodeExportRequest } from '../../src/router/ingest/otlp/request.js';
import { tracesToInserts } from '../../src/router/ingest/otlp/traces-to-inserts.js';
import { parseLogQueryBody } from '../../src/router/logs/log-query-parse.js';
import { readManifest } from '../../src/shard/manifest.js';
import { FormatError } from '../../src/shard/segment/byte-io.js';
import { SegmentFile } from '../../src/shard/segment/segment-reader.js';
import { readRecords } from '../../src/shard/wal/wal-reader.js';
import { encodeRecords } from '../../src/shard/wal/wal-record.js';
import { decodeWalPayload } from '../../src/shard/write-batch-check.js';
import { DbError } from '../../src/shared/errors.js';
import { decodePushJson } from '../../src/shared/ingest/loki/push-json.js';
import { decodePushProtobuf, LokiBodyTooLarge } from '../../src/shared/ingest/loki/push-protobuf.js';
import { lokiInsert } from '../../src/shared/ingest/loki/to-inserts.js';
import { decodeOtlpMetrics } from '../../src/shared/ingest/otlp/decode-metrics.js';
import { OtlpMalformed } from '../../src/shared/ingest/otlp/malformed.js';
import { metricsOptionsOf } from '../../src/shared/ingest/otlp/metrics-options.js';
import { tempDir } from '../helpers/server.js';
import { openStore, payload as testPayload } from '../shard/helpers.js';
import { mutatedBytes, runTargets, type Target, tokenText } from './fuzz-kit.js';
import { httpSeeds } from './http-seeds.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const CORPUS = path.join(import.meta.dirname, 'corpus');

const isDocumented = (err: unknown): boolean => err instanceof DbError || err instanceof ClientError;
const buf = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
const text = (s: string): Uint8Array => Buffer.from(s);

/** The bodies http-seeds.ts sends to a route (and media type), as fuzz seeds. */
function seedsOf(pathPrefix: string, contentType?: string): Uint8Array[] {
  return httpSeeds()
    .filter(
      (s) => s.path.startsWith(pathPrefix) && (contentType === undefined || s.headers['content-type'] === contentType),
    )
    .map((s) => s.body)
    .filter((b) => b.length > 0);
}

const PB = 'application/x-protobuf';
const JSON_TYPE = 'application/json';
const noTables: Parameters<typeof decodeOtlpMetrics>[4] = () => undefined;

function otlpTarget(signal: 'metrics' | 'traces' | 'logs', encoding: 'protobuf' | 'json'): Target {
  const seeds = seedsOf(`/v1/otlp/v1/${signal}`, encoding === 'protobuf' ? PB : JSON_TYPE);
  return {
    name: `otlp ${signal} ${encoding}`,
    seeds,
    input: mutatedBytes(seeds),
    run: (input) => {
      // Metrics are decoded where a shard would: the route only passes the body on.
      if (signal === 'metrics')
        return decodeOtlpMetrics(input, encoding, 'public', metricsOptionsOf(new Map()), noTables);
      const request = decodeExportRequest(signal, encoding, input);
      if (signal === 'traces') {
        return tracesToInserts(request as Parameters<typeof tracesToInserts>[0], 'public', 't', undefined);
      }
      return logsToInserts(request as Parameters<typeof logsToInserts>[0], 'public', 'l', 1n);
    },
    expected: (err) => isDocumented(err) || err instanceof OtlpMalformed,
  };
}

const lokiPb = seedsOf('/v1/logpush', PB);
const lokiJson = seedsOf('/v1/logpush', JSON_TYPE);
const HEC_EVENTS = ['{"event":"hi","time":1700000000.5,"fields":{"a":"b"}}{"event":{"x":1},"sourcetype":"s"}'].map(
  text,
);
const LOGS_QUERY = [
  JSON.stringify({
    table: { catalog_name: 'greptime', schema_name: 'public', table_name: 'logs' },
    time_filter: { start: '2024-01-01T00:00:00Z', end: '2024-01-02' },
    limit: { skip: 1, fetch: 10 },
    columns: ['message'],
    filters: { And: [{ Single: { expr: { NamedIdent: 'message' }, filters: [{ Contains: 'error' }] } }] },
    context: 'None',
    exprs: [],
  }),
].map(text);

/** A compressed body: its first byte picks the encoding, the rest is what the client sent. */
const ENCODINGS = ['gzip', 'deflate', 'br', 'zstd'] as const;
const LIMIT = 64 * 1024;
const BOMB = Buffer.concat([Buffer.of(0), (await import('node:zlib')).gzipSync(Buffer.alloc(1 << 22))]);

const segmentDir = tempDir('fuzz-seg-');
const segmentSeed = await builtSegment();
const walSeed = encodeRecords([testPayload(3, { 2: 'f64' }, rowsFor(20))]);
const manifestDir = tempDir('fuzz-manifest-');
let scratchFiles = 0;

function rowsFor(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    ts: 1_000n + BigInt(i),
    tags: { 1: `h${i % 3}` },
    fields: { 2: i * 1.5 },
  }));
}

/** A real segment: rows written to a shard store and flushed. */
async function builtSegment(): Promise<Uint8Array> {
  const dir = path.join(segmentDir, 'shard');
  const store = await openStore(dir, { wal: { syncMode: 'none', segmentBytes: 1 << 20 } });
  await store.write([testPayload(3, { 2: 'f64' }, rowsFor(300))]);
  await store.flush();
  await store.close();
  const segDir = path.join(dir, 'seg', '3');
  const name = fs.readdirSync(segDir)[0] as string;
  return fs.readFileSync(path.join(segDir, name));
}

/** Opens the bytes as a segment and reads every part of it. */
function readSegment(input: Uint8Array): void {
  const file = path.join(segmentDir, `s${scratchFiles++}.seg`);
  fs.writeFileSync(file, input);
  try {
    const seg = SegmentFile.open(file, 'x', 0, 3);
    try {
      for (let b = 0; b < seg.blocks.length; b++) {
        const block = seg.readBlock(b);
        for (let c = 0; c < seg.columns.length; c++) block.column(c);
      }
      const fail = (message: string) => {
        throw new FormatError(message);
      };
      seg.seriesStats(fail);
      for (const id of seg.indexes.keys()) seg.postings(id, fail);
      seg.seriesIndex();
    } finally {
      seg.close();
    }
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** WAL bytes framed with good checksums around mutated payloads, so the payload decoder is reached. */
const framedPayloads = mutatedBytes([testPayload(3, { 2: 'f64' }, rowsFor(5))]).map((p) =>
  p.length === 0 ? p : encodeRecords([p]),
);

const TARGETS: Target[] = [
  otlpTarget('metrics', 'protobuf'),
  otlpTarget('metrics', 'json'),
  otlpTarget('traces', 'protobuf'),
  otlpTarget('logs', 'protobuf'),
  {
    name: 'loki protobuf',
    seeds: lokiPb,
    input: mutatedBytes(lokiPb),
    run: (input) => lokiInsert(decodePushProtobuf(buf(input), 1 << 20), 'public', 'loki_logs'),
    expected: (err) => isDocumented(err) || err instanceof LokiBodyTooLarge,
  },
  {
    name: 'loki json',
    seeds: lokiJson,
    input: fc.oneof(
      mutatedBytes(lokiJson),
      tokenText(['{', '}', '[', ']', '"streams"', '"values"', ':', ',', '"1"']).map(text),
    ),
    run: (input) => lokiInsert(decodePushJson(buf(input)), 'public', 'loki_logs'),
    expected: isDocumented,
  },
  {
    name: 'hec events',
    seeds: HEC_EVENTS,
    input: fc.oneof(
      mutatedBytes(HEC_EVENTS),
      tokenText(['{', '}', '"event"', '"time"', '"fields"', ':', ',', '1e308']).map(text),
    ),
    run: (input) => eventRows(parseEventStream(buf(input)), 'hec', 1n),
    expected: isDocumented,
  },
  {
    name: 'hec raw',
    seeds: [text('line one\nline two\n')],
    input: mutatedBytes([text('line one\nline two\n')]),
    run: (input) => rawRows(buf(input), { table: 'hec', timestampNs: 1n, tags: new Map(), lineBreaker: '\n' }),
    expected: isDocumented,
  },
  {
    name: 'logs query',
    seeds: LOGS_QUERY,
    input: mutatedBytes(LOGS_QUERY),
    run: (input) => parseLogQueryBody('application/json', buf(input)),
    expected: isDocumented,
  },
  {
    name: 'decompress (bounded output)',
    seeds: [Buffer.concat([Buffer.of(0), (await import('node:zlib')).gzipSync(Buffer.from('hello'))])],
    input: mutatedBytes([
      BOMB,
      Buffer.concat([Buffer.of(2), (await import('node:zlib')).brotliCompressSync(Buffer.alloc(1 << 20))]),
    ]),
    run: (input) => {
      if (input.length === 0) return null;
      const out = decompress(buf(input.subarray(1)), ENCODINGS[(input[0] as number) % ENCODINGS.length], LIMIT);
      if (out.length > LIMIT) throw new Error(`decompressed ${out.length} bytes past the ${LIMIT} limit`);
      return out;
    },
    expected: isDocumented,
  },
  {
    name: 'wal records',
    seeds: [walSeed],
    input: fc.oneof(mutatedBytes([walSeed]), framedPayloads),
    run: (input) => {
      // Recovery's own rule: the walk never throws, a bad record ends it with a reason.
      const replay = readRecords(input, (p) => {
        try {
          decodeWalPayload(p);
          return null;
        } catch (err) {
          if (isDocumented(err)) return (err as Error).message;
          throw err;
        }
      });
      const end = replay.cut === null ? input.length : replay.cut.offset;
      if (end > input.length || replay.records < 0) throw new Error('a cut past the end of the file');
      return replay;
    },
    expected: () => false,
  },
  {
    name: 'segment file',
    seeds: [segmentSeed],
    input: mutatedBytes([segmentSeed]),
    run: readSegment,
    expected: (err) => isDocumented(err) || err instanceof FormatError,
  },
  {
    name: 'manifest',
    seeds: [text(fs.readFileSync(path.join(segmentDir, 'shard', 'MANIFEST'), 'utf8'))],
    input: mutatedBytes([text(fs.readFileSync(path.join(segmentDir, 'shard', 'MANIFEST'), 'utf8'))]),
    run: (input) => {
      fs.writeFileSync(path.join(manifestDir, 'MANIFEST'), input);
      return readManifest(manifestDir);
    },
    expected: isDocumented,
  },
];

t.teardown(() => {
  fs.rmSync(segmentDir, { recursive: true, force: true });
  fs.rmSync(manifestDir, { recursive: true, force: true });
});
runTargets(TARGETS, { runs: RUNS, seed: SEED, corpus: CORPUS });
