import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import t, { type Test } from 'tap';
import { type Config, defaultConfig, memtableDefaults } from '../../src/shared/config.js';
import { ConfigError, configKeys, configToToml, loadConfig, redactUserProvider } from '../../src/shared/config-load.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Loads with a config file holding `toml`, collecting warnings. */
function loadToml(t: Test, toml: string, env: NodeJS.ProcessEnv = {}): { config: Config; warnings: string[] } {
  const dir = t.testdir({ 'shoaldb.toml': toml });
  const warnings: string[] = [];
  const { config } = loadConfig(['--config', path.join(dir, 'shoaldb.toml')], env, (m) => warnings.push(m));
  return { config, warnings };
}

function loadError(t: Test, toml: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadToml(t, toml, env);
  } catch (err) {
    t.type(err, ConfigError);
    return (err as Error).message;
  }
  t.fail('expected a ConfigError');
  return '';
}

t.test('starts from the defaults when there is no file and no environment', async (t) => {
  const warnings: string[] = [];
  const { config, help } = loadConfig([], {}, (m) => warnings.push(m));
  t.same(config, defaultConfig());
  t.equal(help, undefined);
  t.same(warnings, []);
  t.equal(config.http.addr, '127.0.0.1:4000');
  t.equal(config.http.timeoutMs, 0);
  t.equal(config.http.bodyLimitBytes, 64 * 1024 * 1024);
  t.equal(config.initRegionsParallelism, 16);
  t.equal(config.userProvider, undefined);
  t.ok(config.storage.shards >= 1 && config.storage.shards <= 64);
});

t.test('maps every snake_case file key onto the typed config', async (t) => {
  const { config, warnings } = loadToml(
    t,
    `
enable_telemetry = false
user_provider = "static_user_provider:file:/etc/users"
init_regions_in_background = true
init_regions_parallelism = 4
max_in_flight_write_bytes = "1MiB"
write_bytes_exhausted_policy = "wait(2s)"
max_concurrent_queries = 7

[http]
addr = "0.0.0.0:5000"
timeout = "1m 30s"
body_limit = "512KB"
is_strict_mode = true
enable_api_server = true
api_server_addr = "[::1]:5006"
enable_cors = false

[storage]
data_home = "/var/lib/shoaldb"
shards = 3
retention_check_interval = "30s"

[wal]
sync_mode = "none"
segment_size = "32MB"

[ingest]
line_max_bytes = "64KiB"
shard_queue_size = "0"
key_refs = 1000

[memtable]
flush_size = 1048576
reject_size = "8MiB"

[segment]
block_rows = 4096
compaction_trigger = 8
page_cache_size = "32MiB"
verify_on_open = false

[query]
memory_limit = "2GiB"
range_max_rows = 5000
max_points_per_series = 500
max_samples = 1000
max_series = 0

[hec]
ack_enabled = true
ack_max_channels = 5

[logging]
level = "debug"

[tracing]
endpoint = "http://collector:4318/v1/traces"
sample_ratio = 0.5

[debug]
heap_profiling = true
`,
  );
  t.same(warnings, []);
  t.same(config, {
    enableTelemetry: false,
    userProvider: 'static_user_provider:file:/etc/users',
    initRegionsInBackground: true,
    initRegionsParallelism: 4,
    maxInFlightWriteBytes: 1024 * 1024,
    writeBytesExhaustedPolicy: { kind: 'wait', waitMs: 2000 },
    maxConcurrentQueries: 7,
    http: {
      addr: '0.0.0.0:5000',
      timeoutMs: 90_000,
      bodyLimitBytes: 512 * 1024,
      isStrictMode: true,
      enableApiServer: true,
      apiServerAddr: '[::1]:5006',
      enableCors: false,
    },
    storage: { dataHome: '/var/lib/shoaldb', shards: 3, retentionCheckIntervalMs: 30_000 },
    wal: { syncMode: 'none', segmentBytes: 32 * 1024 * 1024 },
    ingest: { lineMaxBytes: 64 * 1024, shardQueueBytes: 0, keyRefs: 1000 },
    memtable: { flushBytes: 1024 * 1024, rejectBytes: 8 * 1024 * 1024 },
    segment: { blockRows: 4096, compactionTrigger: 8, pageCacheBytes: 32 * 1024 * 1024, verifyOnOpen: false },
    query: {
      memoryLimitBytes: 2 * 1024 * 1024 * 1024,
      sliceMs: 5,
      shareUnderWritesPercent: 12,
      rangeMaxRows: 5000,
      maxPointsPerSeries: 500,
      maxSamples: 1000,
      maxSeries: 0,
      timeoutMs: 120_000,
    },
    hec: { ackEnabled: true, ackMaxChannels: 5, ackMaxPendingPerChannel: 100_000, ackMaxPending: 1_000_000 },
    logging: { level: 'debug' },
    tracing: { endpoint: 'http://collector:4318/v1/traces', enabled: false, sampleRatio: 0.5 },
    debug: { heapProfiling: true },
  });
});

t.test('keeps defaults for keys the file does not mention', async (t) => {
  const { config } = loadToml(t, '[http]\ntimeout = "30s"\n');
  const expected = defaultConfig();
  expected.http.timeoutMs = 30_000;
  t.same(config, expected);
});

t.test('accepts -c FILE and --config=FILE as well as --config FILE', async (t) => {
  const dir = t.testdir({ 'a.toml': '[storage]\nshards = 2\n' });
  const file = path.join(dir, 'a.toml');
  for (const argv of [['-c', file], [`--config=${file}`], ['--config', file]]) {
    t.equal(loadConfig(argv, {}, () => {}).config.storage.shards, 2, argv.join(' '));
  }
});

t.test('applies SHOALDB_ environment overrides, typed per key', async (t) => {
  const { config, warnings } = loadToml(t, '', {
    SHOALDB_HTTP__ADDR: '127.0.0.1:5000',
    SHOALDB_STORAGE__SHARDS: '2',
    SHOALDB_ENABLE_TELEMETRY: 'false',
    SHOALDB_USER_PROVIDER: 'static_user_provider:cmd:admin=pw',
    SHOALDB_HTTP__BODY_LIMIT: '0',
    SHOALDB_HTTP__TIMEOUT: '30s',
    SHOALDB_HTTP__ENABLE_CORS: 'FALSE',
    SHOALDB_WAL__SYNC_MODE: 'none',
    SHOALDB_INIT_REGIONS_PARALLELISM: '8',
    PATH: '/usr/bin',
  });
  t.same(warnings, []);
  t.equal(config.http.addr, '127.0.0.1:5000');
  t.equal(config.storage.shards, 2);
  t.equal(config.enableTelemetry, false);
  t.equal(config.userProvider, 'static_user_provider:cmd:admin=pw');
  t.equal(config.http.bodyLimitBytes, 0);
  t.equal(config.http.timeoutMs, 30_000);
  t.equal(config.http.enableCors, false);
  t.equal(config.wal.syncMode, 'none');
  t.equal(config.initRegionsParallelism, 8);
});

t.test('lets the environment win over the file', async (t) => {
  const { config } = loadToml(t, '[http]\naddr = "127.0.0.1:4100"\ntimeout = "5s"\n', {
    SHOALDB_HTTP__ADDR: '127.0.0.1:4200',
  });
  t.equal(config.http.addr, '127.0.0.1:4200', 'environment wins');
  t.equal(config.http.timeoutMs, 5000, 'file value kept where the environment is silent');
});

t.test('turns authentication off with an empty SHOALDB_USER_PROVIDER', async (t) => {
  const { config } = loadToml(t, 'user_provider = "static_user_provider:file:/x"\n', { SHOALDB_USER_PROVIDER: '' });
  t.equal(config.userProvider, undefined);
});

t.test('warns about unknown file keys with their full dotted name and ignores them', async (t) => {
  const { config, warnings } = loadToml(
    t,
    `
auto_create_table = true
[http]
cors_allowed_origins = []
[grpc]
bind_addr = "127.0.0.1:4001"
[grpc.tls]
mode = "disable"
[[region_engine]]
[region_engine.mito]
num_workers = 8
`,
  );
  t.same(config, defaultConfig());
  t.same(warnings, [
    'unknown configuration key auto_create_table ignored',
    'unknown configuration key http.cors_allowed_origins ignored',
    'unknown configuration key grpc.bind_addr ignored',
    'unknown configuration key grpc.tls.mode ignored',
    'unknown configuration key region_engine ignored',
  ]);
});

t.test('warns about unknown SHOALDB_ environment variables', async (t) => {
  const { warnings } = loadToml(t, '', { SHOALDB_HTTP_ADDR: 'x', SHOALDB_GRPC__BIND_ADDR: 'y', SHOALDB_A__B__C: 'z' });
  t.equal(warnings.length, 3);
  t.match(warnings[0], /SHOALDB_A__B__C/);
  t.match(warnings[1], /SHOALDB_GRPC__BIND_ADDR/);
  t.match(warnings[2], /SHOALDB_HTTP_ADDR/);
});

t.test('names the dotted key and the bad value for every invalid file value', async (t) => {
  const cases: [string, string][] = [
    ['enable_telemetry = "yes"', 'invalid value for enable_telemetry: "yes" (expected true or false)'],
    ['init_regions_in_background = 1', 'invalid value for init_regions_in_background: 1 (expected true or false)'],
    [
      'init_regions_parallelism = 0',
      'invalid value for init_regions_parallelism: 0 (expected an integer from 1 to 1024)',
    ],
    ['init_regions_parallelism = -3', 'invalid value for init_regions_parallelism: -3'],
    ['init_regions_parallelism = "16"', 'invalid value for init_regions_parallelism: "16"'],
    ['user_provider = "ldap:x"', 'invalid value for user_provider: "ldap:<redacted>"'],
    ['user_provider = 5', 'invalid value for user_provider: 5'],
    [
      '[http]\naddr = "localhost"',
      'invalid value for http.addr: "localhost" (expected an address like "127.0.0.1:4000")',
    ],
    ['[http]\naddr = "127.0.0.1:70000"', 'invalid value for http.addr: "127.0.0.1:70000"'],
    ['[http]\naddr = ":4000"', 'invalid value for http.addr: ":4000"'],
    [
      '[http]\ntimeout = "30"',
      'invalid value for http.timeout: "30" (expected a duration like "30s", "500ms" or "1m 30s")',
    ],
    ['[http]\ntimeout = 30', 'invalid value for http.timeout: 30'],
    ['[http]\nbody_limit = "64XB"', 'invalid value for http.body_limit: "64XB" (expected a size like "64MiB")'],
    ['[http]\nbody_limit = -1', 'invalid value for http.body_limit: -1'],
    ['[http]\nis_strict_mode = "false"', 'invalid value for http.is_strict_mode: "false"'],
    ['[http]\nenable_api_server = 0', 'invalid value for http.enable_api_server: 0'],
    ['[http]\napi_server_addr = "nowhere"', 'invalid value for http.api_server_addr: "nowhere"'],
    ['[http]\nenable_cors = "on"', 'invalid value for http.enable_cors: "on"'],
    ['[storage]\ndata_home = ""', 'invalid value for storage.data_home: "" (expected a non-empty string)'],
    ['[storage]\nshards = 0', 'invalid value for storage.shards: 0 (expected an integer from 1 to 64)'],
    ['[storage]\nshards = 65', 'invalid value for storage.shards: 65 (expected an integer from 1 to 64)'],
    ['[storage]\nshards = 1.5', 'invalid value for storage.shards: 1.5'],
    ['[wal]\nsync_mode = "always"', 'invalid value for wal.sync_mode: "always" (expected one of "fsync", "none")'],
    ['[wal]\nsegment_size = "0"', 'invalid value for wal.segment_size: "0" (expected a non-zero size like "64MiB")'],
    ['[memtable]\nflush_size = 0', 'invalid value for memtable.flush_size: 0 (expected a non-zero size like "64MiB")'],
    [
      '[memtable]\nflush_size = "64MiB"\nreject_size = "32MiB"',
      'invalid value for memtable.reject_size: must be above memtable.flush_size (or "0" for unbounded)',
    ],
    ['[ingest]\nline_max_bytes = "0"', 'invalid value for ingest.line_max_bytes: "0" (expected a non-zero size'],
    ['[query]\nmax_points_per_series = 0', 'invalid value for query.max_points_per_series: 0 (expected an integer'],
    ['[query]\nmax_samples = 0', 'invalid value for query.max_samples: 0 (expected an integer'],
    ['[segment]\nblock_rows = 0', 'invalid value for segment.block_rows: 0 (expected an integer from 1 to 1048576)'],
    [
      '[segment]\ncompaction_trigger = 1',
      'invalid value for segment.compaction_trigger: 1 (expected an integer from 2 to 1024)',
    ],
    ['[logging]\nlevel = "loud"', 'invalid value for logging.level: "loud" (expected one of "fatal", "error"'],
    [
      '[tracing]\nendpoint = "collector:4318"',
      'invalid value for tracing.endpoint: "collector:4318" (expected "", "self"',
    ],
    ['[tracing]\nsample_ratio = 2', 'invalid value for tracing.sample_ratio: 2 (expected a number from 0 to 1)'],
    ['http = 5', 'invalid value for http: 5 (expected a [http] table)'],
    ['[http]\naddr = ["127.0.0.1:4000"]', 'invalid value for http.addr: ["127.0.0.1:4000"]'],
  ];
  for (const [toml, message] of cases) {
    const got = loadError(t, toml);
    t.ok(got.startsWith(message), `${JSON.stringify(toml)} → ${got}`);
  }
});

t.test('names the key, the value and the variable for an invalid environment value', async (t) => {
  const got = loadError(t, '', { SHOALDB_STORAGE__SHARDS: 'many' });
  t.equal(
    got,
    'invalid value for storage.shards: "many" (expected an integer from 1 to 64) in environment variable SHOALDB_STORAGE__SHARDS',
  );
  t.match(loadError(t, '', { SHOALDB_ENABLE_TELEMETRY: 'yes' }), /^invalid value for enable_telemetry: "yes"/);
  t.match(loadError(t, '', { SHOALDB_HTTP__BODY_LIMIT: '64XB' }), /^invalid value for http.body_limit: "64XB"/);
  t.match(loadError(t, '', { SHOALDB_HTTP__TIMEOUT: '10' }), /^invalid value for http.timeout: "10"/);
  t.match(loadError(t, '', { SHOALDB_STORAGE__SHARDS: '99' }), /^invalid value for storage.shards: "99"/);
});

t.test('never shows an inline password in an error message', async (t) => {
  const got = loadError(t, 'user_provider = "static_user_provider:cnd:admin=hunter2"');
  t.notMatch(got, /hunter2/);
  t.match(got, /^invalid value for user_provider: "static_user_provider:<redacted>"/);
});

t.test('rejects the public listener on the main listener address', async (t) => {
  const got = loadError(t, '[http]\nenable_api_server = true\napi_server_addr = "127.0.0.1:4000"\n');
  t.match(got, /^invalid value for http.api_server_addr: "127.0.0.1:4000" \(must differ from http.addr\)/);
});

t.test('reports unparsable TOML with its line and column', async (t) => {
  const got = loadError(t, 'enable_telemetry = true\n[http]\naddr = = "x"\n');
  t.match(got, /^invalid TOML in .*shoaldb\.toml at line 3, column \d+: /);
});

t.test('reports a missing config file by its path', async (t) => {
  const missing = path.join(t.testdir({}), 'nope.toml');
  t.throws(() => loadConfig(['--config', missing], {}, () => {}), {
    name: 'ConfigError',
    message: `config file not found: ${missing}`,
  });
});

t.test('rejects unknown arguments and a --config without a path', async (t) => {
  t.throws(() => loadConfig(['--port', '4000'], {}, () => {}), {
    name: 'ConfigError',
    message: 'unknown command-line argument: --port (try --help)',
  });
  t.throws(() => loadConfig(['--config'], {}, () => {}), { name: 'ConfigError', message: /needs a file path/ });
  t.throws(() => loadConfig(['--config='], {}, () => {}), { name: 'ConfigError', message: /needs a file path/ });
});

t.test('answers --help and -h with options, environment syntax and every key with its default', async (t) => {
  for (const flag of ['--help', '-h']) {
    const { help, config } = loadConfig([flag, '--bogus'], {}, () => {});
    t.same(config, defaultConfig());
    t.type(help, 'string');
    const text = help ?? '';
    t.match(text, /--config FILE/);
    t.match(text, /SHOALDB_<SECTION>__<KEY>/);
    for (const { key, env } of configKeys()) {
      t.ok(text.includes(key), `mentions ${key}`);
      t.ok(text.includes(env), `mentions ${env}`);
    }
    t.match(text, /http\.body_limit\s+"64MiB"/);
    t.match(text, /http\.timeout\s+"0s"/);
  }
});

t.test('prints /config TOML in GreptimeDB order with humantime durations and binary sizes', async (t) => {
  const config = defaultConfig();
  config.storage.shards = 4;
  const text = configToToml(config);
  t.equal(
    text,
    `enable_telemetry = true
init_regions_in_background = false
init_regions_parallelism = 16
max_in_flight_write_bytes = "512MiB"
write_bytes_exhausted_policy = "wait"
max_concurrent_queries = 32

[http]
addr = "127.0.0.1:4000"
timeout = "0s"
body_limit = "64MiB"
is_strict_mode = false
enable_api_server = false
api_server_addr = "127.0.0.1:4006"
enable_cors = true

[storage]
data_home = "./data"
shards = 4
retention_check_interval = "1m"

[wal]
sync_mode = "fsync"
segment_size = "128MiB"

[ingest]
line_max_bytes = "1MiB"
shard_queue_size = "256MiB"
key_refs = 262144

[memtable]
flush_size = "64MiB"
reject_size = "512MiB"

[segment]
block_rows = 8192
compaction_trigger = 4
page_cache_size = "256MiB"
verify_on_open = true

[query]
memory_limit = "1GiB"
slice_time = "5ms"
share_under_writes = 12
range_max_rows = 1000000
max_points_per_series = 11000
max_samples = 50000000
max_series = 1000000
timeout = "2m"

[hec]
ack_enabled = false
ack_max_channels = 10000
ack_max_pending_per_channel = 100000
ack_max_pending = 1000000

[logging]
level = "info"

[tracing]
endpoint = ""
enabled = false
sample_ratio = 1

[debug]
heap_profiling = false
`,
  );
  t.notMatch(text, /user_provider/, 'an unset user_provider is omitted');
});

t.test('round-trips the effective configuration through /config TOML', async (t) => {
  const config = defaultConfig();
  config.enableTelemetry = false;
  config.userProvider = 'watch_file_user_provider:/etc/shoaldb/users';
  config.http.timeoutMs = 90_000;
  config.http.bodyLimitBytes = 1000;
  config.http.addr = '[::1]:0';
  config.storage.dataHome = 'C:\\data "quoted"';
  config.wal.segmentBytes = 3 * 1024;
  const text = configToToml(config);
  const doc = parse(text) as Record<string, Record<string, unknown>>;
  t.equal(doc.user_provider, 'watch_file_user_provider:/etc/shoaldb/users', 'file providers print the path');
  t.equal(doc.http?.timeout, '1m 30s');
  t.equal(doc.http?.body_limit, 1000, 'a size that is no whole KiB is a bare integer');
  t.equal(doc.wal?.segment_size, '3KiB');

  const dir = t.testdir({ 'round.toml': text });
  const warnings: string[] = [];
  const back = loadConfig(['-c', path.join(dir, 'round.toml')], {}, (m) => warnings.push(m)).config;
  t.same(warnings, []);
  t.same(back, config);
});

t.test('redacts inline cmd passwords in /config and keeps file paths', async (t) => {
  const config = defaultConfig();
  config.userProvider = 'static_user_provider:cmd:admin=hunter2,reader:ro=pw2';
  const text = configToToml(config);
  t.notMatch(text, /hunter2|pw2/);
  t.match(text, /^user_provider = "static_user_provider:cmd:<redacted>"$/m);
  t.equal(redactUserProvider('static_user_provider:file:/etc/users'), 'static_user_provider:file:/etc/users');
  t.equal(redactUserProvider('watch_file_user_provider:/etc/users'), 'watch_file_user_provider:/etc/users');
});

t.test('ships an example file that equals the defaults', async (t) => {
  const file = path.join(repoRoot, 'config/shoaldb.example.toml');
  const warnings: string[] = [];
  const { config } = loadConfig(['--config', file], {}, (m) => warnings.push(m));
  t.same(warnings, []);
  t.same(config, defaultConfig());
  // Every key appears (shards and user_provider commented out), each with a comment line above it.
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (const { key } of configKeys()) {
    const name = key.includes('.') ? key.slice(key.indexOf('.') + 1) : key;
    const index = lines.findIndex((line) => new RegExp(`^(# )?${name} = `).test(line));
    t.ok(index > 0, `example mentions ${key}`);
    t.match(lines[index - 1] ?? '', /^#/, `${key} has a comment`);
  }
});

t.test('memtable bounds follow the machine and the shard count unless set', async (t) => {
  const MIB = 1024 * 1024;
  const GIB = 1024 * MIB;
  // An eighth of memory over the shards, from 64 MiB to 512 MiB a shard; flush at an eighth of it.
  t.same(memtableDefaults(24 * GIB, 2), { rejectBytes: 512 * MIB, flushBytes: 64 * MIB });
  t.same(memtableDefaults(4 * GIB, 2), { rejectBytes: 256 * MIB, flushBytes: 32 * MIB });
  t.same(memtableDefaults(1 * GIB, 4), { rejectBytes: 64 * MIB, flushBytes: 8 * MIB });
  t.same(memtableDefaults(24 * GIB, 2, { flushBytes: 300 * MIB }), { rejectBytes: 600 * MIB, flushBytes: 300 * MIB });
  t.same(memtableDefaults(24 * GIB, 2, { rejectBytes: 0 }), { rejectBytes: 0, flushBytes: 64 * MIB });
  t.same(memtableDefaults(24 * GIB, 2, { rejectBytes: 128 * MIB }), { rejectBytes: 128 * MIB, flushBytes: 16 * MIB });

  // Through the loader: the shard count a file sets is the one the bounds are divided by.
  const sixteen = loadToml(t, '[storage]\nshards = 16\n').config.memtable;
  t.same(sixteen, memtableDefaults(os.totalmem(), 16));
  const flushOnly = loadToml(t, '[memtable]\nflush_size = "1GiB"\n').config.memtable;
  t.equal(flushOnly.flushBytes, GIB, 'a given flush size is kept');
  t.ok(flushOnly.rejectBytes >= 2 * GIB, 'and the derived bound makes room for it instead of refusing to start');
  const both = loadToml(t, '', { SHOALDB_MEMTABLE__REJECT_SIZE: '96MiB' }).config.memtable;
  t.same(both, { rejectBytes: 96 * MIB, flushBytes: 12 * MIB }, 'the environment counts as setting a key');
});
