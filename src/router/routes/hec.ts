/**
 * Splunk HTTP Event Collector (reference ingest §5) under `/v1/eventcollector`: JSON events, raw
 * text and the health probe, with the `/1.0` aliases and bare `/services/collector` real clients
 * use. Every answer is Splunk's `{"text", "code"}` (ingest/hec/status.ts), including refusals of
 * the write itself; authentication failures get the same shape from the HTTP server.
 *
 * Events are written to the table of their `index`, else `?index=`, else `?table=`, else
 * `splunk_logs`, as append-only log tables; the whole request is validated before anything is
 * written and made durable before the 200.
 */
import { DbError, ErrorCode, httpStatusOf } from '../../shared/errors.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import { checkPermission } from '../auth/credentials.js';
import type { HttpResponse, RequestContext, Route } from '../http/context.js';
import { databaseOf } from '../http/params.js';
import { eventRows } from '../ingest/hec/event-rows.js';
import { parseEventStream } from '../ingest/hec/event-stream.js';
import { DEFAULT_TABLE, type HecRow, hecInserts, METADATA_TAGS } from '../ingest/hec/hec-rows.js';
import { hecTimeToNs } from '../ingest/hec/hec-time.js';
import { rawRows } from '../ingest/hec/raw-rows.js';
import { HecCode, HecError, hecResponse, NO_DATA } from '../ingest/hec/status.js';
import { isTableName, tableOfIndex } from '../ingest/hec/table-name.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';

const PROTOCOL = 'hec';
const BASE = '/v1/eventcollector/services/collector';
/** Encodings the HTTP server has already undone (Splunk's clients send gzip at most). */
const DECODED_ENCODINGS = new Set(['', 'identity', 'gzip', 'x-gzip', 'deflate', 'br', 'zstd']);
/** A Splunk channel is a GUID. */
const CHANNEL = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

const incorrectIndex = (): HecError => new HecError(400, HecCode.IncorrectIndex, 'Incorrect index');

/** The table named by the URL (`?index=`, then `?table=`), else the default. */
function tableOfQuery(query: URLSearchParams): string {
  const index = query.get('index');
  if (index && index.trim() !== '') {
    const table = tableOfIndex(index);
    if (table === null) throw incorrectIndex();
    return table;
  }
  const table = query.get('table');
  if (table) {
    if (!isTableName(table)) throw incorrectIndex();
    return table;
  }
  return DEFAULT_TABLE;
}

/** Checks what every write request shares: permission, encoding, channel, no pipeline. */
function checkRequest(ctx: RequestContext): void {
  if (ctx.user) checkPermission(ctx.user, 'write');
  const encoding = (ctx.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (!DECODED_ENCODINGS.has(encoding)) {
    throw new HecError(415, HecCode.InvalidDataFormat, `Unsupported Content-Encoding: ${encoding}`);
  }
  // No indexer acknowledgement here, so a channel is optional; one that is sent must be a GUID.
  const channel = ctx.headers.get('x-splunk-request-channel') ?? ctx.query.get('channel');
  if (channel !== undefined && channel !== null && !CHANNEL.test(channel)) {
    throw new HecError(400, HecCode.InvalidDataChannel, 'Invalid data channel');
  }
  if (ctx.query.has('pipeline_name') || ctx.headers.has('x-greptime-pipeline-name')) {
    throw new HecError(400, HecCode.InvalidDataFormat, 'Ingestion through a pipeline is not supported');
  }
}

function eventRequestRows(ctx: RequestContext, nowNs: bigint): HecRow[] {
  const events = parseEventStream(ctx.body);
  if (events.length === 0) throw NO_DATA();
  return eventRows(events, tableOfQuery(ctx.query), nowNs);
}

function rawRequestRows(ctx: RequestContext, nowNs: bigint): HecRow[] {
  let timestampNs = nowNs;
  const time = ctx.query.get('time');
  if (time !== null) {
    const ns = hecTimeToNs(time);
    if (ns === null) throw new HecError(400, HecCode.InvalidDataFormat, 'Invalid data format');
    timestampNs = ns;
  }
  const tags = new Map<string, string>();
  for (const key of METADATA_TAGS) {
    const value = ctx.query.get(key);
    if (value) tags.set(key, value);
  }
  return rawRows(ctx.body, {
    table: tableOfQuery(ctx.query),
    timestampNs,
    tags,
    lineBreaker: ctx.query.get('linebreaker') ?? undefined,
  });
}

/** A DbError (permission, database, table conflict, storage) in Splunk's terms. */
function dbErrorResponse(err: DbError): HttpResponse {
  const status = httpStatusOf(err.code);
  const text = err.publicMessage();
  if (err.code === ErrorCode.PermissionDenied) return hecResponse(403, HecCode.InvalidToken, text);
  if (status === 429 || status === 503) return hecResponse(503, HecCode.ServerBusy, text);
  if (status < 500) return hecResponse(status, HecCode.InvalidDataFormat, text);
  return hecResponse(status, HecCode.InternalError, text);
}

export function hecRoutes(ingest: IngestPipeline, metrics: ServerMetrics): Route[] {
  const write =
    (rowsOf: (ctx: RequestContext, nowNs: bigint) => HecRow[]): Route['handler'] =>
    async (ctx) => {
      metrics.ingestBytes.inc({ protocol: PROTOCOL }, ctx.body.length);
      try {
        checkRequest(ctx);
        const db = databaseOf(ctx, ['db']);
        const rows = rowsOf(ctx, BigInt(Date.now()) * 1_000_000n);
        await yieldToEventLoop();
        const written = await ingest.write(hecInserts(rows, db), {
          autoCreateTable: true,
          autoAddColumns: true,
          createMergeMode: 'append',
        });
        metrics.ingestRows.inc({ protocol: PROTOCOL }, written);
        metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: 'ok' });
        return hecResponse(200, HecCode.Success, 'Success');
      } catch (err) {
        let response: HttpResponse;
        if (err instanceof HecError) response = err.toResponse();
        else if (err instanceof DbError) response = dbErrorResponse(err);
        else {
          metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: 'failed' });
          throw err;
        }
        metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: response.status < 500 ? 'rejected' : 'failed' });
        return response;
      }
    };
  const event = write(eventRequestRows);
  const raw = write(rawRequestRows);
  const health: Route['handler'] = async () => hecResponse(200, HecCode.Healthy, 'HEC is healthy');
  const post = (pattern: string, handler: Route['handler']): Route => ({
    methods: ['POST'],
    pattern,
    errorShape: 'short',
    decompress: true,
    protocol: PROTOCOL,
    handler,
  });
  return [
    post(BASE, event),
    post(`${BASE}/event`, event),
    post(`${BASE}/event/1.0`, event),
    post(`${BASE}/raw`, raw),
    post(`${BASE}/raw/1.0`, raw),
    { methods: ['GET'], pattern: `${BASE}/health`, errorShape: 'short', handler: health },
    { methods: ['GET'], pattern: `${BASE}/health/1.0`, errorShape: 'short', handler: health },
  ];
}
