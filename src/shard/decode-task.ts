/**
 * The shard's side of ingest decoding (src/shared/ingest/decode.ts): the schema snapshot it
 * plans against, replaced whenever the router sends a newer one.
 *
 * Payloads go back copied, not transferred. An ArrayBuffer moved between threads more than once
 * was seen to fail deserialisation in the receiving worker ("Unable to deserialize cloned data"),
 * which Piscina reports nowhere: the task is lost and its request never answered. A copy made
 * while cloning is a fresh buffer of the router's, moved once, to the shard that writes it.
 */
import { decodeIngest, lineSeriesCached } from '../shared/ingest/decode.js';
import { putSeriesCached } from '../shared/ingest/opentsdb/decode-put.js';
import { remoteWriteSeriesCached } from '../shared/ingest/prom-remote/decode-write.js';
import { SchemaSnapshot } from '../shared/ingest/schema-snapshot.js';
import type { ShardReply, ShardTask } from '../shared/messages.js';

let schema: SchemaSnapshot | null = null;

export async function runDecodeTask(task: Extract<ShardTask, { op: 'decode' }>): Promise<ShardReply> {
  // Generations only grow; an older snapshot arriving late must not replace a newer one.
  if (task.schema && (schema === null || task.schema.generation > schema.generation)) {
    schema = new SchemaSnapshot(task.schema);
  }
  return { ok: true, value: await decodeIngest(task.request, schema) };
}

/** Entries of this thread's decoder series caches, by protocol (for /metrics). */
export function decoderSeriesCached(): Record<string, number> {
  return { lineproto: lineSeriesCached(), 'metricsapi-write': remoteWriteSeriesCached(), opentsdb: putSeriesCached() };
}
