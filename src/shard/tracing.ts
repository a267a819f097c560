/**
 * Tracing inside a shard worker: its own tracer provider (switched by the router's `tracing`
 * task), and the span each traced task runs under, a child of the router span named by the
 * task's `traceparent`. WAL, flush and compaction spans are started where that work happens.
 */
import { type Span, SpanKind } from '@opentelemetry/api';
import type { ShardTraceContext } from '../shared/messages.js';
import { contextOfTraceparent, startSpan } from '../shared/tracing/active-tracer.js';
import type { TracingHandle } from '../shared/tracing/tracer-provider.js';

let running: TracingHandle | null = null;
let shardIdOfSpans = -1;

/**
 * Starts this thread's provider (endpoint set) or stops it (null), exporting what is queued
 * before the reply, so a router that waits for every shard knows their spans have left.
 */
export async function switchShardTracing(endpoint: string | null, sampleRatio: number, shardId: number): Promise<void> {
  if (running !== null) {
    const old = running;
    running = null;
    await old.stop();
  }
  if (endpoint === null) return;
  shardIdOfSpans = shardId;
  const { startTracing } = await import('../shared/tracing/tracer-provider.js');
  running = await startTracing({
    endpoint,
    serviceName: 'shoaldb-shard',
    sampleRatio,
    resource: { 'shoaldb.shard.id': shardId },
  });
}

/** The span a task runs under, or null when the task carries no trace or this thread is not tracing. */
export function taskSpan(op: string, traceContext: ShardTraceContext | undefined): Span | null {
  if (traceContext === undefined || running === null) return null;
  const parent = contextOfTraceparent(traceContext.traceparent);
  if (parent === null) return null;
  return startSpan(`shard.${op}`, { 'shoaldb.shard.id': shardIdOfSpans }, { parent, kind: SpanKind.SERVER });
}
