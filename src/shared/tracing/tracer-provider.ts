/**
 * Starts and stops one thread's OpenTelemetry tracer provider: the router has one, and each shard
 * worker has its own (a provider cannot be shared across threads), all exporting to one endpoint.
 *
 * The SDK is loaded with `await import()` on the first switch-on, so a server that never traces
 * never loads it; hot code imports only `@opentelemetry/api` (see active-tracer.ts). This module
 * lives in shared/ because both sides use it, although its exporter opens sockets.
 */
import { context, trace } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { TRACE_EXPORT_BATCH_SPANS, TRACE_QUEUE_SPANS_MAX } from '../config.js';
import { VERSION } from '../version.js';
import { setActiveTracer } from './active-tracer.js';

/**
 * Header on every export request we send. The server does not trace a request carrying it, so
 * exporting to our own `/v1/otlp/v1/traces` does not make spans about storing spans, forever.
 */
export const SELF_EXPORT_HEADER = 'x-shoaldb-self-export';

/** Export cadence: one request per second at most while spans trickle in. */
const EXPORT_DELAY_MS = 1000;
/** An export that takes longer is abandoned (its spans are dropped) so the queue keeps moving. */
const EXPORT_TIMEOUT_MS = 10_000;

export interface TracingOptions {
  /** OTLP/HTTP protobuf traces URL. */
  endpoint: string;
  /** `service.name`: `shoaldb` for the router, `shoaldb-shard` for shard workers. */
  serviceName: string;
  /** Fraction (0-1) of new traces recorded. */
  sampleRatio: number;
  /** More resource attributes, e.g. the shard id. */
  resource?: Record<string, string | number>;
}

/** A running provider; `stop` exports everything still queued, then shuts the provider down. */
export interface TracingHandle {
  stop(): Promise<void>;
}

/**
 * Starts a provider and makes it this thread's active tracer (and its AsyncLocalStorage context
 * manager the active one). Throws when the SDK cannot be loaded or the endpoint is unusable.
 */
export async function startTracing(options: TracingOptions): Promise<TracingHandle> {
  const url = new URL(options.endpoint);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported endpoint ${url.href}`);
  const [
    { NodeTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler },
    exporterModule,
    resources,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
  ]);
  const exporter = new exporterModule.OTLPTraceExporter({
    url: url.href,
    headers: { [SELF_EXPORT_HEADER]: '1' },
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const provider: NodeTracerProvider = new NodeTracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': VERSION,
      ...options.resource,
    }),
    // A child follows its parent's decision, so a sampled request is traced in every shard it reaches.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: TRACE_QUEUE_SPANS_MAX,
        maxExportBatchSize: TRACE_EXPORT_BATCH_SPANS,
        scheduledDelayMillis: EXPORT_DELAY_MS,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  // The context manager is what carries the active span across awaits; no propagator: the router
  // hands `traceparent` to shards itself.
  provider.register({ propagator: null });
  setActiveTracer(provider.getTracer('shoaldb', VERSION));
  return {
    async stop() {
      setActiveTracer(null);
      try {
        await provider.forceFlush();
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
      }
    },
  };
}
