/**
 * One server for the subtests of a file that need nothing of their own: a server start costs
 * about a second of CPU, and the suite used to start one per subtest. Started by the first subtest
 * that asks, stopped when the file's tests have ended. Subtests sharing it must not depend on
 * each other's data: give each its own tables.
 */
import t from 'tap';
import { type StartOptions, startServer, type TestServer } from './server.js';

export function sharedServer(opts: StartOptions = {}): () => Promise<TestServer> {
  let server: Promise<TestServer> | null = null;
  return () => {
    if (server === null) {
      const started = startServer(opts);
      server = started;
      t.teardown(async () => {
        await (await started).stop();
      });
    }
    return server;
  };
}
