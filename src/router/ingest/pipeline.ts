/**
 * The shared ingest path: every protocol's `TableInsert`s come through here. In order:
 * reconcile with the catalog (validate everything, then create tables / add columns), split rows
 * by series to their shards, encode one WriteBatch per shard, and wait until every shard has made
 * its part durable. Nothing of a request is written when validation fails.
 *
 * Protocols whose decoding is the router's largest cost hand the body to a shard instead
 * (`writeDecoded`): the shard parses, plans against its copy of the catalog and splits; the router
 * applies any schema change the request needs and queues the payloads.
 */

import type { TableRows } from '../../shared/codec/write-batch.js';
import { DbError, ErrorCode, type ErrorCodeValue, InvalidArgument } from '../../shared/errors.js';
import type { DecodeBody, DecodeRequest, PartialRejection, WrittenCounts } from '../../shared/ingest/decode.js';
import { type PlannedInsert, planInsert, TYPE_CODES } from '../../shared/ingest/plan.js';
import type { SchemaSnapshotData } from '../../shared/ingest/schema-snapshot.js';
import { addShardParts, encodeShardPayloads } from '../../shared/ingest/split.js';
import type { InsertOptions, TableInsert } from '../../shared/insert.js';
import { isTracing } from '../../shared/tracing/active-tracer.js';
import type { TableSchema } from '../../shared/types.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import type { Catalog } from '../catalog.js';
import { ClientError } from '../errors/catalogue.js';
import { KeyRefRefused, type ShardCluster } from '../shards.js';
import { type ArrivalOrder, ArrivalOrders } from './arrival-order.js';

/** Decode attempts before giving up when the catalog keeps changing under a request. */
const DECODE_ATTEMPTS_MAX = 16;

/**
 * A decoded table's own options (a pipeline's `greptime_*` keys) over the request's (its hint
 * headers): the table's options win key by key, and a request that forbids creating tables
 * forbids it for every table.
 */
function withRequestOptions(own: InsertOptions | undefined, request: InsertOptions): InsertOptions {
  if (own === undefined) return request;
  return {
    ...own,
    autoCreateTable: own.autoCreateTable && request.autoCreateTable,
    autoCreateHintDisabled: own.autoCreateHintDisabled ?? request.autoCreateHintDisabled,
    createOptions: { ...(request.createOptions ?? {}), ...(own.createOptions ?? {}) },
  };
}

/** What a decoded write stored: rows in all, per table (in the decoder's insert order), and per kind. */
interface DecodedWrite {
  rows: number;
  tableRows: number[];
  partial?: PartialRejection | undefined;
  written?: WrittenCounts | undefined;
}

/** What takes turns among the decoding shards (ShardCluster.nextDecoder): protocol, database, table. */
function streamOf(request: DecodeBody): string {
  return `${request.protocol}\u0000${request.db}\u0000${'table' in request ? request.table : ''}`;
}

export class IngestPipeline {
  private readonly arrivals = new ArrivalOrders();

  constructor(
    private readonly catalog: Catalog,
    private readonly cluster: ShardCluster,
  ) {}

  /** How many shards rows are partitioned over (parsers that place series themselves need it). */
  get shardCount(): number {
    return this.cluster.count;
  }

  /**
   * Writes the inserts durably. Returns the number of rows written. Throws before writing
   * anything when any insert conflicts with the catalog.
   */
  async write(inserts: TableInsert[], options: InsertOptions): Promise<number> {
    const plans = inserts.filter((i) => i.rowCount > 0).map((i) => planInsert(this.catalog, i, options));
    for (const p of plans) await this.applySchemaChanges(p, options);
    await this.catalog.durable();

    const perShard: TableRows[][] = Array.from({ length: this.cluster.count }, () => []);
    let rows = 0;
    for (const p of plans) {
      // Splitting is the largest synchronous step after parsing; give the loop a turn first.
      await yieldToEventLoop();
      addShardParts(perShard, p.insert, this.catalog.getTable(p.insert.db, p.insert.table) as TableSchema);
      rows += p.insert.rowCount;
    }
    await yieldToEventLoop();
    // Keys go in full from here (no ids by reference), so no shard can refuse one.
    const refused = await this.writePayloads(encodeShardPayloads(perShard));
    if (refused.size > 0) throw new DbError(ErrorCode.Internal, 'a shard refused a write that names no key by id');
    return rows;
  }

  /**
   * Writes a body that a shard decodes (see src/shared/ingest/decode.ts); returns the rows
   * written. The shard plans against its copy of the catalog: when the copy is behind, the
   * request goes again with the current catalog; when the request needs new tables or columns,
   * the router makes them and the request goes again. Rows are queued only if the catalog is
   * still at the generation they were planned against.
   */
  async writeDecoded(request: DecodeBody): Promise<number> {
    return (await this.writeDecodedTables(request)).rows;
  }

  /**
   * `writeDecoded`, also giving the rows written per table (in the decoder's insert order).
   * `onTables` is called once decoding has succeeded, before any table is made or written (the
   * routes answer errors after it in the table-write stage's shape).
   */
  async writeDecodedTables(request: DecodeBody, onTables?: () => void): Promise<DecodedWrite> {
    const stream = streamOf(request);
    const { order, ticket } = this.arrivals.take(stream);
    try {
      return await this.decodeAndWrite(request, stream, order, ticket, onTables);
    } finally {
      this.arrivals.release(stream, order, ticket);
    }
  }

  private async decodeAndWrite(
    request: DecodeBody,
    stream: string,
    order: ArrivalOrder,
    ticket: number,
    onTables?: () => void,
  ): Promise<DecodedWrite> {
    // Shards still to write (null: all), and whether a shard refused a key named by id.
    let pending: Set<number> | null = null;
    let lastDecoder = -1;
    for (let attempt = 0; attempt < DECODE_ATTEMPTS_MAX; attempt++) {
      const generation = this.catalog.generation;
      // A body sent again for refused keys goes to the same decoder: an append-mode table's rows
      // go to the shard that decodes them (partition.ts), and decoded elsewhere, rows that the
      // first attempt wrote would be placed on a shard that is written again.
      const shardId: number = pending !== null && lastDecoder >= 0 ? lastDecoder : this.cluster.nextDecoder(stream);
      lastDecoder = shardId;
      const reply = await this.cluster.decode(shardId, {
        op: 'decode',
        request: {
          ...request,
          schemaGeneration: generation,
          shardCount: this.cluster.count,
          keysInFull: pending !== null,
          // While tracing, every write goes through the router and keeps its task span.
          writeOwn: !isTracing(),
        } as DecodeRequest,
        schema: this.schemaFor(shardId, generation),
      });
      if (reply.kind === 'stale') {
        this.sentGeneration.set(shardId, -1);
        continue;
      }
      if (reply.kind === 'schema') {
        onTables?.();
        // As in write(): every insert is checked before any table or column is made.
        const optionsOf = (i: number): InsertOptions => withRequestOptions(reply.options?.[i], request.options);
        const plans = reply.inserts.map((insert, i) => planInsert(this.catalog, insert, optionsOf(i)));
        for (let i = 0; i < plans.length; i++) await this.applySchemaChanges(plans[i] as PlannedInsert, optionsOf(i));
        continue;
      }
      // A decoder refuses a body only for decompressing past the body limit.
      if (reply.kind === 'refused') throw new ClientError('BodyTooLarge', reply.message);
      // Only OTLP decodes to "malformed": nothing of the request can be stored.
      if (reply.kind === 'malformed') throw new ClientError('OtlpBadRequest', reply.message);
      onTables?.();
      if (reply.kind === 'rejected') throw new DbError(reply.code as ErrorCodeValue, reply.message);
      const done = { rows: reply.rows, tableRows: reply.tableRows, partial: reply.partial, written: reply.written };
      if (reply.own === 'refused') {
        // Nothing written: the decoder sends its keys in full next time (key-refs.ts).
        pending = new Set([shardId]);
        continue;
      }
      // Written by the decoder, at the generation on disk when it wrote: nothing left to queue.
      if (reply.own === 'durable') return done;
      // The earlier requests' parts go first (arrival-order.ts); the catalog is checked after the wait.
      await order.turn(ticket);
      await this.catalog.durable();
      if (reply.generation !== this.catalog.generation) continue;
      const only = pending;
      const payloads = only === null ? reply.payloads : reply.payloads.map((p, s) => (only.has(s) ? p : null));
      // Queued as the call starts (no await before): the next request's parts may follow at once.
      const written = this.writePayloads(payloads);
      this.arrivals.release(stream, order, ticket);
      const refused = await written;
      if (refused.size === 0) return done;
      // Those shards wrote nothing of it (see src/shard/key-refs.ts); the others are done.
      pending = refused;
    }
    throw new DbError(ErrorCode.RateLimited, 'The catalog kept changing while this write was planned; retry later');
  }

  /** Generation of the catalog each shard was last sent (-1: unknown, send it). */
  private readonly sentGeneration = new Map<number, number>();
  private snapshot: SchemaSnapshotData | null = null;

  /** The catalog for shard `shardId`'s decode task, unless it already has this generation. */
  private schemaFor(shardId: number, generation: number): SchemaSnapshotData | undefined {
    if (this.sentGeneration.get(shardId) === generation) return undefined;
    if (this.snapshot?.generation !== generation) this.snapshot = this.catalog.snapshot();
    this.sentGeneration.set(shardId, generation);
    return this.snapshot;
  }

  /**
   * Queues one payload per shard (null: none) and waits until all are durable. Returns the
   * shards that refused their payload for naming a series key by an id they no longer know
   * (only payloads from a shard decoder do); any other failure is thrown, once every write is
   * settled.
   */
  private async writePayloads(payloads: Array<Uint8Array | null>): Promise<Set<number>> {
    // No await from here until every part is queued: the room checked is the room used.
    this.cluster.checkQueueRoom(payloads.map((p) => p?.byteLength ?? 0));
    const writes: Array<Promise<void>> = [];
    const shards: number[] = [];
    for (let s = 0; s < payloads.length; s++) {
      const payload = payloads[s];
      if (!payload) continue;
      writes.push(this.cluster.write(s, payload));
      shards.push(s);
    }
    const results = await Promise.allSettled(writes);
    const refused = new Set<number>();
    let failure: unknown = null;
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') return;
      if (r.reason instanceof KeyRefRefused) refused.add(shards[i] as number);
      else failure ??= r.reason;
    });
    if (failure !== null) throw failure;
    return refused;
  }

  private async applySchemaChanges(p: PlannedInsert, options: InsertOptions): Promise<void> {
    const { db, table } = p.insert;
    if (p.create) {
      // Another request may have created it since plan(); re-validate against what is there now.
      if (this.catalog.getTable(db, table)) {
        const again = planInsert(this.catalog, p.insert, options);
        if (again.add.length > 0) await this.catalog.addColumns(db, table, again.add);
        return;
      }
      const createOptions: Record<string, string> = { ...(options.createOptions ?? {}) };
      if (options.createMergeMode === 'append') createOptions.append_mode = 'true';
      else createOptions.merge_mode = options.createMergeMode;
      await this.catalog.createTable(
        {
          db,
          name: table,
          columns: p.create.columns,
          timeIndex: p.create.timeIndex,
          primaryKey: p.create.primaryKey,
          options: createOptions,
        },
        true,
      );
      return;
    }
    if (p.add.length > 0) {
      const current = this.catalog.getTable(db, table) as TableSchema;
      const missing = p.add.filter((c) => !current.columns.some((e) => e.name === c.name));
      for (const c of p.add) {
        const e = current.columns.find((x) => x.name === c.name);
        if (e && e.type !== c.type) {
          throw new InvalidArgument(`column ${c.name} expect type ${e.type}, given: ${TYPE_CODES[c.type] ?? c.type}`);
        }
      }
      if (missing.length > 0) await this.catalog.addColumns(db, table, missing);
    }
  }
}
