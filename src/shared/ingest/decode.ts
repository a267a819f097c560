/**
 * Ingest bodies decoded away from the router: the protocol's parser, the plan against a schema
 * snapshot and the split into per-shard payloads, in one call on whichever thread runs it (a
 * shard worker). The answer is either the payloads, ready for the router to queue, or what the
 * router must do first: send a newer schema, or create the tables and columns the request needs.
 */
import type { TableRows } from '../codec/write-batch.js';
import { DbError } from '../errors.js';
import type { InsertOptions, TableInsert } from '../insert.js';
import { LineCaches, type Precision, parseLineProtocolSliced } from './lineproto/parser.js';
import { pointParts } from './lineproto/point-parts.js';
import { toTableInserts } from './lineproto/to-inserts.js';
import { decodePushJson } from './loki/push-json.js';
import { decodePushProtobuf, LokiBodyTooLarge } from './loki/push-protobuf.js';
import { lokiInsert } from './loki/to-inserts.js';
import { decodePut } from './opentsdb/decode-put.js';
import { decodeOtlpMetrics, type OtlpEncoding } from './otlp/decode-metrics.js';
import { OtlpMalformed } from './otlp/malformed.js';
import type { OtlpMetricsOptions } from './otlp/metrics-options.js';
import { decodePipelineBody, type PipelineBody } from './pipeline-decode.js';
import { needsNoChange, planInsert } from './plan.js';
import { decodeRemoteWrite, type WrittenCounts } from './prom-remote/decode-write.js';

export type { WrittenCounts } from './prom-remote/decode-write.js';

import { sampleParts } from './sample-parts.js';
import type { SchemaSnapshot } from './schema-snapshot.js';
import { type SeriesRuns, seriesInserts } from './series-inserts.js';
import { encodeShardPayloads, shardPartsOf } from './split.js';

/** One body to decode, and what its protocol needs to know. */
export type DecodeRequest = {
  body: Uint8Array;
  db: string;
  options: InsertOptions;
  /** The catalog generation the router expects the decoder's schema to be at. */
  schemaGeneration: number;
  shardCount: number;
  /**
   * Every storage key in full, none by reference: a shard refused a reference (it no longer
   * knew the key), and this is the request again (src/shard/key-refs.ts).
   */
  keysInFull?: boolean;
  /**
   * When the decoding shard owns every row of the body, it writes them itself (decode-task.ts)
   * and answers no payload. False while tracing (each write keeps its task span).
   */
  writeOwn?: boolean;
} & (
  | { protocol: 'lineproto'; precision: Precision; lineMaxBytes: number; nowNs: bigint }
  /**
   * `bodyLimitBytes`: `http.body_limit` (0 = none), also the bound on the decompressed body.
   * `version` 2: the body is a remote write 2.0 `io.prometheus.write.v2.Request`.
   */
  | { protocol: 'prom-remote'; bodyLimitBytes: number; version?: 1 | 2 | undefined }
  /** The all-or-nothing put (no `summary` or `details`). */
  | { protocol: 'opentsdb' }
  /** An OTLP/HTTP metrics export (otlp/decode-metrics.ts); the HTTP layer has undone its encoding. */
  | { protocol: 'otlp-metrics'; encoding: OtlpEncoding; metricsOptions: OtlpMetricsOptions }
  /**
   * A Loki push into `table`, its content type already checked by the router; `maxBytes` bounds
   * the decompressed protobuf (the body limit).
   */
  | { protocol: 'loki'; table: string; content: 'protobuf' | 'json'; maxBytes: number }
  /** An `/v1/ingest` body and its pipeline (pipeline-decode.ts). */
  | ({ protocol: 'pipeline' } & Omit<PipelineBody, 'body' | 'db'>)
);

/** A request as the route gives it: the pipeline adds the generation and shard count. */
export type DecodeBody = OmitEach<DecodeRequest, 'schemaGeneration' | 'shardCount' | 'keysInFull' | 'writeOwn'>;

/** `Omit` applied to each member of a union (plain `Omit` merges the members into one). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type DecodeReply =
  /**
   * Ready to write: one payload per shard (null for none), planned at `generation`; `rows` is
   * what the protocol counts as written.
   */
  | {
      kind: 'payloads';
      payloads: Array<Uint8Array | null>;
      rows: number;
      generation: number;
      /** Rows per table written, in insert order (pipelines answer per table). */
      tableRows: number[];
      /** Rows refused one by one while the rest is written (OTLP's `partial_success`). */
      partial?: PartialRejection | undefined;
      /** Remote write: what of the request is written, by kind (2.0's response headers). */
      written?: WrittenCounts | undefined;
      /**
       * The decoding shard wrote its payload itself (`payloads` is then all null): `durable`, or
       * `refused` for naming a key id the shard no longer knows (nothing written: send it again).
       */
      own?: 'durable' | 'refused' | undefined;
    }
  /** Nothing of the body can be stored: the protocol's own "bad request" (OTLP's 400 status). */
  | { kind: 'malformed'; message: string }
  /** Refused with an HTTP status of the protocol's own (not a GreptimeDB error). */
  | { kind: 'refused'; status: number; message: string }
  /** The catalog refuses the decoded rows (code and message of the DbError). */
  | { kind: 'rejected'; code: number; message: string }
  /** The decoder's schema is not at the request's generation: send it. */
  | { kind: 'stale' }
  /**
   * Tables or columns must be created first; `inserts` carry the columns, not the rows, and
   * `options` (when present) each insert's own create options instead of the request's.
   */
  | { kind: 'schema'; inserts: TableInsert[]; options?: InsertOptions[] | undefined };

/** Rows a protocol refuses individually, and why (distinct reasons with their counts). */
export interface PartialRejection {
  rejected: number;
  message: string;
}

/** What this thread's line-protocol parser remembers between requests (series, names). */
const lineCaches = new LineCaches();

/** Series held by this thread's line-protocol series cache. */
export function lineSeriesCached(): number {
  return lineCaches.seriesCount;
}

/** Decodes `request.body` against `schema` (null: none received yet). */
export async function decodeIngest(request: DecodeRequest, schema: SchemaSnapshot | null): Promise<DecodeReply> {
  if (schema === null || schema.generation !== request.schemaGeneration) return { kind: 'stale' };
  let decoded: Decoded;
  try {
    decoded = await decodeBody(request, schema);
  } catch (err) {
    if (err instanceof OtlpMalformed) return { kind: 'malformed', message: err.message };
    if (err instanceof LokiBodyTooLarge) return { kind: 'refused', status: 413, message: err.message };
    throw err;
  }
  if ('refused' in decoded) return { kind: 'refused', ...decoded.refused };
  if ('parts' in decoded) {
    return {
      kind: 'payloads',
      payloads: encodeShardPayloads(decoded.parts.perShard),
      rows: decoded.rows,
      generation: schema.generation,
      tableRows: decoded.parts.tableRows,
      written: decoded.written,
    };
  }
  const kept = decoded.inserts.map((insert, i) => ({ insert, options: decoded.options?.[i] ?? request.options }));
  const nonEmpty = kept.filter((k) => k.insert.rowCount > 0);
  const inserts = nonEmpty.map((k) => k.insert);
  let plans: ReturnType<typeof planInsert>[];
  try {
    plans = nonEmpty.map((k) => planInsert(schema, k.insert, k.options));
  } catch (err) {
    // The catalog refuses the rows (type conflict, missing table or database): an error of the
    // write, not of decoding, and routes tell the two apart.
    if (err instanceof DbError) return { kind: 'rejected', code: err.code, message: err.message };
    throw err;
  }
  if (!plans.every(needsNoChange)) {
    return {
      kind: 'schema',
      inserts: inserts.map(columnsOnly),
      options: decoded.options ? nonEmpty.map((k) => k.options) : undefined,
    };
  }
  return {
    kind: 'payloads',
    payloads: encodeShardPayloads(shardPartsOf(inserts, schema, request.shardCount, request.keysInFull !== true)),
    rows: decoded.rows,
    generation: schema.generation,
    tableRows: decoded.inserts.map((i) => i.rowCount),
    partial: decoded.partial,
    written: decoded.written,
  };
}

/** Rows as inserts; `options`: each insert's own, instead of the request's. */
type Inserts = {
  inserts: TableInsert[];
  rows: number;
  options?: InsertOptions[] | undefined;
  partial?: PartialRejection | undefined;
  written?: WrittenCounts | undefined;
};

/** Rows already split into per-shard parts by a direct path (sample-parts.ts, lineproto/point-parts.ts). */
type Parts = {
  parts: { perShard: TableRows[][]; tableRows: number[] };
  rows: number;
  written?: WrittenCounts | undefined;
};

type Decoded = Inserts | Parts | { refused: { status: number; message: string } };

async function decodeBody(request: DecodeRequest, schema: SchemaSnapshot): Promise<Decoded> {
  const byRef = request.keysInFull !== true;
  switch (request.protocol) {
    case 'lineproto': {
      const buf = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
      const batch = await parseLineProtocolSliced(buf, request.precision, lineCaches, request.lineMaxBytes);
      const { db, precision, nowNs, shardCount } = request;
      const parts = pointParts(batch, db, precision, nowNs, schema, shardCount, byRef);
      if (parts !== null) return { parts, rows: batch.points.length };
      const inserts = toTableInserts(batch, db, precision, nowNs, shardCount);
      return { inserts, rows: inserts.reduce((n, i) => n + i.rowCount, 0) };
    }
    case 'prom-remote': {
      const { body, db, bodyLimitBytes, shardCount, version } = request;
      const decoded = decodeRemoteWrite(body, db, bodyLimitBytes, schema, shardCount, version ?? 1);
      return 'refused' in decoded ? decoded : samplesOrInserts(decoded, schema, request.shardCount, byRef);
    }
    case 'opentsdb':
      return samplesOrInserts(
        decodePut(request.body, request.db, schema, request.shardCount),
        schema,
        request.shardCount,
        byRef,
      );
    case 'otlp-metrics': {
      const { body, encoding, db, metricsOptions } = request;
      const d = decodeOtlpMetrics(body, encoding, db, metricsOptions, (dbName, t) => schema.getTable(dbName, t));
      const partial = d.rejected > 0 ? { rejected: d.rejected, message: d.message } : undefined;
      return { inserts: d.inserts, rows: d.rows, partial };
    }
    case 'loki': {
      const body = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
      const streams =
        request.content === 'protobuf' ? decodePushProtobuf(body, request.maxBytes) : decodePushJson(body);
      const insert = lokiInsert(streams, request.db, request.table);
      return { inserts: [insert], rows: insert.rowCount };
    }
    case 'pipeline':
      return decodePipelineBody(request);
  }
}

/** Samples of resolved series (`extra`: inserts beside them) as parts when all are bound, else as inserts. */
function samplesOrInserts(
  decoded: { runs: SeriesRuns; extra: TableInsert[]; rows: number; written?: WrittenCounts | undefined },
  schema: SchemaSnapshot,
  shardCount: number,
  byRef: boolean,
): Parts | Inserts {
  const { rows, written } = decoded;
  const parts = decoded.extra.length === 0 ? sampleParts(decoded.runs, schema, shardCount, byRef) : null;
  if (parts !== null) return { parts, rows, written };
  const inserts = seriesInserts(decoded.runs, (db, table) => schema.getTable(db, table)).map((t) => t.insert);
  return { inserts: [...inserts, ...decoded.extra], rows, written };
}

/** The insert without its rows: what planning and schema changes read. */
function columnsOnly(insert: TableInsert): TableInsert {
  return {
    db: insert.db,
    table: insert.table,
    rowCount: insert.rowCount,
    columns: insert.columns.map((c) => ({ ...c, vector: { kind: c.vector.kind, values: [] } as typeof c.vector })),
  };
}
