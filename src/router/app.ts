/**
 * Wires the server together: catalog → shard workers → ingest pipeline → routes → listeners.
 * Returns a handle whose `stop` drains in-flight requests before closing the shards.
 */

import type { Logger } from 'pino';
import type { Piscina } from 'piscina';
import { promqlLimitsOf } from '../query/promql/limits.js';
import { executeSql } from '../query/sql/exec/execute.js';
import type { Config } from '../shared/config.js';
import { initZstd } from '../shared/zstd.js';
import { createUserProvider } from './auth/user-provider.js';
import { Catalog } from './catalog.js';
import { QueryGate } from './http/query-gate.js';
import { startHttpServer } from './http/server.js';
import { WriteBytesLimiter } from './http/write-bytes-limiter.js';
import { syncColumnIndexes } from './index-sync.js';
import { IngestPipeline } from './ingest/pipeline.js';
import { ServerMetrics } from './metrics.js';
import { PIPELINES_DB, PIPELINES_TABLE, PipelineStore } from './pipelines/store.js';
import { syncRetention, tableRetentionsOf } from './retention-sync.js';
import { adminRoutes } from './routes/admin.js';
import { dashboardRoutes, loadDashboardAssets } from './routes/dashboard.js';
import { debugRoutes } from './routes/debug.js';
import { debugProfRoutes } from './routes/debug-prof.js';
import { hecRoutes } from './routes/hec.js';
import { lineprotoRoutes } from './routes/lineproto.js';
import { logIngestRoutes } from './routes/log-ingest.js';
import { logsQueryRoutes } from './routes/logs-query.js';
import { lokiRoutes } from './routes/loki.js';
import { opentsdbRoutes } from './routes/opentsdb.js';
import { otlpLogRoutes } from './routes/otlp-logs.js';
import { otlpMetricsRoutes } from './routes/otlp-metrics.js';
import { otlpTraceRoutes } from './routes/otlp-traces.js';
import { pipelineRoutes } from './routes/pipelines.js';
import { pqlRoutes } from './routes/pql.js';
import { promApiRoutes } from './routes/prom-api.js';
import { promRemoteRoutes } from './routes/prom-remote.js';
import { sqlRoutes } from './routes/sql.js';
import { sqlToolRoutes } from './routes/sql-tools.js';
import { ShardCluster } from './shards.js';
import { skipWalTablesOf, syncSkipWal } from './skip-wal-sync.js';
import { createSqlEnv } from './sql-env.js';
import { TracingSwitch } from './tracing-switch.js';

/** How long `stop` waits for in-flight requests before closing shards anyway. */
const DRAIN_TIMEOUT_MS = 10_000;

export interface RunningApp {
  mainPort: number;
  apiPort: number | null;
  stop(): Promise<void>;
}

/** `threads`: the shard threads when `main.ts` started them already (shard-threads.ts). */
export async function startApp(config: Config, log: Logger, threads?: Piscina[]): Promise<RunningApp> {
  const userProvider = createUserProvider(config.userProvider, (msg) => log.warn(msg));
  await initZstd();
  const catalog = await Catalog.open(config.storage.dataHome, config.storage.shards);
  const { cluster, recovered } = await ShardCluster.start(
    config,
    log,
    catalog.deadTableIds(),
    tableRetentionsOf(catalog),
    skipWalTablesOf(catalog),
    threads,
  );
  recovered.then(
    () => log.info({ shards: cluster.count }, 'all shards recovered'),
    (err) => log.error({ err: String(err) }, 'shard recovery failed'),
  );
  // The catalog as loaded is on disk; each change publishes its generation once it is too.
  cluster.generation.publish(catalog.generation);
  catalog.onChange(async (generation) => cluster.generation.publish(generation));
  syncColumnIndexes(catalog, cluster, recovered, log);
  syncRetention(catalog, cluster, recovered, log);
  syncSkipWal(catalog, cluster, recovered, log);
  const ingest = new IngestPipeline(catalog, cluster);
  const metrics = new ServerMetrics(
    () => cluster.stats(),
    () => catalog.listDatabases().length,
    () => cluster.queueDepths(),
    () => {
      const names = new Map<number, { db: string; table: string }>();
      for (const d of catalog.listDatabases()) {
        for (const t of catalog.listTables(d.name)) names.set(t.id, { db: d.name, table: t.name });
      }
      return names;
    },
  );
  const trace = new TracingSwitch(config.tracing, cluster, log);
  const promqlLimits = promqlLimitsOf(config.query);
  const sqlDeps = { catalog, cluster, ingest, queryMemoryLimitBytes: config.query.memoryLimitBytes, promqlLimits };
  const pipelines = new PipelineStore({
    ingest,
    tableExists: () => catalog.getTable(PIPELINES_DB, PIPELINES_TABLE) !== undefined,
    select: async (sql) => {
      const session = { db: PIPELINES_DB, timezone: 'UTC', memoryLimitBytes: config.query.memoryLimitBytes };
      const [result] = await executeSql(sql, session, createSqlEnv(sqlDeps, null));
      return result?.kind === 'records' ? result.rows : [];
    },
  });
  const dashboardAssets = loadDashboardAssets();
  if (dashboardAssets === null) log.warn('dist/dashboard is missing: /dashboard answers 404 until "npm run build"');
  const routes = [
    ...adminRoutes(config, metrics),
    ...dashboardRoutes(dashboardAssets),
    ...debugRoutes(
      log,
      async (level) => {
        await cluster.broadcast({ op: 'log-level', level });
      },
      trace,
    ),
    ...debugProfRoutes(config, cluster, log),
    ...sqlRoutes(
      {
        catalog,
        cluster,
        ingest,
        queryMemoryLimitBytes: config.query.memoryLimitBytes,
        queryRangeMaxRows: config.query.rangeMaxRows,
        promqlLimits,
      },
      metrics,
    ),
    ...logsQueryRoutes({ ...sqlDeps, queryRangeMaxRows: config.query.rangeMaxRows }, metrics),
    ...sqlToolRoutes(),
    ...lineprotoRoutes(ingest, metrics, config.ingest.lineMaxBytes),
    ...lokiRoutes({ ingest, pipelines, bodyLimitBytes: config.http.bodyLimitBytes }, metrics),
    ...hecRoutes({ ingest, pipelines }, metrics, config.hec),
    ...opentsdbRoutes(
      {
        ingest,
        lookup: (db, table) => catalog.getTable(db, table),
        databaseExists: (db) => catalog.getDatabase(db) !== undefined,
        shards: cluster.count,
      },
      metrics,
    ),
    ...promRemoteRoutes(
      { catalog, cluster, ingest, pipelines, bodyLimitBytes: config.http.bodyLimitBytes, promqlLimits },
      metrics,
    ),
    ...otlpMetricsRoutes({ catalog, ingest }, metrics),
    ...otlpTraceRoutes({ catalog, ingest }, metrics),
    ...otlpLogRoutes(ingest, pipelines, metrics),
    ...pipelineRoutes({
      store: pipelines,
      tableExists: (db, table) => catalog.getTable(db, table) !== undefined,
    }),
    ...logIngestRoutes({ store: pipelines, ingest }, metrics),
    ...promApiRoutes(
      {
        catalog,
        cluster,
        ingest,
        queryMemoryLimitBytes: config.query.memoryLimitBytes,
        promqlLimits,
        log,
        queryTimeoutMs: config.query.timeoutMs,
      },
      metrics,
    ),
    ...pqlRoutes(
      { catalog, cluster, ingest, queryMemoryLimitBytes: config.query.memoryLimitBytes, promqlLimits },
      metrics,
    ),
  ];
  const queryGate = new QueryGate(config.maxConcurrentQueries);
  const server = await startHttpServer({
    config,
    log,
    routes,
    userProvider,
    writeLimiter: new WriteBytesLimiter(config.maxInFlightWriteBytes, config.writeBytesExhaustedPolicy),
    queryGate,
    onResponse(method, status, durationMs) {
      metrics.httpRequests.inc({ method, status: String(status) });
      metrics.httpDuration.observe({ method }, durationMs / 1000);
    },
  });
  trace.setMainAddress(config.http.addr.slice(0, config.http.addr.lastIndexOf(':')), server.mainPort);
  if (config.tracing.enabled) {
    const startTracing = (): Promise<void> =>
      trace.set(true).catch((err: unknown) => log.error({ err: String(err) }, 'tracing could not start'));
    // Before "listening" when the shards are open already, so the first request is traced;
    // otherwise once they have recovered (tracing needs every shard).
    if (config.initRegionsInBackground) void recovered.then(startTracing, () => undefined);
    else await startTracing();
  }
  log.info({ mainPort: server.mainPort, apiPort: server.apiPort, dataHome: config.storage.dataHome }, 'listening');

  return {
    mainPort: server.mainPort,
    apiPort: server.apiPort,
    async stop() {
      // Before closing the listener: with `endpoint = "self"` the last spans are exported to it.
      await trace.set(false).catch((err: unknown) => log.warn({ err: String(err) }, 'tracing stop failed'));
      server.close();
      // Queries are cancelled rather than waited for: their answers are no longer wanted, and a
      // heavy one could outlast the drain. Writes in flight finish, so nothing acknowledged is lost.
      queryGate.cancelAll('Query was cancelled: the server is shutting down');
      const deadline = Date.now() + DRAIN_TIMEOUT_MS;
      while (server.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await cluster.close();
      userProvider?.close?.();
    },
  };
}
