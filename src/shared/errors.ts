/**
 * One error hierarchy for the whole server. Codes follow GreptimeDB's status-code families
 * (1xxx common, 2xxx SQL, 3xxx query, 4xxx catalog, 5xxx storage, 6xxx server, 7xxx auth) so that
 * clients that switch on `code` keep working; `httpStatusOf` is the only code→HTTP map.
 */

export const ErrorCode = {
  Success: 0,
  Unknown: 1000,
  Unsupported: 1001,
  Unexpected: 1002,
  Internal: 1003,
  InvalidArguments: 1004,
  Cancelled: 1005,
  IllegalState: 1006,
  External: 1007,
  DeadlineExceeded: 1008,
  Suspended: 1009,
  InvalidSyntax: 2000,
  PlanQuery: 3000,
  EngineExecuteQuery: 3001,
  TableAlreadyExists: 4000,
  TableNotFound: 4001,
  TableColumnNotFound: 4002,
  TableColumnExists: 4003,
  DatabaseNotFound: 4004,
  RegionNotFound: 4005,
  RegionAlreadyExists: 4006,
  RegionReadonly: 4007,
  RegionNotReady: 4008,
  RegionBusy: 4009,
  TableUnavailable: 4010,
  DatabaseAlreadyExists: 4011,
  StorageUnavailable: 5000,
  RequestOutdated: 5001,
  /** ShoalDB's own: the data directory's file system is full; writes resume once space is freed. */
  StorageFull: 5002,
  RuntimeResourcesExhausted: 6000,
  RateLimited: 6001,
  UserNotFound: 7000,
  UnsupportedPasswordType: 7001,
  UserPasswordMismatch: 7002,
  AuthHeaderNotFound: 7003,
  InvalidAuthHeader: 7004,
  AccessDenied: 7005,
  PermissionDenied: 7006,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const HTTP_STATUS: Record<number, number> = {
  0: 200,
  1000: 500,
  1001: 400,
  1002: 500,
  1003: 500,
  1004: 400,
  1005: 504,
  1006: 500,
  1007: 503,
  1008: 504,
  1009: 503,
  2000: 400,
  3000: 400,
  3001: 500,
  4000: 400,
  4001: 400,
  4002: 400,
  4003: 400,
  4004: 400,
  4005: 400,
  4006: 400,
  4007: 401,
  4008: 503,
  4009: 503,
  4010: 503,
  4011: 400,
  5000: 503,
  5001: 400,
  5002: 507,
  6000: 500,
  6001: 429,
  7000: 401,
  7001: 401,
  7002: 401,
  7003: 401,
  7004: 401,
  7005: 403,
  7006: 403,
};

/** The HTTP status GreptimeDB answers for a status code; codes outside the table count as Unknown. */
export function httpStatusOf(code: number): number {
  return HTTP_STATUS[code] ?? 500;
}

/** The name of a code as Prometheus-style APIs print it in `errorType` (e.g. `TableNotFound`). */
export function codeName(code: number): string {
  for (const [name, value] of Object.entries(ErrorCode)) if (value === code) return name;
  return 'Unknown';
}

/** Any error the server means to show a client. `code` picks the HTTP status via `httpStatusOf`. */
export class DbError extends Error {
  readonly code: number;
  /**
   * For a refusal that passes once load drops (a full queue, memtables awaiting a flush, a shard
   * still recovering): the seconds a client should wait, sent as `Retry-After`.
   */
  readonly retryAfterSeconds: number | undefined;
  constructor(code: number, message: string, options?: { cause?: unknown; retryAfterSeconds?: number | undefined }) {
    super(message, options);
    this.code = code;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.name = 'DbError';
  }

  /** The message a client may see: internal errors are masked as GreptimeDB does. */
  publicMessage(): string {
    return this.code === ErrorCode.Unknown || this.code === ErrorCode.Internal
      ? `Internal error: ${this.code}`
      : this.message;
  }
}

export class InvalidArgument extends DbError {
  constructor(message: string) {
    super(ErrorCode.InvalidArguments, message);
  }
}

export class SqlSyntaxError extends DbError {
  constructor(message: string) {
    super(ErrorCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${message}`);
  }
}

export class NotFound extends DbError {}

export class Unsupported extends DbError {
  constructor(message: string) {
    super(ErrorCode.Unsupported, message);
  }
}

export class StorageUnavailable extends DbError {
  constructor(message: string, options?: { retryAfterSeconds?: number }) {
    super(ErrorCode.StorageUnavailable, message, options);
  }
}

export class StorageFull extends DbError {
  constructor(message: string) {
    super(ErrorCode.StorageFull, message, { retryAfterSeconds: 10 });
  }
}

export class Internal extends DbError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Internal, message, options);
  }
}

/** Plain data form of an error, the only form that may cross a thread boundary. */
export interface WireError {
  code: number;
  message: string;
  retryAfterSeconds?: number | undefined;
}

/**
 * V8's RangeErrors for allocations past its own limits. They come from user input that asked for
 * too much (a huge array, string or recursion) that no estimate caught first, so they answer as
 * 6000 with V8's text instead of a masked 1003. Other RangeErrors (BigInt division by zero, bad
 * dates) stay internal: they are bugs.
 */
const V8_LIMIT_ERRORS =
  /^(Invalid (typed )?array length|Invalid string length|Array buffer allocation failed|Maximum call stack size exceeded|Maximum BigInt size exceeded)/;

/** The 6000 form of a V8 allocation-limit RangeError; null for any other error. */
export function resourceErrorOf(err: unknown): DbError | null {
  if (!(err instanceof RangeError) || !V8_LIMIT_ERRORS.test(err.message)) return null;
  return new DbError(ErrorCode.RuntimeResourcesExhausted, `Resources exhausted: ${err.message}`, { cause: err });
}

export function toWire(err: unknown): WireError {
  if (err instanceof DbError) return { code: err.code, message: err.message, retryAfterSeconds: err.retryAfterSeconds };
  const resource = resourceErrorOf(err);
  if (resource) return { code: resource.code, message: resource.message };
  const message = err instanceof Error ? err.message : String(err);
  return { code: ErrorCode.Internal, message };
}

export function fromWire(wire: WireError): DbError {
  return new DbError(wire.code, wire.message, { retryAfterSeconds: wire.retryAfterSeconds });
}

/**
 * Wraps anything thrown into a DbError; V8 allocation limits become 6000, other unknown errors
 * Internal (masked to clients).
 */
export function asDbError(err: unknown): DbError {
  if (err instanceof DbError) return err;
  const resource = resourceErrorOf(err);
  if (resource) return resource;
  return new Internal(err instanceof Error ? err.message : String(err), { cause: err });
}
