/**
 * Pipeline management (reference ingest §8): create a version (`POST`), read one (`GET`), delete
 * one (`DELETE ?version=`), the DDL a pipeline implies, and the dry run, which runs records
 * through a stored or inline pipeline and writes nothing.
 */
import uWS from 'uWebSockets.js';
import { compilePipeline } from '../../pipeline/compile.js';
import type { Pipeline, ProcessorStep } from '../../pipeline/pipeline.js';
import { PipelineError } from '../../pipeline/processor.js';
import { InvalidArgument } from '../../shared/errors.js';
import { mediaTypeOf } from '../../shared/media-type.js';
import { checkPermission } from '../auth/credentials.js';
import { empty, type HttpResponse, type RequestContext, type Route } from '../http/context.js';
import { pipelineDdl } from '../pipelines/ddl.js';
import { dryRunJson } from '../pipelines/dry-run.js';
import { invalidParameter, isTruthy, pipelineNamed, recordsOf, runPipeline, versionOf } from '../pipelines/request.js';
import type { PipelineStore } from '../pipelines/store.js';
import { formatVersion } from '../pipelines/version.js';

function stepJson(step: ProcessorStep): string {
  const head = `{"processor":${JSON.stringify(step.processor)}`;
  if (step.error !== undefined) return `${head},"error":${JSON.stringify(step.error)}}`;
  if (step.dropped) return `${head},"dropped":true}`;
  return `${head},"output":${step.outputJson ?? 'null'}}`;
}

/** Records a dry run takes at most. */
const DRY_RUN_RECORDS_MAX = 10;

export interface PipelineRoutesDeps {
  store: PipelineStore;
  /** Whether a table exists (the DDL says when it does). */
  tableExists: (db: string, table: string) => boolean;
}

function manage(ctx: RequestContext, value: Record<string, unknown>): HttpResponse {
  const ms = Math.round(performance.now() - ctx.startMs);
  return {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'x-greptime-format': 'greptimedb_manage',
      'x-greptime-execution-time': String(ms),
    },
    body: JSON.stringify({ ...value, execution_time_ms: ms }),
  };
}

/** The YAML of a create request, or null when the content type is not one we take (415). */
function pipelineText(ctx: RequestContext): string | null {
  const contentType = ctx.headers.get('content-type') ?? '';
  const media = mediaTypeOf(contentType);
  if (media === 'multipart/form-data') {
    const parts = uWS.getParts(ctx.body, contentType);
    const first = parts?.[0];
    return first ? Buffer.from(first.data).toString('utf8') : '';
  }
  if (media.endsWith('yaml')) return ctx.body.toString('utf8');
  return null;
}

function pipelineName(ctx: RequestContext): string {
  const name = ctx.params.name ?? '';
  if (name.startsWith('greptime_')) throw invalidParameter('pipeline_name cannot start with greptime_');
  return name;
}

/** A compile error of a pipeline being created or tried inline. */
function buildFailed(err: unknown): never {
  if (err instanceof PipelineError) throw new InvalidArgument(`Failed to build pipeline: ${err.message}`);
  throw err;
}

interface DryRunRequest {
  pipeline: () => Promise<Pipeline>;
  body: Buffer;
  contentType: string | undefined;
  ignoreErrors: boolean;
}

/** Form A (a JSON object naming the pipeline and carrying `data` as a string) or form B. */
function dryRunRequest(ctx: RequestContext, store: PipelineStore): DryRunRequest {
  let form: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(ctx.body.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const o = parsed as Record<string, unknown>;
      const named = typeof o.pipeline === 'string' || typeof o.pipeline_name === 'string';
      if (named && typeof o.data === 'string') form = o;
    }
  } catch {
    // not form A
  }
  if (form !== null) {
    const inline = form.pipeline;
    const name = form.pipeline_name;
    const version = typeof form.pipeline_version === 'string' ? form.pipeline_version : undefined;
    return {
      pipeline: async () => {
        if (typeof inline === 'string') {
          try {
            return compilePipeline(inline);
          } catch (err) {
            buildFailed(err);
          }
        }
        return pipelineNamed(store, name as string, versionOf(version), {});
      },
      body: Buffer.from(form.data as string, 'utf8'),
      contentType: typeof form.data_type === 'string' ? form.data_type : 'application/json',
      ignoreErrors: false,
    };
  }
  const name = ctx.query.get('pipeline_name');
  if (!name) throw invalidParameter('pipeline_name is required');
  const ignoreErrors = isTruthy(ctx.query.get('ignore_errors'));
  return {
    pipeline: () => pipelineNamed(store, name, versionOf(ctx.query.get('version')), { ignoreErrors }),
    body: ctx.body,
    contentType: ctx.headers.get('content-type'),
    ignoreErrors,
  };
}

export function pipelineRoutes(deps: PipelineRoutesDeps): Route[] {
  const { store } = deps;
  const mayWrite = (ctx: RequestContext): void => {
    if (ctx.user) checkPermission(ctx.user, 'write');
  };
  const mayRead = (ctx: RequestContext): void => {
    if (ctx.user) checkPermission(ctx.user, 'read');
  };
  return [
    {
      methods: ['POST'],
      pattern: '/v1/pipelines/_dryrun',
      errors: 'short',
      decompress: true,
      handler: async (ctx) => {
        mayRead(ctx);
        const request = dryRunRequest(ctx, store);
        const records = recordsOf(request.body, request.contentType, request.ignoreErrors);
        if (records.length === 0 || records.length > DRY_RUN_RECORDS_MAX) throw invalidParameter('data is required');
        const pipeline = await request.pipeline();
        if (!isTruthy(ctx.query.get('trace'))) {
          const result = await runPipeline(store, pipeline, records, false);
          return { status: 200, headers: { 'content-type': 'application/json' }, body: dryRunJson(result) };
        }
        // Beyond GreptimeDB: every processor's output per record, and the rows of the records
        // that make it through (a failing record does not fail the request here).
        const traces = records.map((r) => pipeline.traceProcessors(structuredClone(r)));
        const result = await runPipeline(store, pipeline, records, true);
        const failures = result.failures.map((f) => ({ record: f.index, error: f.message }));
        const trace = traces.map((steps, record) => `{"record":${record},"steps":[${steps.map(stepJson).join(',')}]}`);
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: `{"results":${dryRunJson(result)},"failures":${JSON.stringify(failures)},"trace":[${trace.join(',')}]}`,
        };
      },
    },
    {
      methods: ['GET'],
      pattern: '/v1/pipelines/:name/ddl',
      errors: 'short',
      handler: async (ctx) => {
        mayRead(ctx);
        const name = ctx.params.name ?? '';
        if (name.startsWith('greptime_')) throw invalidParameter("built-in pipelines don't have fixed table schema");
        const table = ctx.query.get('table');
        if (!table) throw invalidParameter('table is required');
        const pipeline = await pipelineNamed(store, name, versionOf(ctx.query.get('version')), {});
        const columns = pipeline.declaredColumns();
        if (columns === null) throw invalidParameter("auto transform doesn't have fixed table schema");
        const db = ctx.headers.get('x-greptime-db-name') ?? ctx.query.get('db') ?? 'public';
        const sql: Record<string, string> = { sql: pipelineDdl(table, columns) };
        if (deps.tableExists(db, table)) sql.message = 'table already exists, the CREATE TABLE SQL may be different';
        else if (pipeline.hasDispatcher) {
          sql.message = 'the pipeline has dispatcher or table_suffix, the table name may not be fixed';
        }
        return manage(ctx, { sql });
      },
    },
    {
      methods: ['POST'],
      pattern: '/v1/pipelines/:name',
      errors: 'short',
      handler: async (ctx) => {
        mayWrite(ctx);
        const text = pipelineText(ctx);
        if (text === null) return empty(415);
        const name = pipelineName(ctx);
        if (text.trim() === '') throw invalidParameter('pipeline is required in body');
        let version: bigint;
        try {
          version = await store.create(name, text);
        } catch (err) {
          buildFailed(err);
        }
        return manage(ctx, { pipelines: [{ name, version: formatVersion(version) }] });
      },
    },
    {
      methods: ['GET'],
      pattern: '/v1/pipelines/:name',
      errors: 'short',
      handler: async (ctx) => {
        mayRead(ctx);
        const name = pipelineName(ctx);
        const versionText = ctx.query.get('version');
        const stored = await store.get(name, versionOf(versionText)).catch(buildFailed);
        if (!stored) {
          throw new InvalidArgument(`Pipeline not found, name: ${name}, version: ${versionText || 'latest'}`);
        }
        const version = versionText || formatVersion(stored.version);
        return manage(ctx, { pipelines: [{ name, version, pipeline: stored.text }] });
      },
    },
    {
      methods: ['DELETE'],
      pattern: '/v1/pipelines/:name',
      errors: 'short',
      handler: async (ctx) => {
        mayWrite(ctx);
        const name = pipelineName(ctx);
        const versionText = ctx.query.get('version');
        if (!versionText) throw invalidParameter('version is required');
        const version = versionOf(versionText);
        if (version === undefined) throw invalidParameter('version is required');
        const deleted = await store.delete(name, version);
        return manage(ctx, { pipelines: deleted ? [{ name, version: versionText }] : [] });
      },
    },
  ];
}
