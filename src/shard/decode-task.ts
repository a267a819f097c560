/**
 * The shard's side of ingest decoding (src/shared/ingest/decode.ts): the schema snapshot it
 * plans against, replaced whenever the router sends a newer one, and the write of a body whose
 * rows are all this shard's own.
 *
 * Payloads go back copied, not transferred. An ArrayBuffer moved between threads more than once
 * was seen to fail deserialisation in the receiving worker ("Unable to deserialize cloned data"),
 * which Piscina reports nowhere: the task is lost and its request never answered. A copy made
 * while cloning is a fresh buffer of the router's, moved once, to the shard that writes it.
 */
import { CatalogGeneration } from '../shared/catalog-generation.js';
import { type DecodeReply, decodeIngest, lineSeriesCached } from '../shared/ingest/decode.js';
import { putSeriesCached } from '../shared/ingest/opentsdb/decode-put.js';
import { remoteWriteSeriesCached } from '../shared/ingest/prom-remote/decode-write.js';
import { SchemaSnapshot } from '../shared/ingest/schema-snapshot.js';
import type { ShardReply, ShardTask } from '../shared/messages.js';
import { setSpreadHome } from '../shared/partition.js';

let schema: SchemaSnapshot | null = null;

/** What this shard needs to write bodies it owns: set once its store is open. */
interface OwnWrites {
  shardId: number;
  generation: CatalogGeneration;
  /** The store's group commit; resolves to the indices of payloads refused (key-refs.ts). */
  write(payloads: Uint8Array[]): Promise<number[]>;
}

let own: OwnWrites | null = null;

/** Called once the shard's store is open. */
export function setOwnWrites(shardId: number, generation: SharedArrayBuffer, write: OwnWrites['write']): void {
  own = { shardId, generation: new CatalogGeneration(generation), write };
  setSpreadHome(shardId);
}

export async function runDecodeTask(task: Extract<ShardTask, { op: 'decode' }>): Promise<ShardReply> {
  // Generations only grow; an older snapshot arriving late must not replace a newer one.
  if (task.schema && (schema === null || task.schema.generation > schema.generation)) {
    schema = new SchemaSnapshot(task.schema);
  }
  const reply = await decodeIngest(task.request, schema);
  if (task.request.writeOwn === true) await writeOwn(reply);
  return { ok: true, value: reply };
}

/**
 * Writes the body here when every row of it is this shard's, instead of sending the payload to
 * the router to be queued and sent back: log tables (append mode) keep a request's rows in the
 * shard that decodes it (partition.ts), so a log write crosses threads once each way. Only while
 * the router's catalog on disk is still at the generation the body was planned at; otherwise the
 * payload goes back and the router sends the body round again, as for any payload.
 */
async function writeOwn(reply: DecodeReply): Promise<void> {
  if (own === null || reply.kind !== 'payloads') return;
  const { shardId } = own;
  const payload = reply.payloads[shardId];
  if (!payload || !reply.payloads.every((p, s) => s === shardId || p === null)) return;
  if (own.generation.current() !== reply.generation) return;
  // Applied as decoded from the payload, not from the rows it was encoded from: decoding shares a
  // column's repeated strings and makes them flat, where the pipeline's values are slices of the
  // body that would keep every body alive until the flush (applying those measured 17% more CPU a
  // log line).
  const refused = await own.write([payload]);
  reply.payloads[shardId] = null;
  reply.own = refused.length > 0 ? 'refused' : 'durable';
}

/** Entries of this thread's decoder series caches, by protocol (for /metrics). */
export function decoderSeriesCached(): Record<string, number> {
  return { lineproto: lineSeriesCached(), 'metricsapi-write': remoteWriteSeriesCached(), opentsdb: putSeriesCached() };
}
