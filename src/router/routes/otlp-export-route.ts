/**
 * The route shape the three OTLP/HTTP signals share: write permission, per-protocol counters, and
 * the OTLP exchange (decode by content type, answer `Export*ServiceResponse` or `google.rpc.Status`
 * in the request's encoding). Each signal supplies only how a decoded request becomes rows.
 */
import { DbError } from '../../shared/errors.js';
import { checkPermission } from '../auth/credentials.js';
import { answerOf, ClientError } from '../errors/catalogue.js';
import type { RequestContext, Route } from '../http/context.js';
import {
  handleOtlpBody,
  handleOtlpExport,
  type OtlpEncoding,
  type OtlpRequestOf,
  type OtlpSignal,
  type PartialSuccess,
} from '../ingest/otlp/request.js';
import type { ServerMetrics } from '../metrics.js';

/** What a signal stored for one request: rows written, and what it rejected (with why). */
export interface OtlpExportOutcome {
  rows: number;
  rejected: number;
  message: string;
}

/** A signal whose request the router decodes (traces, logs). */
export function otlpExportRoute<S extends OtlpSignal>(
  signal: S,
  protocol: string,
  metrics: ServerMetrics,
  store: (ctx: RequestContext, request: OtlpRequestOf[S]) => Promise<OtlpExportOutcome>,
): Route {
  return exchangeRoute(signal, protocol, metrics, (ctx, stored) =>
    handleOtlpExport(ctx, signal, (request) => stored(() => store(ctx, request))),
  );
}

/** A signal whose body a shard decodes (metrics): `store` gets the body's encoding. */
export function otlpBodyRoute(
  signal: OtlpSignal,
  protocol: string,
  metrics: ServerMetrics,
  store: (ctx: RequestContext, encoding: OtlpEncoding) => Promise<OtlpExportOutcome>,
): Route {
  return exchangeRoute(signal, protocol, metrics, (ctx, stored) =>
    handleOtlpBody(ctx, signal, (encoding) => stored(() => store(ctx, encoding))),
  );
}

type Stored = (run: () => Promise<OtlpExportOutcome>) => Promise<PartialSuccess | null>;

function exchangeRoute(
  signal: OtlpSignal,
  protocol: string,
  metrics: ServerMetrics,
  exchange: (ctx: RequestContext, stored: Stored) => ReturnType<typeof handleOtlpBody>,
): Route {
  return {
    methods: ['POST'],
    pattern: `/v1/otlp/v1/${signal}`,
    errors: 'otlp',
    decompress: true,
    protocol,
    handler: async (ctx) => {
      metrics.ingestBytes.inc({ protocol }, ctx.body.length);
      let rows = 0;
      try {
        const response = await exchange(ctx, async (run) => {
          // Inside the exchange, so a refusal is answered as an OTLP status like other errors.
          if (ctx.user) checkPermission(ctx.user, 'write');
          const outcome = await run();
          rows = outcome.rows;
          return outcome.rejected === 0 ? null : { rejected: outcome.rejected, message: outcome.message };
        });
        metrics.ingestRows.inc({ protocol }, rows);
        metrics.ingestRequests.inc({ protocol, outcome: 'ok' });
        return response;
      } catch (err) {
        // Rejected: answered as an OTLP status or a framework refusal, or a catalog-level DbError.
        const rejected =
          err instanceof ClientError ||
          answerOf(err, 'otlp').shape === 'otlp' ||
          (err instanceof DbError && err.code < 5000);
        metrics.ingestRequests.inc({ protocol, outcome: rejected ? 'rejected' : 'failed' });
        throw err;
      }
    },
  };
}
