/**
 * Ingest bodies decoded away from the router: the protocol's parser, the plan against a schema
 * snapshot and the split into per-shard payloads, in one call on whichever thread runs it (a
 * shard worker). The answer is either the payloads, ready for the router to queue, or what the
 * router must do first: send a newer schema, or create the tables and columns the request needs.
 */
import type { InsertOptions, TableInsert } from '../insert.js';
import { type Precision, parseLineProtocolSliced } from './lineproto/parser.js';
import { toTableInserts } from './lineproto/to-inserts.js';
import { needsNoChange, planInsert } from './plan.js';
import type { SchemaSnapshot } from './schema-snapshot.js';
import { encodeShardPayloads, shardPartsOf } from './split.js';

/** One body to decode. */
export type DecodeRequest = {
  body: Uint8Array;
  db: string;
  options: InsertOptions;
  /** The catalog generation the router expects the decoder's schema to be at. */
  schemaGeneration: number;
  shardCount: number;
} & { protocol: 'lineproto'; precision: Precision; lineMaxBytes: number; nowNs: bigint };

export type DecodeReply =
  /** Ready to write: one payload per shard (null for none), planned at `generation`. */
  | { kind: 'payloads'; payloads: Array<Uint8Array | null>; rows: number; generation: number }
  /** The decoder's schema is not at the request's generation: send it. */
  | { kind: 'stale' }
  /** Tables or columns must be created first; `inserts` carry the columns, not the rows. */
  | { kind: 'schema'; inserts: TableInsert[] };

/** Decodes `request.body` against `schema` (null: none received yet). */
export async function decodeIngest(request: DecodeRequest, schema: SchemaSnapshot | null): Promise<DecodeReply> {
  if (schema === null || schema.generation !== request.schemaGeneration) return { kind: 'stale' };
  const inserts = (await decodeBody(request)).filter((i) => i.rowCount > 0);
  const plans = inserts.map((insert) => planInsert(schema, insert, request.options));
  if (!plans.every(needsNoChange)) return { kind: 'schema', inserts: inserts.map(columnsOnly) };
  const { perShard, rows } = shardPartsOf(inserts, schema, request.shardCount);
  return { kind: 'payloads', payloads: encodeShardPayloads(perShard), rows, generation: schema.generation };
}

async function decodeBody(request: DecodeRequest): Promise<TableInsert[]> {
  const buf = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
  const batch = await parseLineProtocolSliced(buf, request.precision, request.lineMaxBytes);
  return toTableInserts(batch, request.db, request.precision, request.nowNs, request.shardCount);
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
