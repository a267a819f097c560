/**
 * Where a request's error becomes its answer (lifecycle.ts), through the error catalogue. The
 * family depends on where the error arose: the handler's errors answer on the route's family;
 * those of the stages before it (limits, body, admission) on the family the catalogue gives those
 * (GreptimeDB's shapes even on protocol routes); a refused login on the `auth` family, or Splunk's
 * when the auth stage already made it one.
 */
import type { Logger } from 'pino';
import { describeError, type ErrorFamily, stageFamilyOf } from '../errors/catalogue.js';
import { errorResponse } from '../errors/error-response.js';
import { AuthFailed } from './auth-stage.js';
import type { HttpResponse, Route } from './context.js';

/** Where in the lifecycle an error arose. */
export type Stage = 'before-handler' | 'handler';

export interface FailedRequest {
  route: Route;
  stage: Stage;
  path: string;
  headers: ReadonlyMap<string, string>;
  startMs: number;
}

export function answerError(thrown: unknown, request: FailedRequest, log: Logger): HttpResponse {
  if (thrown instanceof AuthFailed) {
    const family: ErrorFamily = request.route.errors === 'hec' ? 'hec' : 'auth';
    return errorResponse(thrown.cause, family, 0);
  }
  if (describeError(thrown).unexpected) log.error({ err: thrown, path: request.path }, 'request failed');
  const family = request.stage === 'handler' ? request.route.errors : stageFamilyOf(request.route.errors);
  const elapsedMs = Math.round(performance.now() - request.startMs);
  return errorResponse(thrown, family, elapsedMs, { requestHeaders: request.headers });
}
