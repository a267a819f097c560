#!/usr/bin/env node
/**
 * ShoalDB entry point: configuration, logger, the app, and signal handling. With no arguments it
 * runs on its embedded defaults (127.0.0.1:4000, data in ./data).
 */
import { setFlagsFromString } from 'node:v8';
import pino from 'pino';
import type { RunningApp } from './router/app.js';
import { startShardThreads } from './router/shard-threads.js';
import { ConfigError, loadConfig } from './shared/config-load.js';

/**
 * V8 flags for every thread; set before the shard workers' isolates exist. Allocation-site
 * pretenuring sees a request's parsed points and parts survive a scavenge or two (they live as
 * long as the request, which spans several) and then allocates them straight into the old
 * generation, where they die as garbage only a full mark-compact frees: with it off, line protocol
 * with one field a row ran 15-20% faster and peaked 70-140 MiB lower (bench/RESULTS.md).
 * The young generation keeps V8's size: 4 MiB semi-spaces lowered metric ingest's peak RSS by
 * 60-130 MiB but cost pipeline log ingest 30% of its rate (a request's lines survive scavenges).
 */
setFlagsFromString('--no-allocation-site-pretenuring');
/**
 * The old generation may grow to 4× what survived the last mark-compact (V8 picks 1.1× here, as
 * its collector is fast next to what a shard allocates). A shard's heap is small (about 30 MiB)
 * and what ingest promotes dies soon, so at 1.1× each shard ran a full mark-compact every 150 ms
 * or so, and V8's helper threads spent 40% of a core marking; at 4× a handful in 10 s, and
 * metric ingest took 10-20% less CPU a sample for 20-50 MiB more peak RSS (bench/RESULTS.md).
 */
setFlagsFromString('--heap-growing-percent=300');
/**
 * `gc()` in the shard isolates (created after this line): a shard collects once a flush has
 * retired its memtable, since at 4× growth its buffers would otherwise wait for the next
 * mark-compact (src/shard/retired-memory.ts). Nothing else calls it.
 */
setFlagsFromString('--expose-gc');

async function main(): Promise<void> {
  const warnings: string[] = [];
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(process.argv.slice(2), process.env, (msg) => warnings.push(msg));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`shoaldb: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (loaded.help !== undefined) {
    process.stdout.write(loaded.help);
    process.exit(0);
  }
  const { config } = loaded;
  const log = pino({ name: 'shoaldb', level: config.logging.level === 'off' ? 'silent' : config.logging.level });
  for (const w of warnings) log.warn(w);

  // The shard threads load their modules on the other core while this thread loads the router's.
  const threads = startShardThreads(config.storage.shards);
  const { startApp } = await import('./router/app.js');
  let app: RunningApp;
  try {
    app = await startApp(config, log, threads);
  } catch (err) {
    // A bad user_provider (missing users file, malformed entry) is a configuration error too.
    if (err instanceof ConfigError) {
      process.stderr.write(`shoaldb: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`shoaldb: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
