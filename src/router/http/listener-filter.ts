/**
 * Stage 1 of a request (lifecycle.ts): what each listener serves. The public API listener
 * (`http.api_server_addr`, reference admin §1.1) serves only `/v1` and `/dashboard`; anything else
 * is 404 there before auth or any handler runs. A server that is closing refuses what keep-alive
 * connections still send.
 */
import type { HttpResponse as UwsResponse } from 'uWebSockets.js';
import { countRejection } from '../../shared/rejections.js';
import { ClientError } from '../errors/catalogue.js';
import type { Listener } from './context.js';

/** The public API listener serves only `/v1`, `/v1/...`, `/dashboard` and `/dashboard/...`. */
export function allowedOnApiServer(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/') || path === '/dashboard' || path.startsWith('/dashboard/');
}

/** The refusal of a path its listener does not serve, or null when it serves it. */
export function listenerRefusal(listener: Listener, path: string): ClientError | null {
  if (listener === 'api' && !allowedOnApiServer(path)) return new ClientError('RouteNotFound', '');
  return null;
}

/**
 * The answer while closing, written straight to the socket: it is not a request the server
 * handles (no metrics, no CORS), and `connection: close` ends the keep-alive connection.
 */
export function refuseWhileClosing(res: UwsResponse): void {
  countRejection('shutting_down');
  res.cork(() => {
    res.writeStatus('503 Service Unavailable').writeHeader('connection', 'close').end('server is shutting down');
  });
}
