/**
 * Splunk HTTP Event Collector (reference ingest §5) under `/v1/eventcollector`: JSON events, raw
 * text, the health probe and indexer acknowledgement (`/ack`), with the `/1.0` aliases and bare
 * `/services/collector` real clients use. Every answer is Splunk's `{"text", "code"}`
 * (ingest/hec/status.ts), including refusals of the write itself; authentication failures get the
 * same shape from the HTTP server.
 *
 * Events are written to the table of their `index`, else `?index=`, else `?table=`, else
 * `splunk_logs`, as append-only log tables, directly or through the pipeline `?pipeline_name=`
 * (or `x-greptime-pipeline-name`) names (ingest/hec/to-records.ts); the whole request is validated before anything is
 * written and made durable before the 200. With `[hec] ack_enabled`, a write needs a channel and
 * its 200 carries the `ackId` that `/ack` reports true (ingest/hec/ack-registry.ts).
 */
import type { HecConfig } from '../../shared/config.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import { checkPermission } from '../auth/credentials.js';
import { answerOf, ClientError } from '../errors/catalogue.js';
import type { RequestContext, Route } from '../http/context.js';
import { withHints } from '../http/hints.js';
import { databaseOf } from '../http/params.js';
import { ackAnswerJson, parseAckQuery } from '../ingest/hec/ack-query.js';
import { AckRegistry, type AckTicket } from '../ingest/hec/ack-registry.js';
import { channelOf, requireChannel } from '../ingest/hec/channel.js';
import { eventRows } from '../ingest/hec/event-rows.js';
import { parseEventStream } from '../ingest/hec/event-stream.js';
import { DEFAULT_TABLE, type HecRow, hecInserts, METADATA_TAGS } from '../ingest/hec/hec-rows.js';
import { hecTimeToNs } from '../ingest/hec/hec-time.js';
import { rawRows } from '../ingest/hec/raw-rows.js';
import { HecCode, hecResponse, hecSuccess, NO_DATA } from '../ingest/hec/status.js';
import { isTableName, tableOfIndex } from '../ingest/hec/table-name.js';
import { hecRecordsByTable } from '../ingest/hec/to-records.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { ServerMetrics } from '../metrics.js';
import { ingestRecords } from '../pipelines/ingest-records.js';
import { IDENTITY_PIPELINE, versionOf } from '../pipelines/request.js';
import type { PipelineStore } from '../pipelines/store.js';

const PROTOCOL = 'hec';
const BASE = '/v1/eventcollector/services/collector';
/** Encodings the HTTP server has already undone (Splunk's clients send gzip at most). */
const DECODED_ENCODINGS = new Set(['', 'identity', 'gzip', 'x-gzip', 'deflate', 'br', 'zstd']);

const incorrectIndex = (): ClientError => new ClientError('HecIncorrectIndex', 'Incorrect index');

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

/**
 * The registry key of a request's channel. Channels are per user, as Splunk's are per token: one
 * user can neither read nor consume another's acknowledgements by guessing a GUID.
 */
function ackKeyOf(ctx: RequestContext, channel: string): string {
  return ctx.user ? `${ctx.user.username}\n${channel}` : channel;
}

/**
 * Checks what every write request shares: permission, encoding, channel. Returns the
 * acknowledgement key when acknowledgement is on (a channel is then required), else null.
 */
function checkRequest(ctx: RequestContext, ackEnabled: boolean): string | null {
  if (ctx.user) checkPermission(ctx.user, 'write');
  const encoding = (ctx.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (!DECODED_ENCODINGS.has(encoding)) {
    throw new ClientError('HecUnsupportedEncoding', `Unsupported Content-Encoding: ${encoding}`);
  }
  // Without acknowledgement a channel is optional, but one that is sent must still be a GUID.
  const channel = ackEnabled ? requireChannel(ctx.headers, ctx.query) : channelOf(ctx.headers, ctx.query);
  return ackEnabled && channel !== null ? ackKeyOf(ctx, channel) : null;
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
    if (ns === null) throw new ClientError('HecInvalidDataFormat', 'Invalid data format');
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

/** The events of each table through the named pipeline; returns the rows written. */
async function writeThroughPipeline(
  deps: HecDeps,
  rows: HecRow[],
  db: string,
  pipeline: string,
  versionText: string | null,
): Promise<number> {
  let version: bigint | undefined;
  try {
    version = versionOf(versionText);
  } catch {
    throw new ClientError('HecInvalidDataFormat', 'invalid pipeline version');
  }
  // GreptimeDB answers a pipeline it cannot resolve with code 8 (500), not as bad data.
  if (pipeline !== IDENTITY_PIPELINE && !(await deps.pipelines.get(pipeline, version))) {
    throw new ClientError('HecInternalError', `pipeline error: pipeline not found: ${pipeline}`);
  }
  const target = { db, pipeline, version, skipError: false };
  const written = await ingestRecords(deps.pipelines, deps.ingest, target, hecRecordsByTable(rows));
  return written.reduce((a, b) => a + b, 0);
}

export interface HecDeps {
  ingest: IngestPipeline;
  /** Stored pipelines, for requests that name one. */
  pipelines: PipelineStore;
}

export function hecRoutes(deps: HecDeps, metrics: ServerMetrics, config: HecConfig): Route[] {
  const { ingest } = deps;
  const acks = config.ackEnabled
    ? new AckRegistry({
        maxChannels: config.ackMaxChannels,
        maxPendingPerChannel: config.ackMaxPendingPerChannel,
        maxPending: config.ackMaxPending,
      })
    : null;
  const write =
    (rowsOf: (ctx: RequestContext, nowNs: bigint) => HecRow[]): Route['handler'] =>
    async (ctx) => {
      metrics.ingestBytes.inc({ protocol: PROTOCOL }, ctx.body.length);
      let ticket: AckTicket | null = null;
      try {
        const ackKey = checkRequest(ctx, acks !== null);
        const db = databaseOf(ctx, ['db']);
        const rows = rowsOf(ctx, BigInt(Date.now()) * 1_000_000n);
        // Room for the id is claimed before writing, so that "busy" never follows a write.
        if (acks !== null && ackKey !== null) ticket = acks.reserve(ackKey);
        await yieldToEventLoop();
        const pipeline = ctx.headers.get('x-greptime-pipeline-name') ?? ctx.query.get('pipeline_name');
        const written = pipeline
          ? await writeThroughPipeline(deps, rows, db, pipeline, ctx.query.get('version'))
          : await ingest.write(
              hecInserts(rows, db),
              withHints(ctx, { autoCreateTable: true, autoAddColumns: true, createMergeMode: 'append' }),
            );
        metrics.ingestRows.inc({ protocol: PROTOCOL }, written);
        metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: 'ok' });
        // The rows are durable now. A request already answered (timed out, client gone) never
        // shows its id to anyone, so it gets none rather than holding a pending slot forever.
        const claimed = ticket;
        ticket = null;
        if (claimed === null) return hecSuccess();
        if (ctx.signal.aborted) {
          claimed.cancel();
          return hecSuccess();
        }
        return hecSuccess(claimed.issue());
      } catch (err) {
        ticket?.cancel();
        // Rejected: what Splunk's clients see as a refusal of theirs; anything else failed.
        const answer = answerOf(err, 'hec');
        const rejected = answer.shape === 'hec' && answer.status < 500;
        metrics.ingestRequests.inc({ protocol: PROTOCOL, outcome: rejected ? 'rejected' : 'failed' });
        throw err;
      }
    };
  const event = write(eventRequestRows);
  const raw = write(rawRequestRows);
  const health: Route['handler'] = async () => hecResponse(200, HecCode.Healthy, 'HEC is healthy');
  // Same credentials as a write: an ingest token is what Splunk clients send to `/ack` too.
  const ack: Route['handler'] = async (ctx) => {
    if (ctx.user) checkPermission(ctx.user, 'write');
    if (acks === null) throw new ClientError('HecAckDisabled', 'ACK is disabled');
    const key = ackKeyOf(ctx, requireChannel(ctx.headers, ctx.query));
    const answer = acks.query(key, parseAckQuery(ctx.body));
    return { status: 200, headers: { 'content-type': 'application/json' }, body: ackAnswerJson(answer) };
  };
  const post = (pattern: string, handler: Route['handler']): Route => ({
    methods: ['POST'],
    pattern,
    errors: 'hec',
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
    // Not an ingest route (no `protocol`): the write limiter and the ingest metrics leave it out.
    { methods: ['POST'], pattern: `${BASE}/ack`, errors: 'hec', decompress: true, handler: ack },
    { methods: ['POST'], pattern: `${BASE}/ack/1.0`, errors: 'hec', decompress: true, handler: ack },
    { methods: ['GET'], pattern: `${BASE}/health`, errors: 'hec', handler: health },
    { methods: ['GET'], pattern: `${BASE}/health/1.0`, errors: 'hec', handler: health },
  ];
}
