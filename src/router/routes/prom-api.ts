/**
 * The Prometheus HTTP query API under `/v1/metricsapi/api/v1/` (reference §7), GET and POST:
 * query, query_range, labels, label/<name>/values, series, metadata, format_query, parse_query and
 * status/buildinfo. Grafana's Prometheus datasource and other Prometheus clients are built against
 * Prometheus, so where GreptimeDB departs from Prometheus (error types and statuses, infinities,
 * build info, label defaults) this follows Prometheus; docs/promql-api.md lists the choices.
 *
 *   request → PromParams (URL wins over form) → engine / ShardSampleSource → encode.ts envelope
 *   any error → the error catalogue's `prometheus` family → {"status":"error","errorType":...,"error":...}
 */
import type { Logger } from 'pino';
import { typeOf } from '../../query/promql/ast.js';
import type { QueryOutcome } from '../../query/promql/engine.js';
import { formatPromql, instantQuery, parsePromql, promqlToJson, rangeQuery } from '../../query/promql/engine.js';
import { checkPointsPerSeries, type PromqlLimits } from '../../query/promql/limits.js';
import { PromqlError, type QueryResult } from '../../query/promql/types.js';
import { DbError, ErrorCode } from '../../shared/errors.js';
import { inSpan } from '../../shared/tracing/active-tracer.js';
import { VERSION } from '../../shared/version.js';
import { describeError } from '../errors/catalogue.js';
import type { Handler, HttpResponse, RequestContext, Route } from '../http/context.js';
import { databaseOf } from '../http/params.js';
import type { ServerMetrics } from '../metrics.js';
import { labelsJson, queryDataJson, successResponse } from '../prom-api/encode.js';
import { badData, fromPromqlError } from '../prom-api/errors.js';
import { labelValues } from '../prom-api/label-values.js';
import { readMetadata } from '../prom-api/metadata.js';
import {
  durationParamMs,
  invalidParameter,
  limitParam,
  PromParams,
  requiredTimeParamMs,
  timeParamMs,
  UNBOUNDED_END_MS,
  UNBOUNDED_START_MS,
} from '../prom-api/params.js';
import { parseSeriesSelectors } from '../prom-api/selectors.js';
import { ShardSampleSource } from '../promql-source.js';
import type { SqlEnvDeps } from '../sql-env.js';

const PREFIX = '/v1/metricsapi/api/v1';
const TRUNCATED_WARNING = 'results truncated due to limit';
/** The Prometheus release whose HTTP API and PromQL this server follows (the engine tracks 3.x). */
export const PROMETHEUS_API_VERSION = '3.0.0';

export interface PromApiDeps extends SqlEnvDeps {
  log: Logger;
  /** `query.timeout`: caps the `timeout` parameter, as Prometheus' `--query.timeout` does; 0 = none. */
  queryTimeoutMs: number;
}

/** The engine's time and cancellation settings for one request. */
interface QuerySettings {
  lookbackMs: number | undefined;
  /** From the `timeout` parameter; null = only the server's request timeout. */
  timeoutMs: number | null;
}

function parseQuery(params: PromParams) {
  try {
    return parsePromql(params.get('query'));
  } catch (err) {
    if (err instanceof PromqlError) throw invalidParameter('query', err.message);
    throw err;
  }
}

function settingsOf(params: PromParams): QuerySettings {
  const timeoutMs = durationParamMs(params, 'timeout');
  // Prometheus names it lookback_delta; GreptimeDB lookback.
  const name = params.get('lookback_delta') !== '' ? 'lookback_delta' : 'lookback';
  let lookbackMs: number | null;
  try {
    lookbackMs = durationParamMs(params, name);
  } catch (err) {
    throw badData(`error parsing lookback delta duration: ${(err as Error).message}`);
  }
  return { lookbackMs: lookbackMs && lookbackMs > 0 ? Math.round(lookbackMs) : undefined, timeoutMs };
}

/**
 * Runs `evaluate` with the request's cancellation and the `timeout` parameter: the engine stops
 * at its next check once the deadline passes, and an answer that arrives late is refused too, so
 * a query past its timeout always answers Prometheus' timeout error.
 */
async function withTimeout(
  ctx: RequestContext,
  timeoutMs: number | null,
  evaluate: (signal: AbortSignal) => Promise<QueryOutcome>,
): Promise<QueryOutcome> {
  // Made only when needed: an Error captures its stack, which cost every query ~2% of the router's time.
  const timeoutError = (): PromqlError => new PromqlError('timeout', 'query timed out in expression evaluation');
  if (timeoutMs === null) return evaluate(ctx.signal);
  if (timeoutMs <= 0) throw timeoutError();
  const controller = new AbortController();
  const forward = (): void => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) forward();
  else ctx.signal.addEventListener('abort', forward, { once: true });
  const timer = setTimeout(() => controller.abort(timeoutError()), timeoutMs);
  const started = performance.now();
  try {
    const outcome = await evaluate(controller.signal);
    if (performance.now() - started > timeoutMs) throw timeoutError();
    return outcome;
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', forward);
  }
}

/** Prometheus answers unknown metrics with an empty result, never with GreptimeDB's TableNotFound. */
function emptyOnMissingTable(err: unknown, resultType: 'vector' | 'matrix'): QueryOutcome {
  if (err instanceof DbError && (err.code === ErrorCode.TableNotFound || err.code === ErrorCode.TableColumnNotFound)) {
    return resultType === 'vector'
      ? { resultType, samples: [], warnings: [], infos: [] }
      : { resultType, series: [], warnings: [], infos: [] };
  }
  throw err;
}

/** Keeps at most `limit` series of a vector or matrix (Prometheus' `truncateResults`). */
function truncate(result: QueryResult, limit: number): { result: QueryResult; truncated: boolean } {
  if (limit <= 0) return { result, truncated: false };
  if (result.resultType === 'vector' && result.samples.length > limit) {
    return { result: { ...result, samples: result.samples.slice(0, limit) }, truncated: true };
  }
  if (result.resultType === 'matrix' && result.series.length > limit) {
    return { result: { ...result, series: result.series.slice(0, limit) }, truncated: true };
  }
  return { result, truncated: false };
}

function queryAnswer(ctx: RequestContext, outcome: QueryOutcome, limit: number): HttpResponse {
  const { result, truncated } = truncate(outcome, limit);
  const warnings = truncated ? [...outcome.warnings, TRUNCATED_WARNING] : outcome.warnings;
  return successResponse(queryDataJson(result), { warnings, infos: outcome.infos }, ctx.headers.get('accept-encoding'));
}

/** The per-request context every handler needs. */
interface ApiRequest {
  ctx: RequestContext;
  params: PromParams;
  db: string;
  source: ShardSampleSource;
  /** The server's `[query]` limits, which `source` applies too. */
  limits: PromqlLimits;
  /** `query.timeout`; 0 = none. */
  queryTimeoutMs: number;
}

/** The evaluation deadline: the `timeout` parameter, capped by `query.timeout` (null = none). */
function deadlineMs(settings: QuerySettings, queryTimeoutMs: number): number | null {
  if (queryTimeoutMs <= 0) return settings.timeoutMs;
  return settings.timeoutMs === null ? queryTimeoutMs : Math.min(settings.timeoutMs, queryTimeoutMs);
}

function handler(
  deps: PromApiDeps,
  metrics: ServerMetrics,
  answer: (request: ApiRequest) => Promise<HttpResponse>,
): Handler {
  return async (ctx) => {
    try {
      const params = PromParams.of(ctx);
      // A `db` URL parameter overrides the header here (a `db` in a form body is ignored).
      const db = databaseOf(ctx, ['db'], false);
      const limits = deps.promqlLimits;
      const source = new ShardSampleSource(deps.catalog, deps.cluster, { db, user: ctx.user, limits });
      const response = await answer({ ctx, params, db, source, limits, queryTimeoutMs: deps.queryTimeoutMs });
      metrics.queryDone('promql', 'ok', ctx.startMs);
      return response;
    } catch (thrown) {
      const err = fromPromqlError(thrown);
      // Framework refusals and permission errors are not the query's: they count as no query.
      const described = describeError(err);
      const answer = described.kind.answers.prometheus;
      if (answer.shape === 'prometheus') {
        metrics.queryDone('promql', 'error', ctx.startMs);
        // Unexpected throwables are logged by the HTTP layer.
        if (answer.errorType === 'internal' && !described.unexpected) {
          deps.log.error({ err: thrown, path: ctx.path }, 'metrics API request failed');
        }
      }
      throw err;
    }
  };
}

async function query({ ctx, params, source, limits, queryTimeoutMs }: ApiRequest): Promise<HttpResponse> {
  const limit = limitParam(params);
  const timeMs = timeParamMs(params, 'time', Date.now());
  const settings = settingsOf(params);
  const expr = await inSpan('promql.parse', () => parseQuery(params));
  // Active during evaluation, so the shard tasks it sends are its children.
  const outcome = await inSpan('promql.eval', () =>
    withTimeout(ctx, deadlineMs(settings, queryTimeoutMs), (signal) =>
      instantQuery(params.get('query'), timeMs, { source, lookbackDeltaMs: settings.lookbackMs, signal, limits }),
    ),
  ).catch((err: unknown) => emptyOnMissingTable(err, typeOf(expr) === 'matrix' ? 'matrix' : 'vector'));
  return queryAnswer(ctx, outcome, limit);
}

async function queryRange({ ctx, params, source, limits, queryTimeoutMs }: ApiRequest): Promise<HttpResponse> {
  const limit = limitParam(params);
  const startMs = requiredTimeParamMs(params, 'start');
  const endMs = requiredTimeParamMs(params, 'end');
  if (endMs < startMs) throw invalidParameter('end', 'end timestamp must not be before start time');
  const stepMs = durationParamMs(params, 'step') ?? Number.NaN;
  if (Number.isNaN(stepMs)) throw invalidParameter('step', `cannot parse "" to a valid duration`);
  if (!(stepMs > 0)) {
    throw invalidParameter(
      'step',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  }
  // Before the other parameters and the query are read, as Prometheus checks it.
  checkPointsPerSeries(startMs, endMs, stepMs, limits.maxPointsPerSeries);
  const settings = settingsOf(params);
  await inSpan('promql.parse', () => parseQuery(params));
  const outcome = await inSpan('promql.eval', () =>
    withTimeout(ctx, deadlineMs(settings, queryTimeoutMs), (signal) =>
      rangeQuery(params.get('query'), startMs, endMs, stepMs, {
        source,
        lookbackDeltaMs: settings.lookbackMs,
        signal,
        limits,
      }),
    ),
  ).catch((err: unknown) => emptyOnMissingTable(err, 'matrix'));
  return queryAnswer(ctx, outcome, limit);
}

/** `start`/`end` of the metadata-style endpoints: unbounded when absent, as in Prometheus. */
function rangeOf(params: PromParams): { startMs: number; endMs: number } {
  return {
    startMs: timeParamMs(params, 'start', UNBOUNDED_START_MS),
    endMs: timeParamMs(params, 'end', UNBOUNDED_END_MS),
  };
}

function listAnswer(ctx: RequestContext, values: readonly string[], limit: number): HttpResponse {
  const truncated = limit > 0 && values.length > limit;
  const shown = truncated ? values.slice(0, limit) : values;
  return successResponse(
    JSON.stringify(shown),
    { warnings: truncated ? [TRUNCATED_WARNING] : [] },
    ctx.headers.get('accept-encoding'),
  );
}

async function labels({ ctx, params, source }: ApiRequest): Promise<HttpResponse> {
  const limit = limitParam(params);
  const { startMs, endMs } = rangeOf(params);
  const sets = parseSeriesSelectors(params.all('match[]'));
  return listAnswer(ctx, await source.labelNames(sets, startMs, endMs, ctx.signal), limit);
}

function labelValuesHandler(deps: PromApiDeps) {
  return async ({ ctx, params, db }: ApiRequest): Promise<HttpResponse> => {
    const name = ctx.params.name as string;
    const limit = limitParam(params);
    const { startMs, endMs } = rangeOf(params);
    const matcherSets = parseSeriesSelectors(params.all('match[]'));
    const values = await labelValues(name, {
      catalog: deps.catalog,
      cluster: deps.cluster,
      limits: deps.promqlLimits,
      db,
      user: ctx.user,
      matcherSets,
      startMs,
      endMs,
      signal: ctx.signal,
    });
    return listAnswer(ctx, values, limit);
  };
}

async function series({ ctx, params, source }: ApiRequest): Promise<HttpResponse> {
  const texts = params.all('match[]');
  if (texts.length === 0) throw badData('no match[] parameter provided');
  const limit = limitParam(params);
  const { startMs, endMs } = rangeOf(params);
  let sets: ReturnType<typeof parseSeriesSelectors>;
  try {
    sets = parseSeriesSelectors(texts);
  } catch (err) {
    throw invalidParameter('match[]', (err as Error).message);
  }
  const found = await source.series(sets, startMs, endMs, ctx.signal);
  const truncated = limit > 0 && found.length > limit;
  const shown = truncated ? found.slice(0, limit) : found;
  return successResponse(
    `[${shown.map(labelsJson).join(',')}]`,
    { warnings: truncated ? [TRUNCATED_WARNING] : [] },
    ctx.headers.get('accept-encoding'),
  );
}

function metadataHandler(deps: PromApiDeps) {
  return async ({ ctx, params, db }: ApiRequest): Promise<HttpResponse> => {
    const text = params.get('limit');
    if (text !== '' && !/^[+-]?\d+$/.test(text)) throw badData('limit must be a number');
    const limit = text === '' ? -1 : Number(text);
    const found = await readMetadata(deps, ctx.user, db, params.get('metric'), limit, ctx.signal);
    return successResponse(JSON.stringify(found), {}, ctx.headers.get('accept-encoding'));
  };
}

async function formatQuery({ params }: ApiRequest): Promise<HttpResponse> {
  return successResponse(JSON.stringify(formatPromql(parseQuery(params))));
}

async function parseQueryTree({ params }: ApiRequest): Promise<HttpResponse> {
  return successResponse(JSON.stringify(promqlToJson(parseQuery(params))));
}

/**
 * Prometheus' build info shape; Grafana reads `version` to pick API features. The version is the
 * Prometheus API level this server answers, the runtime stands where Go's version would.
 */
async function buildInfo(): Promise<HttpResponse> {
  return successResponse(
    JSON.stringify({
      version: PROMETHEUS_API_VERSION,
      revision: `shoaldb-${VERSION}`,
      branch: 'main',
      buildUser: 'shoaldb',
      buildDate: '',
      goVersion: `node${process.versions.node}`,
    }),
  );
}

export function promApiRoutes(deps: PromApiDeps, metrics: ServerMetrics): Route[] {
  const route = (path: string, answer: (request: ApiRequest) => Promise<HttpResponse>, query = true): Route => ({
    methods: ['GET', 'POST'],
    pattern: `${PREFIX}/${path}`,
    errors: 'prometheus',
    query,
    handler: handler(deps, metrics, answer),
  });
  return [
    route('query', query),
    route('query_range', queryRange),
    route('labels', labels),
    route('label/:name/values', labelValuesHandler(deps)),
    route('series', series),
    route('metadata', metadataHandler(deps)),
    route('format_query', formatQuery, false),
    route('parse_query', parseQueryTree, false),
    route('status/buildinfo', buildInfo, false),
  ];
}
