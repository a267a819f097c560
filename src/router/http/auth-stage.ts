/**
 * Stage 3 of a request (lifecycle.ts): who is asking. With a user provider configured, every path
 * that is not exempt (auth/credentials.ts) needs credentials; a failure is answered on the error
 * catalogue's `auth` family (401 with the native body, whatever the code, as GreptimeDB's auth
 * layer does), except on the event collector, whose clients expect Splunk's token errors.
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import { countRejection } from '../../shared/rejections.js';
import { extractCredentials, isAuthExempt } from '../auth/credentials.js';
import type { AuthedUser, UserProvider } from '../auth/user-provider.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from './context.js';

/** A refused login; `cause` is answered on the `auth` family unless it is already Splunk's. */
export class AuthFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('authentication failed');
    this.name = 'AuthFailed';
  }
}

/**
 * The authenticated user, or null when no provider is configured or the path is exempt. Throws
 * AuthFailed.
 */
export function authenticate(
  provider: UserProvider | null,
  route: Route,
  path: string,
  headers: ReadonlyMap<string, string>,
  query: URLSearchParams,
): AuthedUser | null {
  if (provider === null || isAuthExempt(path)) return null;
  try {
    const creds = extractCredentials(
      path,
      { authorization: headers.get('authorization'), xGreptimeAuth: headers.get('x-greptime-auth') },
      query,
    );
    return provider.authenticate(creds.username, creds.password);
  } catch (err) {
    countRejection('auth');
    throw new AuthFailed(route.errors === 'hec' ? splunkTokenError(err) : err);
  }
}

/** Splunk's answers: no credentials at all is "Token is required" (401), anything else 403. */
function splunkTokenError(err: unknown): ClientError {
  const missing = err instanceof DbError && err.code === ErrorCode.AuthHeaderNotFound;
  return missing
    ? new ClientError('HecTokenRequired', 'Token is required')
    : new ClientError('HecInvalidToken', 'Invalid token');
}
