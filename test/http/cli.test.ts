/** Command line and configuration: --help, invalid values, environment overrides. */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { runServerCommand, startServer, tempDir } from '../helpers/server.js';

t.test('--help prints usage and exits 0', async (t) => {
  const res = await runServerCommand(['--help']);
  t.equal(res.code, 0);
  t.match(res.out, /--config/);
  t.match(res.out, /SHOALDB_/);
});

t.test('an invalid value stops start-up with a message naming the key', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'bad.toml');
  fs.writeFileSync(file, '[http]\nbody_limit = "64XB"\n');
  const res = await runServerCommand(['--config', file]);
  t.not(res.code, 0);
  t.match(res.out, /http\.body_limit/);
});

t.test('a missing config file stops start-up', async (t) => {
  const res = await runServerCommand(['--config', '/nonexistent/shoaldb.toml']);
  t.not(res.code, 0);
  t.match(res.out, /nonexistent/);
});

t.test('an unknown key is a warning and the server starts', async (t) => {
  const server = await startServer({ extraToml: '[http2]\nfoo = 1\n' });
  t.teardown(() => server.stop());
  t.match(server.output(), /http2/);
  t.equal((await fetch(`${server.url}/health`)).status, 200);
});

t.test('environment variables override the config file', async (t) => {
  const server = await startServer({ env: { SHOALDB_HTTP__BODY_LIMIT: '3MiB' } });
  t.teardown(() => server.stop());
  const text = await (await fetch(`${server.url}/config`)).text();
  t.match(text, /body_limit = "3MiB"/);
});

t.test('a data directory refuses a different shard count', async (t) => {
  const dataDir = tempDir();
  const first = await startServer({ dataDir, shards: 2 });
  await first.stop();
  const dir = tempDir();
  const file = path.join(dir, 'c.toml');
  fs.writeFileSync(
    file,
    `[http]\naddr = "127.0.0.1:0"\n[storage]\ndata_home = ${JSON.stringify(dataDir)}\nshards = 3\n`,
  );
  const res = await runServerCommand(['--config', file]);
  t.not(res.code, 0);
  t.match(res.out, /shards/);
});

t.test('init_regions_in_background starts serving and recovers', async (t) => {
  // Each shard's recovery takes 1.5 s more (a test-only fault point), so the server is seen
  // serving while they recover: an empty directory otherwise recovers before the first request.
  const server = await startServer({
    topLevelToml: 'init_regions_in_background = true\ninit_regions_parallelism = 1',
    env: { SHOALDB_FAULT_POINTS: 'recovery.before-open:delay:1500' },
  });
  t.teardown(() => server.stop());
  t.equal((await fetch(`${server.url}/health`)).status, 200);
  const deadline = Date.now() + 10_000;
  let status = 0;
  let refused = 0;
  while (Date.now() < deadline) {
    const res = await fetch(`${server.url}/v1/lineproto/write?db=public`, { method: 'POST', body: 'bg v=1 1' });
    status = res.status;
    if (status === 204) break;
    t.equal(status, 503, 'a shard still recovering answers 503');
    t.equal(res.headers.get('retry-after'), '1', 'and says when to try again');
    refused++;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(refused > 0, `writes were refused while the shards recovered (${refused})`);
  t.equal(status, 204);
});
