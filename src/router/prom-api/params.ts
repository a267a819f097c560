/**
 * Parameters of the Prometheus HTTP API (`/v1/metricsapi/api/v1/*`), read and validated the way
 * Prometheus' `web/api/v1/api.go` does, with Prometheus' error texts:
 *
 * - A value in the URL query wins over the same name in a POST form body; for the repeated
 *   `match[]`, the URL list is used when it is non-empty, else the form list (GreptimeDB's rule;
 *   Prometheus merges both, which only differs when a client sends both).
 * - POST bodies must be `application/x-www-form-urlencoded` (415 otherwise).
 * - Times are float Unix seconds or RFC 3339; durations are float seconds or Prometheus durations.
 */
import { parseDurationParamMs, parseTimeMs } from '../../query/promql/time-params.js';
import type { ClientError } from '../errors/catalogue.js';
import type { RequestContext } from '../http/context.js';
import { formOf } from '../http/params.js';
import { badData } from './errors.js';

/** Prometheus' `MinTime`/`MaxTime` stand-ins: an absent bound means unbounded. */
export const UNBOUNDED_START_MS = Number.NEGATIVE_INFINITY;
export const UNBOUNDED_END_MS = Number.POSITIVE_INFINITY;

/** The parameters of one request, URL first. */
export class PromParams {
  private constructor(
    private readonly url: URLSearchParams,
    private readonly form: URLSearchParams,
  ) {}

  /** Reads the URL query and, for POST, the form body (415 when the body is not a form). */
  static of(ctx: RequestContext): PromParams {
    return new PromParams(ctx.query, formOf(ctx));
  }

  /** URL parameters only (`/v1/pql` ignores bodies). */
  static urlOnly(ctx: RequestContext): PromParams {
    return new PromParams(ctx.query, new URLSearchParams());
  }

  /** The value of `name`, or '' when absent (Go's `FormValue`). */
  get(name: string): string {
    return this.url.get(name) ?? this.form.get(name) ?? '';
  }

  has(name: string): boolean {
    return this.url.has(name) || this.form.has(name);
  }

  /** Every value of a repeated parameter: the URL list if non-empty, else the form list. */
  all(name: string): string[] {
    const fromUrl = this.url.getAll(name);
    return fromUrl.length > 0 ? fromUrl : this.form.getAll(name);
  }
}

/** `invalid parameter "<name>": <detail>`, Prometheus' `invalidParamError`. */
export function invalidParameter(name: string, detail: string): ClientError {
  return badData(`invalid parameter "${name}": ${detail}`);
}

/** A time parameter with a default when absent: `invalid time value for '<name>': ...` otherwise. */
export function timeParamMs(params: PromParams, name: string, defaultMs: number): number {
  const text = params.get(name);
  if (text === '') return defaultMs;
  try {
    return parseTimeMs(text);
  } catch (err) {
    throw invalidParameter(name, `invalid time value for '${name}': ${(err as Error).message}`);
  }
}

/** A required time parameter (query_range's `start`/`end`). */
export function requiredTimeParamMs(params: PromParams, name: string): number {
  try {
    return parseTimeMs(params.get(name));
  } catch (err) {
    throw invalidParameter(name, (err as Error).message);
  }
}

/** A duration parameter; null when absent. */
export function durationParamMs(params: PromParams, name: string): number | null {
  const text = params.get(name);
  if (text === '') return null;
  try {
    return parseDurationParamMs(text);
  } catch (err) {
    throw invalidParameter(name, (err as Error).message);
  }
}

/** Prometheus' `parseLimitParam`: 0 (or absent) means no limit. */
export function limitParam(params: PromParams): number {
  const text = params.get('limit');
  if (text === '') return 0;
  // Go's strconv.Atoi: optional sign, decimal digits, nothing else.
  if (!/^[+-]?\d+$/.test(text)) {
    throw invalidParameter('limit', `strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  }
  if (!Number.isSafeInteger(Number(text))) {
    throw invalidParameter('limit', `strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  }
  const limit = Number(text);
  if (limit < 0) throw invalidParameter('limit', 'limit must be non-negative');
  return limit;
}
