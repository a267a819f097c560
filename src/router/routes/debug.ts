/**
 * Runtime switches under /debug (reference §3): log level and the tracing switch. Main listener
 * only, no auth, no timeout; errors use the short `{"error": ...}` body.
 */
import type { Logger } from 'pino';
import { InvalidArgument } from '../../shared/errors.js';
import { ClientError } from '../errors/catalogue.js';
import { type Route, text } from '../http/context.js';
import { TracingUnavailable } from '../tracing-switch.js';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'off']);

/**
 * Parses a tracing-style filter (`info`, `warn,mito2=trace`). pino has one level per logger, so
 * the bare directive sets it; target directives are validated and kept for display.
 */
export function parseLogFilter(filter: string): { level: string; canonical: string } {
  const directives = filter
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  if (directives.length === 0) throw new Error('empty filter');
  let level: string | null = null;
  for (const d of directives) {
    const eq = d.indexOf('=');
    const lv = (eq >= 0 ? d.slice(eq + 1) : d).toLowerCase();
    if (!LEVELS.has(lv)) throw new Error(`invalid level "${lv}"`);
    if (eq >= 0 && d.slice(0, eq).trim() === '') throw new Error(`directive "${d}" has an empty target`);
    if (eq < 0) level = lv;
  }
  return { level: level ?? 'info', canonical: directives.join(',') };
}

/** What the tracing route needs of router/tracing-switch.ts. */
export interface TraceSwitch {
  /** Rejects with TracingUnavailable when tracing cannot start (e.g. no endpoint configured). */
  set(on: boolean): Promise<void>;
}

export function debugRoutes(log: Logger, setShardLevel: (level: string) => Promise<void>, trace: TraceSwitch): Route[] {
  let currentFilter = log.level === 'silent' ? 'off' : log.level;
  return [
    {
      methods: ['POST'],
      pattern: '/debug/log_level',
      errors: 'short',
      debug: true,
      handler: async (ctx) => {
        const body = ctx.body.toString('utf8');
        let parsed: { level: string; canonical: string };
        try {
          parsed = parseLogFilter(body);
        } catch (err) {
          throw new InvalidArgument(`Invalid request parameter: Invalid filter "${body}": ${(err as Error).message}`);
        }
        const pinoLevel = parsed.level === 'off' ? 'silent' : parsed.level;
        log.level = pinoLevel;
        await setShardLevel(pinoLevel);
        const old = currentFilter;
        currentFilter = parsed.canonical;
        return text(200, `Log Level changed from ${old} to ${parsed.canonical}`);
      },
    },
    {
      methods: ['POST'],
      pattern: '/debug/enable_trace',
      errors: 'short',
      debug: true,
      handler: async (ctx) => {
        const body = ctx.body.toString('utf8');
        if (body !== 'true' && body !== 'false') {
          throw new InvalidArgument('Invalid request parameter: Invalid parameter "enable": ParseBoolError');
        }
        const enable = body === 'true';
        try {
          await trace.set(enable);
        } catch (err) {
          if (err instanceof TracingUnavailable) throw new ClientError('FeatureUnavailable', err.message);
          throw err;
        }
        return text(200, enable ? 'trace enabled' : 'trace disabled');
      },
    },
  ];
}
