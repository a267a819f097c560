/**
 * Every route the server registers, read from the route builders `router/app.ts` spreads into its
 * table. The builders are called with inert stand-ins for their dependencies (only the handlers,
 * never called here, would use them), so a test can compare its own route list with the real one
 * and fail when a route is added without an entry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Route } from '../../src/router/http/context.js';
import { adminRoutes } from '../../src/router/routes/admin.js';
import { dashboardRoutes } from '../../src/router/routes/dashboard.js';
import { debugRoutes } from '../../src/router/routes/debug.js';
import { debugProfRoutes } from '../../src/router/routes/debug-prof.js';
import { hecRoutes } from '../../src/router/routes/hec.js';
import { lineprotoRoutes } from '../../src/router/routes/lineproto.js';
import { logIngestRoutes } from '../../src/router/routes/log-ingest.js';
import { logsQueryRoutes } from '../../src/router/routes/logs-query.js';
import { lokiRoutes } from '../../src/router/routes/loki.js';
import { opentsdbRoutes } from '../../src/router/routes/opentsdb.js';
import { otlpLogRoutes } from '../../src/router/routes/otlp-logs.js';
import { otlpMetricsRoutes } from '../../src/router/routes/otlp-metrics.js';
import { otlpTraceRoutes } from '../../src/router/routes/otlp-traces.js';
import { pipelineRoutes } from '../../src/router/routes/pipelines.js';
import { pqlRoutes } from '../../src/router/routes/pql.js';
import { promApiRoutes } from '../../src/router/routes/prom-api.js';
import { promRemoteRoutes } from '../../src/router/routes/prom-remote.js';
import { sqlRoutes } from '../../src/router/routes/sql.js';
import { sqlToolRoutes } from '../../src/router/routes/sql-tools.js';
import { defaultConfig } from '../../src/shared/config.js';

const APP_TS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'router', 'app.ts');

/** Any property and any call give itself back: enough for a builder that only stores it. */
const inert: never = new Proxy(() => undefined, {
  get: (_target, key) => (key === 'then' ? undefined : inert),
  apply: () => inert,
}) as never;

/** `METHOD pattern` for every registered route and method, keyed by the builder's name. */
export function registeredRoutes(): Map<string, string[]> {
  const config = defaultConfig();
  const builders: Record<string, () => Route[]> = {
    adminRoutes: () => adminRoutes(config, inert),
    dashboardRoutes: () => dashboardRoutes(null),
    debugRoutes: () => debugRoutes(inert, inert, inert),
    debugProfRoutes: () => debugProfRoutes(config, inert, inert),
    sqlRoutes: () => sqlRoutes(inert, inert),
    logsQueryRoutes: () => logsQueryRoutes(inert, inert),
    sqlToolRoutes: () => sqlToolRoutes(),
    lineprotoRoutes: () => lineprotoRoutes(inert, inert, 1024),
    lokiRoutes: () => lokiRoutes(inert, inert),
    hecRoutes: () => hecRoutes(inert, inert, config.hec),
    opentsdbRoutes: () => opentsdbRoutes(inert, inert),
    promRemoteRoutes: () => promRemoteRoutes(inert, inert),
    otlpMetricsRoutes: () => otlpMetricsRoutes(inert, inert),
    otlpTraceRoutes: () => otlpTraceRoutes(inert, inert),
    otlpLogRoutes: () => otlpLogRoutes(inert, inert, inert),
    pipelineRoutes: () => pipelineRoutes(inert),
    logIngestRoutes: () => logIngestRoutes(inert, inert),
    promApiRoutes: () => promApiRoutes(inert, inert),
    pqlRoutes: () => pqlRoutes(inert, inert),
  };
  const out = new Map<string, string[]>();
  for (const [name, build] of Object.entries(builders)) {
    out.set(
      name,
      build().flatMap((r) => r.methods.map((m) => `${m} ${r.pattern}`)),
    );
  }
  return out;
}

/** The route builders `app.ts` spreads into the route table (`...xRoutes(`), sorted. */
export function appRouteBuilders(): string[] {
  const source = fs.readFileSync(APP_TS, 'utf8');
  return [...new Set([...source.matchAll(/\.\.\.(\w+Routes)\(/g)].map((m) => m[1] as string))].sort();
}
