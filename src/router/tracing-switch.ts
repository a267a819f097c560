/**
 * The run-time tracing switch behind `POST /debug/enable_trace` and `[tracing] enabled`: starts
 * or stops the router's tracer provider and every shard's, all exporting to `[tracing] endpoint`.
 * Switches are serialized, so two concurrent requests cannot leave the router and the shards in
 * different states.
 */
import type { Logger } from 'pino';
import type { TracingConfig } from '../shared/config.js';
import type { TracingHandle } from '../shared/tracing/tracer-provider.js';
import type { ShardCluster } from './shards.js';

/** Why tracing cannot be switched on; answered as 503 with this message. */
export class TracingUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TracingUnavailable';
  }
}

/** Path of our own OTLP traces endpoint, where `endpoint = "self"` exports. */
const SELF_TRACES_PATH = '/v1/otlp/v1/traces';

export class TracingSwitch {
  private running: TracingHandle | null = null;
  private mainAddr: string | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: TracingConfig,
    private readonly cluster: ShardCluster,
    private readonly log: Logger,
  ) {}

  get enabled(): boolean {
    return this.running !== null;
  }

  /** Where the main listener ended up (`host:port`); needed before `endpoint = "self"` can resolve. */
  setMainAddress(host: string, port: number): void {
    const bare = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
    this.mainAddr = `${bare}:${port}`;
  }

  /** Switches tracing on or off; switching to the current state does nothing. */
  set(on: boolean): Promise<void> {
    const next = this.chain.then(() => (on ? this.start() : this.stop()));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private endpoint(): string {
    const { endpoint } = this.config;
    if (endpoint === '') {
      throw new TracingUnavailable('tracing is not configured: set [tracing] endpoint to an OTLP/HTTP traces URL');
    }
    if (endpoint !== 'self') return endpoint;
    if (this.mainAddr === null) throw new TracingUnavailable('tracing endpoint "self" is not listening yet');
    return `http://${this.mainAddr}${SELF_TRACES_PATH}`;
  }

  private async start(): Promise<void> {
    if (this.running !== null) return;
    const endpoint = this.endpoint();
    const { startTracing } = await import('../shared/tracing/tracer-provider.js').catch((err: unknown) => {
      throw new TracingUnavailable(`cannot load the OpenTelemetry SDK: ${(err as Error).message}`);
    });
    const sampleRatio = this.config.sampleRatio;
    let handle: TracingHandle;
    try {
      handle = await startTracing({ endpoint, serviceName: 'shoaldb', sampleRatio });
    } catch (err) {
      throw new TracingUnavailable(`cannot start tracing: ${(err as Error).message}`);
    }
    try {
      await this.cluster.setTracing(endpoint, sampleRatio);
    } catch (err) {
      await handle.stop().catch(() => undefined);
      await this.cluster.setTracing(null, sampleRatio).catch(() => undefined);
      throw new TracingUnavailable(`cannot start tracing in the shards: ${(err as Error).message}`);
    }
    this.running = handle;
    this.log.info({ endpoint, sampleRatio }, 'tracing enabled');
  }

  private async stop(): Promise<void> {
    const handle = this.running;
    if (handle === null) return;
    this.running = null;
    // Router first: once its tracer is gone no new request span starts, so no new shard span
    // either; then each side exports what it still holds before the switch answers.
    const stopping = handle.stop();
    try {
      await this.cluster.setTracing(null, this.config.sampleRatio);
    } finally {
      await stopping;
    }
    this.log.info('tracing disabled');
  }
}
