/**
 * The two HTTP listeners on uWebSockets.js (reference admin §1.1): the main one, and the public
 * API one when `http.enable_api_server` is set. Both hand every request to the one lifecycle
 * (lifecycle.ts); this module only listens, counts requests in flight, and stops accepting on
 * close.
 */

import type { TemplatedApp } from 'uWebSockets.js';
import uWS from 'uWebSockets.js';
import type { Listener, Route } from './context.js';
import { handleRequest, type LifecycleDeps } from './lifecycle.js';
import { refuseWhileClosing } from './listener-filter.js';
import { RouteTable } from './route-table.js';

export interface ServerDeps extends LifecycleDeps {
  routes: Route[];
}

export interface RunningServer {
  mainPort: number;
  apiPort: number | null;
  /** Stops accepting (new connections and new requests on open ones); in-flight requests finish. */
  close(): void;
  /** Requests currently being handled. */
  inFlight(): number;
}

function splitAddr(addr: string): { host: string; port: number } {
  const at = addr.lastIndexOf(':');
  return { host: addr.slice(0, at), port: Number(addr.slice(at + 1)) };
}

export async function startHttpServer(deps: ServerDeps): Promise<RunningServer> {
  if (typeof uWS.getParts !== 'function') {
    throw new Error('uWebSockets.js native binary is missing: run on Node.js 20 with the pinned package');
  }
  const table = new RouteTable(deps.routes);
  let inFlight = 0;
  let closed = false;
  const listenSockets: unknown[] = [];

  const makeApp = (listener: Listener): TemplatedApp => {
    const app = uWS.App();
    app.any('/*', (res, req) => {
      // Keep-alive connections outlive the listen socket: refuse what they send once closing.
      if (closed) {
        refuseWhileClosing(res);
        return;
      }
      inFlight++;
      handleRequest(res, req, listener, table, deps).finally(() => {
        inFlight--;
      });
    });
    return app;
  };

  const listen = (app: TemplatedApp, addr: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const { host, port } = splitAddr(addr);
      // Literal 1 = LIBUS_LISTEN_EXCLUSIVE_PORT: without it a second server on the port also "succeeds".
      (app as unknown as { listen: (h: string, p: number, o: number, cb: (t: unknown) => void) => void }).listen(
        host,
        port,
        1,
        (token) => {
          if (!token) {
            reject(new Error(`cannot listen on ${addr}`));
            return;
          }
          listenSockets.push(token);
          resolve(uWS.us_socket_local_port(token as never));
        },
      );
    });

  const mainPort = await listen(makeApp('main'), deps.config.http.addr);
  let apiPort: number | null = null;
  if (deps.config.http.enableApiServer) apiPort = await listen(makeApp('api'), deps.config.http.apiServerAddr);

  return {
    mainPort,
    apiPort,
    close() {
      closed = true;
      for (const s of listenSockets) uWS.us_listen_socket_close(s as never);
      listenSockets.length = 0;
    },
    inFlight: () => inFlight,
  };
}
