/**
 * The error catalogue: every error a client can see, with a stable code, and for each route
 * family (how a group of routes answers errors) the HTTP status and body shape it gets. Modelled
 * on GreptimeDB's status-code table, which is its first section: a DbError answers by its code
 * (`shared/errors.ts` keeps the codes and GreptimeDB's code→HTTP map, since shards raise them and
 * send them across threads). The rest are what the router itself raises, as a `ClientError` naming
 * its kind: framework rejections (plain text, reference admin §1.5), and the errors of protocols
 * with their own error bodies (Prometheus API, Splunk HEC, OTLP, Loki).
 *
 * `describeError` classifies anything thrown; `error-response.ts` renders the answer. Nothing else
 * decides an error's status or body, but for the 503 a closing server writes straight to a
 * keep-alive connection (http/listener-filter.ts), which is not a request it handles.
 *
 * Exceptions that stay local, because they are control flow or a parser's own report and never
 * reach a client as they are; each is converted where it leaves its module:
 *   - `NotPlain` (OpenTSDB put scan), `SpanRejected` (OTLP traces), `GoSyntaxError`/`GoRegexError`
 *     (PromQL strings and regexes), `LabelSyntaxError` (Loki labels), `WireError`/`SnappyError`
 *     (remote write), `OtlpJsonError`, `LineError` (line protocol), `JsonPathError`,
 *     `JsonSyntaxError`, `ParseError`, `VrlCompileError`/`VrlRuntimeError`, `PipelineError`,
 *     `RecordError`, `InvalidRecords`, `ZstdError` (body decoding): the code that catches them
 *     raises a DbError or a ClientError with their message;
 *   - `PromqlError` (the PromQL engine's Prometheus-typed error): the Prometheus API turns it into
 *     its `Prom*` kind (`promqlErrorOf`), SQL's TQL into a DbError;
 *   - `TracingUnavailable`, `CpuProfileBusy`: the debug routes answer them as 503 and 409;
 *   - `KeyRefRefused`, `TooManyQueries`: DbErrors, answered by their code;
 *   - `ConfigError`/`UserProviderError` (start-up), `FormatError`, `ClosingError` (shard storage):
 *     never answered over HTTP except as a wrapped DbError.
 * Anything else that escapes a handler is the `Uncaught` kind: logged, and answered as a masked
 * internal error (1003).
 */
import { DbError, ErrorCode, httpStatusOf, resourceErrorOf } from '../../shared/errors.js';

/**
 * How a route answers errors. `greptime`: `{code, error, execution_time_ms}` (`/v1/sql`, `/v1/pql`,
 * `/v1/logs`); `short`: `{error}` (most ingest and management routes, lineproto included, as
 * GreptimeDB's InfluxDB endpoints answer); `text`: admin routes; `metricsapi`: `{status, errorType:
 * <CodeName>, error}`; `prometheus`: the Prometheus HTTP API with Prometheus' errorTypes;
 * `remote-write`: `short`, but a timeout is 504; `hec`: Splunk's `{text, code}`; `otlp`: a
 * google.rpc.Status for client errors; `auth`: what the auth stage answers on any non-HEC route.
 */
export const ERROR_FAMILIES = [
  'greptime',
  'short',
  'text',
  'metricsapi',
  'prometheus',
  'remote-write',
  'hec',
  'otlp',
  'auth',
] as const;
export type ErrorFamily = (typeof ERROR_FAMILIES)[number];

/** The route families a route may declare (`auth` is the auth stage's, not a route's). */
export type RouteErrorFamily = Exclude<ErrorFamily, 'auth'>;

/** Body shapes (reference admin §8.2, ingest §0.7, plus the protocols' own). */
export type BodyShape = 'greptime' | 'short' | 'metricsapi' | 'prometheus' | 'hec' | 'otlp' | 'text' | 'empty';

/** Prometheus' errorType values, each with its status as `getDefaultErrorCode` in `api.go`. */
export type PromErrorType = 'bad_data' | 'execution' | 'timeout' | 'canceled' | 'internal' | 'not_found';
const PROM_STATUS: Record<PromErrorType, number> = {
  bad_data: 400,
  execution: 422,
  timeout: 503,
  // 499 is Prometheus' "client closed connection".
  canceled: 499,
  internal: 500,
  not_found: 404,
};

export interface Answer {
  status: number;
  shape: BodyShape;
  /** `prometheus` shape: the errorType. */
  errorType?: PromErrorType;
  /** `hec` shape: Splunk's code. */
  hecCode?: number;
}

export interface ErrorKind {
  readonly name: string;
  /** Stable: GreptimeDB's code for DbError kinds; 10000+ for the router's own (see ranges below). */
  readonly code: number;
  readonly answers: Readonly<Record<ErrorFamily, Answer>>;
}

const everywhere = (
  answer: Answer,
  overrides: Partial<Record<ErrorFamily, Answer>> = {},
): Record<ErrorFamily, Answer> => {
  const answers = {} as Record<ErrorFamily, Answer>;
  for (const family of ERROR_FAMILIES) answers[family] = overrides[family] ?? answer;
  return answers;
};

/** Codes whose errors are the request's fault before anything ran (Prometheus: bad_data). */
const BAD_DATA_CODES: ReadonlySet<number> = new Set([
  ErrorCode.Unsupported,
  ErrorCode.InvalidArguments,
  ErrorCode.InvalidSyntax,
]);

/**
 * The Prometheus errorType of a GreptimeDB code. Prometheus clients switch on Prometheus' values,
 * so these follow Prometheus, not GreptimeDB's names (docs/promql-api.md).
 */
function promErrorTypeOf(code: number): PromErrorType {
  if (code === ErrorCode.Cancelled) return 'canceled';
  // Prometheus reports a query past its sample limit as an execution error (422).
  if (code === ErrorCode.RuntimeResourcesExhausted) return 'execution';
  if (code === ErrorCode.DeadlineExceeded) return 'timeout';
  if (httpStatusOf(code) >= 500) return 'internal';
  if (BAD_DATA_CODES.has(code)) return 'bad_data';
  return 'execution';
}

/** A DbError in Splunk's terms: permission → Invalid token, load → Server is busy, else by status. */
function hecAnswerOf(code: number): Answer {
  const status = httpStatusOf(code);
  if (code === ErrorCode.PermissionDenied) return { status: 403, shape: 'hec', hecCode: HEC.InvalidToken };
  if (status === 429 || status === 503) return { status: 503, shape: 'hec', hecCode: HEC.ServerBusy };
  if (status < 500) return { status, shape: 'hec', hecCode: HEC.InvalidDataFormat };
  return { status, shape: 'hec', hecCode: HEC.InternalError };
}

function dbKind(name: string, code: number): ErrorKind {
  const status = httpStatusOf(code);
  const errorType = promErrorTypeOf(code);
  const isAuth = code >= 7000 && code < 8000;
  return {
    name,
    code,
    answers: {
      greptime: { status, shape: 'greptime' },
      short: { status, shape: 'short' },
      text: { status, shape: 'text' },
      metricsapi: { status, shape: 'metricsapi' },
      // A permission error raised by a Prometheus API handler is answered as the route's
      // GreptimeDB-named error, not as a Prometheus one.
      prometheus: isAuth
        ? { status, shape: 'metricsapi' }
        : { status: PROM_STATUS[errorType], shape: 'prometheus', errorType },
      'remote-write': { status, shape: 'short' },
      hec: hecAnswerOf(code),
      // Only client errors are OTLP's to answer; server errors fall back to the route's `{error}`.
      otlp: status < 500 ? { status, shape: 'otlp' } : { status, shape: 'short' },
      // GreptimeDB's auth layer answers 401 whatever the code.
      auth: { status: 401, shape: 'greptime' },
    },
  };
}

/** Splunk HEC codes (Splunk "Troubleshoot HTTP Event Collector"; reference ingest §5). */
export const HEC = {
  Success: 0,
  TokenRequired: 2,
  InvalidToken: 4,
  NoData: 5,
  InvalidDataFormat: 6,
  IncorrectIndex: 7,
  InternalError: 8,
  ServerBusy: 9,
  DataChannelMissing: 10,
  InvalidDataChannel: 11,
  EventFieldRequired: 12,
  EventFieldBlank: 13,
  AckDisabled: 14,
  IndexedFields: 15,
  Healthy: 17,
} as const;

const text = (status: number): Answer => ({ status, shape: 'text' });
const empty = (status: number): Answer => ({ status, shape: 'empty' });
const hec = (status: number, hecCode: number): Answer => ({ status, shape: 'hec', hecCode });
const prom = (errorType: PromErrorType): Answer => ({ status: PROM_STATUS[errorType], shape: 'prometheus', errorType });

/**
 * The router's own kinds. Code ranges: 10xxx framework rejections (text or empty, whatever the
 * family), 11xxx Prometheus API, 12000 + Splunk's code for HEC (12106: code 6 answered 415),
 * 13xxx OTLP, 14xxx Loki, 19xxx throwables that are not ours.
 */
const CLIENT_KINDS = {
  RouteNotFound: { code: 10404, answers: everywhere(empty(404)) },
  MethodNotAllowed: { code: 10405, answers: everywhere(empty(405)) },
  RequestTimeout: { code: 10408, answers: everywhere(empty(408), { 'remote-write': empty(504) }) },
  BadQueryString: { code: 10400, answers: everywhere(text(400)) },
  MalformedJson: { code: 10401, answers: everywhere(text(400)) },
  UndecodableBody: { code: 10402, answers: everywhere(text(400)) },
  ProfilerBusy: { code: 10409, answers: everywhere(text(409)) },
  BodyTooLarge: { code: 10413, answers: everywhere(text(413)) },
  UnsupportedMediaType: { code: 10415, answers: everywhere(text(415)) },
  UnprocessableBody: { code: 10422, answers: everywhere(text(422)) },
  WriteBytesExhausted: { code: 10429, answers: everywhere(text(429)) },
  FeatureUnavailable: { code: 10504, answers: everywhere(text(503)) },

  PromBadData: { code: 11000, answers: everywhere(prom('bad_data')) },
  PromExecution: { code: 11001, answers: everywhere(prom('execution')) },
  PromTimeout: { code: 11002, answers: everywhere(prom('timeout')) },
  PromCanceled: { code: 11003, answers: everywhere(prom('canceled')) },
  PromInternal: { code: 11004, answers: everywhere(prom('internal')) },
  PromNotFound: { code: 11005, answers: everywhere(prom('not_found')) },

  HecTokenRequired: { code: 12002, answers: everywhere(hec(401, HEC.TokenRequired)) },
  HecInvalidToken: { code: 12004, answers: everywhere(hec(403, HEC.InvalidToken)) },
  HecNoData: { code: 12005, answers: everywhere(hec(400, HEC.NoData)) },
  HecInvalidDataFormat: { code: 12006, answers: everywhere(hec(400, HEC.InvalidDataFormat)) },
  HecUnsupportedEncoding: { code: 12106, answers: everywhere(hec(415, HEC.InvalidDataFormat)) },
  HecIncorrectIndex: { code: 12007, answers: everywhere(hec(400, HEC.IncorrectIndex)) },
  HecInternalError: { code: 12008, answers: everywhere(hec(500, HEC.InternalError)) },
  HecServerBusy: { code: 12009, answers: everywhere(hec(503, HEC.ServerBusy)) },
  HecDataChannelMissing: { code: 12010, answers: everywhere(hec(400, HEC.DataChannelMissing)) },
  HecInvalidDataChannel: { code: 12011, answers: everywhere(hec(400, HEC.InvalidDataChannel)) },
  HecEventFieldRequired: { code: 12012, answers: everywhere(hec(400, HEC.EventFieldRequired)) },
  HecEventFieldBlank: { code: 12013, answers: everywhere(hec(400, HEC.EventFieldBlank)) },
  HecAckDisabled: { code: 12014, answers: everywhere(hec(400, HEC.AckDisabled)) },
  HecIndexedFields: { code: 12015, answers: everywhere(hec(400, HEC.IndexedFields)) },

  OtlpBadRequest: { code: 13400, answers: everywhere({ status: 400, shape: 'otlp' }) },

  LokiBadTableHeader: { code: 14400, answers: everywhere({ status: 400, shape: 'short' }) },
  LokiUnsupportedContent: { code: 14415, answers: everywhere({ status: 415, shape: 'short' }) },
} as const satisfies Record<string, Omit<ErrorKind, 'name'>>;

export type ClientErrorKind = keyof typeof CLIENT_KINDS;

/**
 * Throwables that are not ours. `Uncaught`: answered as the masked 1003 (and logged).
 * `ResourceLimit`: V8 refused an allocation a request asked for; answered as 6000, but in the
 * route's fallback body on HEC (it is not Splunk's to explain) and as `execution` on Prometheus.
 */
const UNEXPECTED: ErrorKind = {
  name: 'Uncaught',
  code: 19000,
  answers: { ...dbKind('', ErrorCode.Internal).answers, hec: { status: 500, shape: 'short' } },
};
const RESOURCE_LIMIT: ErrorKind = {
  name: 'ResourceLimit',
  code: 19001,
  answers: { ...dbKind('', ErrorCode.RuntimeResourcesExhausted).answers, hec: { status: 500, shape: 'short' } },
};

/**
 * The family of errors raised by the stages before the handler (admission, body): protocols with
 * bodies of their own answer those as GreptimeDB's routes do, which is what their clients have
 * always seen for them (a query refused by `max_concurrent_queries` on the Prometheus API is
 * `{status, error, errorType: "RegionBusy"}`).
 */
const STAGE_FAMILY: Record<RouteErrorFamily, ErrorFamily> = {
  greptime: 'greptime',
  short: 'short',
  text: 'text',
  metricsapi: 'metricsapi',
  prometheus: 'metricsapi',
  'remote-write': 'remote-write',
  hec: 'short',
  otlp: 'short',
};

export function stageFamilyOf(family: RouteErrorFamily): ErrorFamily {
  return STAGE_FAMILY[family];
}

/** A DbError whose code is not in the table answers as Unknown (1000), as GreptimeDB does. */
const DB_KINDS = new Map<number, ErrorKind>(
  Object.entries(ErrorCode)
    .filter(([, code]) => code !== ErrorCode.Success)
    .map(([name, code]) => [code, dbKind(name, code)]),
);
const UNKNOWN_DB_KIND = DB_KINDS.get(ErrorCode.Unknown) as ErrorKind;

const CLIENT_KIND_ENTRIES = new Map<string, ErrorKind>(
  Object.entries(CLIENT_KINDS).map(([name, kind]) => [name, { name, ...kind }]),
);

/** Every kind, for the catalogue's own test and the docs. */
export function allErrorKinds(): ErrorKind[] {
  return [...DB_KINDS.values(), ...CLIENT_KIND_ENTRIES.values(), UNEXPECTED, RESOURCE_LIMIT];
}

export interface ClientErrorDetails {
  /** Extra response headers, e.g. `retry-after` on 429, `allow` on 405. */
  headers?: Record<string, string>;
  /** HEC: the 0-based index of the event of a batch the error is about. */
  invalidEventNumber?: number;
}

/** An error the router raises with a catalogue kind; its status and body come from the catalogue. */
export class ClientError extends Error {
  readonly headers: Record<string, string>;
  readonly invalidEventNumber: number | undefined;
  constructor(
    readonly kind: ClientErrorKind,
    message: string,
    details: ClientErrorDetails = {},
  ) {
    super(message);
    this.name = 'ClientError';
    this.headers = details.headers ?? {};
    this.invalidEventNumber = details.invalidEventNumber;
  }

  /** The status on a `short` route (the same on every family for all but RequestTimeout). */
  get status(): number {
    return CLIENT_KINDS[this.kind].answers.short.status;
  }

  /** The protocol's own code where its body carries one (HEC's `code`). */
  get hecCode(): number | undefined {
    return CLIENT_KINDS[this.kind].answers.short.hecCode;
  }
}

/** What the catalogue makes of a thrown value: its kind, and the DbError to show when it has one. */
export interface DescribedError {
  kind: ErrorKind;
  /** Set for DbErrors and throwables answered as one (masked internal, resource limit). */
  dbError: DbError | null;
  /** Set for ClientErrors. */
  clientError: ClientError | null;
  /** Not an error of ours: worth a log line. */
  unexpected: boolean;
}

export function describeError(err: unknown): DescribedError {
  if (err instanceof ClientError) {
    return { kind: CLIENT_KIND_ENTRIES.get(err.kind) as ErrorKind, dbError: null, clientError: err, unexpected: false };
  }
  if (err instanceof DbError) {
    return { kind: DB_KINDS.get(err.code) ?? UNKNOWN_DB_KIND, dbError: err, clientError: null, unexpected: false };
  }
  const resource = resourceErrorOf(err);
  if (resource) return { kind: RESOURCE_LIMIT, dbError: resource, clientError: null, unexpected: true };
  const internal = new DbError(ErrorCode.Internal, err instanceof Error ? err.message : String(err), { cause: err });
  return { kind: UNEXPECTED, dbError: internal, clientError: null, unexpected: true };
}

/** The answer (status, shape) an error gets on a route family. */
export function answerOf(err: unknown, family: ErrorFamily): Answer {
  return describeError(err).kind.answers[family];
}
