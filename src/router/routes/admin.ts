/** Admin endpoints of the main listener (reference §2): never authenticated. */
import os from 'node:os';
import type { Config } from '../../shared/config.js';
import { configToToml } from '../../shared/config-load.js';
import { VERSION } from '../../shared/version.js';
import { json, type Route, text } from '../http/context.js';
import type { ServerMetrics } from '../metrics.js';

export function adminRoutes(config: Config, metrics: ServerMetrics): Route[] {
  const health = async () => json(200, {});
  const configText = configToToml(config);
  return [
    { methods: ['GET', 'POST'], pattern: '/health', handler: health, errors: 'text' },
    { methods: ['GET', 'POST'], pattern: '/ready', handler: health, errors: 'text' },
    { methods: ['GET', 'POST'], pattern: '/v1/health', handler: health, errors: 'text' },
    {
      methods: ['GET'],
      pattern: '/status',
      errors: 'text',
      handler: async () =>
        json(200, {
          commit: process.env.SHOALDB_COMMIT ?? 'unknown',
          branch: process.env.SHOALDB_BRANCH ?? 'unknown',
          rustc_version: `node ${process.version}`,
          hostname: safeHostname(),
          version: VERSION,
        }),
    },
    {
      methods: ['GET'],
      pattern: '/metrics',
      errors: 'text',
      handler: async () => text(200, await metrics.registry.metrics(), metrics.registry.contentType),
    },
    { methods: ['GET'], pattern: '/config', errors: 'text', handler: async () => text(200, configText) },
    {
      methods: ['GET'],
      pattern: '/',
      errors: 'text',
      handler: async () =>
        text(
          200,
          `<!doctype html><html><head><title>ShoalDB</title></head><body><h1>ShoalDB ${VERSION}</h1><ul>` +
            '<li><a href="/dashboard/">dashboard</a></li><li><a href="/v1/health">/v1/health</a></li>' +
            '<li><a href="/status">/status</a></li><li><a href="/metrics">/metrics</a></li>' +
            '<li><a href="/config">/config</a></li></ul></body></html>',
          'text/html; charset=utf-8',
        ),
    },
  ];
}

function safeHostname(): string {
  try {
    return os.hostname();
  } catch {
    return 'unknown';
  }
}
