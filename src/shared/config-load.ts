/**
 * Loading the configuration: defaults → TOML file (`--config`) → `SHOALDB_*` environment overrides,
 * validating every value on the way, and writing the effective configuration back as TOML for
 * `GET /config`.
 *
 * One table, `KEYS`, drives all of it (file keys, environment names, `--help`, `/config` output), so
 * adding a key means adding one entry there plus its field and default in `config.ts`.
 */
import os from 'node:os';
import { stringify, TomlDate } from 'smol-toml';
import {
  BLOCK_ROWS_MAX,
  type Config,
  defaultConfig,
  INIT_REGIONS_PARALLELISM_MAX,
  LOG_LEVELS,
  memtableDefaults,
  SHARDS_MAX,
  type WalSyncMode,
  type WriteBytesExhaustedPolicy,
} from './config.js';
import { ConfigError, readDocument } from './config-file.js';
import { formatDuration, sizeTomlValue, tryDurationMs, trySizeBytes } from './size-duration.js';

export { ConfigError } from './config-file.js';

/** Prefix of environment overrides: `SHOALDB_<SECTION>__<KEY>` or `SHOALDB_<TOP_LEVEL_KEY>`. */
export const ENV_PREFIX = 'SHOALDB_';

/** How one kind of value is read from TOML and from an environment string, and written back. */
interface Kind<T> {
  /** Completes "expected ..." in error messages. */
  expected: string;
  fromToml(raw: unknown): T | undefined;
  fromEnv(text: string): T | undefined;
  toToml(value: T): string | number | boolean;
}

const bool: Kind<boolean> = {
  expected: 'true or false',
  fromToml: (raw) => (typeof raw === 'boolean' ? raw : undefined),
  fromEnv: (text) => {
    const lower = text.trim().toLowerCase();
    return lower === 'true' ? true : lower === 'false' ? false : undefined;
  },
  toToml: (value) => value,
};

function int(min: number, max: number): Kind<number> {
  const check = (n: number): number | undefined => (Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined);
  return {
    expected: `an integer from ${min} to ${max}`,
    fromToml: (raw) => (typeof raw === 'number' ? check(raw) : undefined),
    fromEnv: (text) => (/^\s*[+-]?\d+\s*$/.test(text) ? check(Number(text)) : undefined),
    toToml: (value) => value,
  };
}

/** Sizes: a string such as `"64MiB"` or a non-negative TOML integer of bytes. */
function size(minBytes: number): Kind<number> {
  const check = (n: number | undefined): number | undefined => (n !== undefined && n >= minBytes ? n : undefined);
  return {
    expected: minBytes > 0 ? 'a non-zero size like "64MiB"' : 'a size like "64MiB"',
    fromToml: (raw) =>
      typeof raw === 'string'
        ? check(trySizeBytes(raw))
        : typeof raw === 'number' && Number.isSafeInteger(raw)
          ? check(raw >= 0 ? raw : undefined)
          : undefined,
    fromEnv: (text) => check(trySizeBytes(text)),
    toToml: sizeTomlValue,
  };
}

const duration: Kind<number> = {
  expected: 'a duration like "30s", "500ms" or "1m 30s"',
  fromToml: (raw) => (typeof raw === 'string' ? tryDurationMs(raw) : undefined),
  fromEnv: (text) => tryDurationMs(text),
  toToml: formatDuration,
};

/** `host:port`: a DNS name or IPv4 address, or a bracketed IPv6 address; port 0 asks for any. */
const ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

function parseAddress(text: string): string | undefined {
  const match = ADDRESS.exec(text);
  return match !== null && Number(match[3]) <= 65535 ? text : undefined;
}

const address: Kind<string> = {
  expected: 'an address like "127.0.0.1:4000"',
  fromToml: (raw) => (typeof raw === 'string' ? parseAddress(raw) : undefined),
  fromEnv: parseAddress,
  toToml: (value) => value,
};

/** `"wait"` (10 s), `"wait(<duration>)"` or `"fail"`, as GreptimeDB spells them. */
function parseWritePolicy(text: string): WriteBytesExhaustedPolicy | undefined {
  const t = text.trim();
  if (t === 'fail') return { kind: 'fail' };
  if (t === 'wait') return { kind: 'wait', waitMs: 10_000 };
  const m = /^wait\((.+)\)$/.exec(t);
  if (!m) return undefined;
  const waitMs = tryDurationMs((m[1] as string).trim());
  return waitMs === undefined ? undefined : { kind: 'wait', waitMs };
}

const writePolicy: Kind<WriteBytesExhaustedPolicy> = {
  expected: '"wait", "wait(<duration>)" or "fail"',
  fromToml: (raw) => (typeof raw === 'string' ? parseWritePolicy(raw) : undefined),
  fromEnv: parseWritePolicy,
  toToml: (p) => (p.kind === 'fail' ? 'fail' : p.waitMs === 10_000 ? 'wait' : `wait(${formatDuration(p.waitMs)})`),
};

const nonEmptyString: Kind<string> = {
  expected: 'a non-empty string',
  fromToml: (raw) => (typeof raw === 'string' && raw !== '' ? raw : undefined),
  fromEnv: (text) => (text !== '' ? text : undefined),
  toToml: (value) => value,
};

/** `tracing.endpoint`: "" (none), "self" (our own listener) or an http(s) URL. */
function parseTraceEndpoint(text: string): string | undefined {
  if (text === '' || text === 'self') return text;
  return /^https?:\/\/[^\s/]+(\/\S*)?$/.test(text) ? text : undefined;
}

const traceEndpoint: Kind<string> = {
  expected: '"", "self" or an http(s) URL',
  fromToml: (raw) => (typeof raw === 'string' ? parseTraceEndpoint(raw) : undefined),
  fromEnv: parseTraceEndpoint,
  toToml: (value) => value,
};

/** A fraction from 0 to 1 (TOML integer or float). */
const ratio: Kind<number> = {
  expected: 'a number from 0 to 1',
  fromToml: (raw) => (typeof raw === 'number' && raw >= 0 && raw <= 1 ? raw : undefined),
  fromEnv: (text) => {
    const n = text.trim() === '' ? Number.NaN : Number(text);
    return n >= 0 && n <= 1 ? n : undefined;
  },
  toToml: (value) => value,
};

function oneOf<T extends string>(values: readonly T[]): Kind<T> {
  const pick = (raw: unknown): T | undefined => values.find((value) => value === raw);
  return {
    expected: `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`,
    fromToml: pick,
    fromEnv: (text) => pick(text.trim()),
    toToml: (value) => value,
  };
}

const USER_PROVIDER_FORMS =
  '"static_user_provider:cmd:<user>=<pwd>[,...]", "static_user_provider:file:<path>" or "watch_file_user_provider:<path>"';

function parseUserProvider(text: string): string | undefined {
  return /^(static_user_provider:(cmd|file):|watch_file_user_provider:)./s.test(text) ? text : undefined;
}

/** `user_provider`; an empty string means "unset", so an environment variable can turn auth off. */
const userProvider: Kind<string | undefined> = {
  expected: USER_PROVIDER_FORMS,
  fromToml: (raw) => (typeof raw === 'string' ? (raw === '' ? undefined : parseUserProvider(raw)) : undefined),
  fromEnv: (text) => (text === '' ? undefined : parseUserProvider(text)),
  toToml: (value) => redactUserProvider(value ?? ''),
};

/** Whether `fromToml`/`fromEnv` returned "unset" on purpose rather than "invalid". */
function isDeliberatelyUnset(key: string, raw: unknown): boolean {
  return key === 'user_provider' && raw === '';
}

/**
 * `user_provider` as it may be shown: inline `cmd:` entries carry passwords, so everything after
 * `cmd:` is replaced (a deliberate deviation: GreptimeDB prints it verbatim). File paths stay.
 */
export function redactUserProvider(spec: string): string {
  if (spec.startsWith('static_user_provider:cmd:')) return 'static_user_provider:cmd:<redacted>';
  if (parseUserProvider(spec) !== undefined) return spec;
  // An invalid value may still hold a password (a typo in `cmd`): show only its first part.
  const colon = spec.indexOf(':');
  return colon < 0 ? spec : `${spec.slice(0, colon)}:<redacted>`;
}

/** One configuration key, type-erased so that keys of different types share a table. */
interface KeyEntry {
  /** Dotted TOML name: `http.body_limit`, or `enable_telemetry` at top level. */
  readonly key: string;
  readonly section: string | undefined;
  readonly name: string;
  readonly env: string;
  readonly expected: string;
  readonly doc: string;
  applyToml(config: Config, raw: unknown): boolean;
  applyEnv(config: Config, text: string): boolean;
  /** The TOML value, or `undefined` when the key is to be omitted. */
  toToml(config: Config): string | number | boolean | undefined;
}

/** One-line descriptions, shown by `--help` (the example file carries the same words). */
const KEY_DOCS: Readonly<Record<string, string>> = {
  enable_telemetry: 'Anonymous usage reporting (accepted for compatibility; nothing is sent).',
  user_provider: 'Turns on HTTP authentication; unset = every request runs as "greptime".',
  init_regions_in_background: 'Serve requests before every shard has replayed its WAL.',
  init_regions_parallelism: 'Shards opened (recovered) concurrently at start-up.',
  max_in_flight_write_bytes: 'Summed body size of write requests handled at once; "0" = unbounded.',
  write_bytes_exhausted_policy: 'At that bound: "wait" (10 s), "wait(<duration>)", or "fail" (429).',
  max_concurrent_queries: 'Queries running at once; past it 503 with Retry-After. "0" = unbounded.',
  'http.addr': 'Main listener: every route, including the admin endpoints.',
  'http.timeout': 'Per-request deadline answered with 408; "0s" disables it.',
  'http.body_limit': 'Largest request body, answered with 413 beyond; "0" disables it.',
  'http.is_strict_mode': 'Reject metrics remote-write labels that are not valid UTF-8.',
  'http.enable_api_server': 'Start the public listener that serves only /v1 and /dashboard.',
  'http.api_server_addr': 'Address of the public listener.',
  'http.enable_cors': 'Answer CORS preflights and add access-control-allow-origin: *.',
  'storage.data_home': "Directory holding every shard's WAL and segments.",
  'storage.shards': 'Worker threads, each owning one partition of the data (default: CPU count).',
  'storage.retention_check_interval':
    'How often each shard retires segments whose rows are all past their table\'s ttl; "0s" = never.',
  'wal.sync_mode': '"fsync": acknowledge a write once it is on disk; "none": page cache only.',
  'wal.segment_size': 'A WAL file is rotated once it grows past this.',
  'ingest.line_max_bytes': 'Longest line-protocol line; a longer one fails its request with 400.',
  'ingest.shard_queue_size':
    'Encoded rows waiting for one shard\'s next commit; a write past it gets 429 (code 6001). "0" = unbounded.',
  'ingest.key_refs':
    'Series keys a shard remembers per decoding thread, so requests can name known series by id (two generations of this many).',
  'memtable.flush_size': 'A shard flushes its memtables to segments past this estimated size.',
  'memtable.reject_size':
    'A shard refuses writes (503, code 5000) while its memtables hold more than this, until a flush. "0" = unbounded.',
  'segment.block_rows': 'Rows per block; statistics and checksums are per block.',
  'segment.compaction_trigger':
    "Background compaction merges a table's newest segments of similar size once there are this many (at least 2).",
  'segment.page_cache_size':
    'Inflated segment blocks kept for repeated scans, over all shards; "0" = off. Default: 1/16 of memory, at most 256MiB.',
  'segment.verify_on_open':
    'Read every block of every segment at start-up to check its CRC, quarantining damaged files (false: headers and footers only).',
  'query.memory_limit':
    'Estimated memory one query may hold (rows, groups) per shard and in the router; "0" = unbounded.',
  'query.slice_time':
    'Longest stretch a shard computes for one query before letting waiting writes and other queries run.',
  'query.share_under_writes':
    "Percent of a shard's time its queries may take while writes are arriving (1-100; 100 = no pacing).",
  'query.range_max_rows':
    'Most rows (time slots x BY groups) a RANGE/ALIGN query may produce, checked before allocating; 0 = unbounded.',
  'query.max_points_per_series': 'Most points per series of a range query (PromQL API and TQL); more is a 400.',
  'query.max_samples': 'Samples one PromQL query may hold in memory (Prometheus --query.max-samples); more is a 422.',
  'query.max_series': 'Series one PromQL query may select over all shards; more is a 422. 0 = unbounded.',
  'query.timeout':
    'Deadline of every query (408; Prometheus API: its timeout error); the lesser of it and http.timeout applies. "0s" = none.',
  'hec.ack_enabled':
    'Splunk HEC indexer acknowledgement: writes need a channel and get an ackId; /ack reports durability.',
  'hec.ack_max_channels': 'Acknowledgement channels remembered at once; past it a new channel gets 503 (code 9).',
  'hec.ack_max_pending_per_channel': 'Unreported ackIds of one channel; past it its writes get 503 (code 9).',
  'hec.ack_max_pending': 'Unreported ackIds over all channels; past it writes with a channel get 503 (code 9).',
  'logging.level': 'Log level: fatal, error, warn, info, debug, trace, or silent (also "off").',
  'tracing.endpoint': 'OTLP/HTTP traces URL for self-tracing; "" = none, "self" = this server\'s /v1/otlp/v1/traces.',
  'tracing.enabled': 'Trace from start-up; POST /debug/enable_trace switches it at run time.',
  'tracing.sample_ratio': 'Fraction of new traces recorded (0-1).',
  'debug.heap_profiling': 'Sample heap allocations from start-up, as POST /debug/prof/mem/activate does.',
};

function entry<T>(
  key: string,
  kind: Kind<T>,
  get: (config: Config) => T,
  set: (config: Config, value: T) => void,
): KeyEntry {
  const dot = key.indexOf('.');
  const section = dot < 0 ? undefined : key.slice(0, dot);
  const name = dot < 0 ? key : key.slice(dot + 1);
  const accept = (config: Config, value: T | undefined, raw: unknown): boolean => {
    if (value === undefined && !isDeliberatelyUnset(name, raw)) return false;
    set(config, value as T);
    return true;
  };
  return {
    key,
    section,
    name,
    env: ENV_PREFIX + (section === undefined ? name : `${section}__${name}`).toUpperCase(),
    expected: kind.expected,
    doc: KEY_DOCS[key] ?? '',
    applyToml: (config, raw) => accept(config, kind.fromToml(raw), raw),
    applyEnv: (config, text) => accept(config, kind.fromEnv(text), text),
    toToml: (config) => {
      const value = get(config);
      return value === undefined ? undefined : kind.toToml(value);
    },
  };
}

type TopField =
  | 'enableTelemetry'
  | 'userProvider'
  | 'initRegionsInBackground'
  | 'initRegionsParallelism'
  | 'maxInFlightWriteBytes'
  | 'writeBytesExhaustedPolicy'
  | 'maxConcurrentQueries';
type Section =
  | 'http'
  | 'storage'
  | 'wal'
  | 'ingest'
  | 'memtable'
  | 'segment'
  | 'query'
  | 'hec'
  | 'logging'
  | 'tracing'
  | 'debug';

/** A top-level key stored in `config[field]`. */
function top<F extends TopField>(key: string, kind: Kind<Config[F]>, field: F): KeyEntry {
  return entry(
    key,
    kind,
    (c) => c[field],
    (c, v) => {
      c[field] = v;
    },
  );
}

/** A `[section]` key stored in `config[section][field]`. */
function inSection<S extends Section, F extends keyof Config[S]>(
  section: S,
  name: string,
  kind: Kind<Config[S][F]>,
  field: F,
): KeyEntry {
  return entry(
    `${section}.${name}`,
    kind,
    (c) => c[section][field],
    (c, v) => {
      c[section][field] = v;
    },
  );
}

/** Every key, in `/config` order: top-level scalars, then one section after another. */
const KEYS: readonly KeyEntry[] = [
  top('enable_telemetry', bool, 'enableTelemetry'),
  top('user_provider', userProvider, 'userProvider'),
  top('init_regions_in_background', bool, 'initRegionsInBackground'),
  top('init_regions_parallelism', int(1, INIT_REGIONS_PARALLELISM_MAX), 'initRegionsParallelism'),
  top('max_in_flight_write_bytes', size(0), 'maxInFlightWriteBytes'),
  top('write_bytes_exhausted_policy', writePolicy, 'writeBytesExhaustedPolicy'),
  top('max_concurrent_queries', int(0, 1_000_000), 'maxConcurrentQueries'),
  inSection('http', 'addr', address, 'addr'),
  inSection('http', 'timeout', duration, 'timeoutMs'),
  inSection('http', 'body_limit', size(0), 'bodyLimitBytes'),
  inSection('http', 'is_strict_mode', bool, 'isStrictMode'),
  inSection('http', 'enable_api_server', bool, 'enableApiServer'),
  inSection('http', 'api_server_addr', address, 'apiServerAddr'),
  inSection('http', 'enable_cors', bool, 'enableCors'),
  inSection('storage', 'data_home', nonEmptyString, 'dataHome'),
  inSection('storage', 'shards', int(1, SHARDS_MAX), 'shards'),
  inSection('storage', 'retention_check_interval', duration, 'retentionCheckIntervalMs'),
  inSection('wal', 'sync_mode', oneOf<WalSyncMode>(['fsync', 'none']), 'syncMode'),
  inSection('wal', 'segment_size', size(1), 'segmentBytes'),
  inSection('ingest', 'line_max_bytes', size(1), 'lineMaxBytes'),
  inSection('ingest', 'shard_queue_size', size(0), 'shardQueueBytes'),
  inSection('ingest', 'key_refs', int(1, 100_000_000), 'keyRefs'),
  inSection('memtable', 'flush_size', size(1), 'flushBytes'),
  inSection('memtable', 'reject_size', size(0), 'rejectBytes'),
  inSection('segment', 'block_rows', int(1, BLOCK_ROWS_MAX), 'blockRows'),
  // At least 2: "compact once there is one segment" would rewrite that segment forever.
  inSection('segment', 'compaction_trigger', int(2, 1024), 'compactionTrigger'),
  inSection('segment', 'page_cache_size', size(0), 'pageCacheBytes'),
  inSection('segment', 'verify_on_open', bool, 'verifyOnOpen'),
  inSection('query', 'memory_limit', size(0), 'memoryLimitBytes'),
  inSection('query', 'slice_time', duration, 'sliceMs'),
  inSection('query', 'share_under_writes', int(1, 100), 'shareUnderWritesPercent'),
  inSection('query', 'range_max_rows', int(0, 1_000_000_000_000), 'rangeMaxRows'),
  inSection('query', 'max_points_per_series', int(1, 1_000_000_000), 'maxPointsPerSeries'),
  inSection('query', 'max_samples', int(1, Number.MAX_SAFE_INTEGER), 'maxSamples'),
  inSection('query', 'max_series', int(0, 1_000_000_000), 'maxSeries'),
  inSection('query', 'timeout', duration, 'timeoutMs'),
  inSection('hec', 'ack_enabled', bool, 'ackEnabled'),
  inSection('hec', 'ack_max_channels', int(1, 100_000_000), 'ackMaxChannels'),
  inSection('hec', 'ack_max_pending_per_channel', int(1, 100_000_000), 'ackMaxPendingPerChannel'),
  inSection('hec', 'ack_max_pending', int(1, 1_000_000_000), 'ackMaxPending'),
  inSection('logging', 'level', oneOf(LOG_LEVELS), 'level'),
  inSection('tracing', 'endpoint', traceEndpoint, 'endpoint'),
  inSection('tracing', 'enabled', bool, 'enabled'),
  inSection('tracing', 'sample_ratio', ratio, 'sampleRatio'),
  inSection('debug', 'heap_profiling', bool, 'heapProfiling'),
];

const KEYS_BY_NAME = new Map(KEYS.map((key) => [key.key, key]));
const SECTIONS = new Set(KEYS.flatMap((key) => (key.section === undefined ? [] : [key.section])));

/** How a bad value is quoted in a message: strings JSON-quoted, user_provider redacted. */
function showValue(key: string, raw: unknown): string {
  if (key === 'user_provider' && typeof raw === 'string') return JSON.stringify(redactUserProvider(raw));
  if (typeof raw === 'string') return JSON.stringify(raw);
  if (raw instanceof TomlDate || typeof raw !== 'object' || raw === null) return String(raw);
  return JSON.stringify(raw);
}

function invalid(entry: KeyEntry, raw: unknown, origin: string): ConfigError {
  const from = origin === '' ? '' : ` in ${origin}`;
  return new ConfigError(
    `invalid value for ${entry.key}: ${showValue(entry.name, raw)} (expected ${entry.expected})${from}`,
  );
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof TomlDate);
}

/** Warns once per unknown leaf, naming its full dotted key. */
function warnUnknown(prefix: string, value: unknown, warn: (msg: string) => void): void {
  if (isTable(value) && Object.keys(value).length > 0) {
    for (const [key, inner] of Object.entries(value)) warnUnknown(`${prefix}.${key}`, inner, warn);
    return;
  }
  warn(`unknown configuration key ${prefix} ignored`);
}

/** Applies a parsed file; the keys it set go into `given`. */
function applyDocument(
  config: Config,
  doc: Record<string, unknown>,
  warn: (msg: string) => void,
  given: Set<string>,
): void {
  for (const [top, value] of Object.entries(doc)) {
    if (SECTIONS.has(top)) {
      if (!isTable(value)) {
        throw new ConfigError(`invalid value for ${top}: ${showValue(top, value)} (expected a [${top}] table)`);
      }
      for (const [name, raw] of Object.entries(value)) {
        const key = KEYS_BY_NAME.get(`${top}.${name}`);
        if (key === undefined) warnUnknown(`${top}.${name}`, raw, warn);
        else if (!key.applyToml(config, raw)) throw invalid(key, raw, '');
        else given.add(key.key);
      }
      continue;
    }
    const key = KEYS_BY_NAME.get(top);
    if (key === undefined || key.section !== undefined) warnUnknown(top, value, warn);
    else if (!key.applyToml(config, value)) throw invalid(key, value, '');
    else given.add(key.key);
  }
}

function applyEnvironment(
  config: Config,
  env: NodeJS.ProcessEnv,
  warn: (msg: string) => void,
  given: Set<string>,
): void {
  const names = Object.keys(env)
    .filter((name) => name.startsWith(ENV_PREFIX))
    .sort();
  for (const name of names) {
    const text = env[name];
    if (text === undefined) continue;
    const parts = name.slice(ENV_PREFIX.length).toLowerCase().split('__');
    const key = parts.length <= 2 ? KEYS_BY_NAME.get(parts.join('.')) : undefined;
    if (key === undefined) {
      warn(`unknown environment override ${name} ignored (expected ${ENV_PREFIX}<SECTION>__<KEY>)`);
      continue;
    }
    if (!key.applyEnv(config, text)) throw invalid(key, text, `environment variable ${name}`);
    given.add(key.key);
  }
}

/** Rules that involve two keys; single values were checked as they were read. */
function checkCrossKey(config: Config): void {
  const { http, memtable } = config;
  // A reject size at or below the flush size would refuse writes before a flush is ever due.
  if (memtable.rejectBytes > 0 && memtable.rejectBytes <= memtable.flushBytes) {
    throw new ConfigError(
      'invalid value for memtable.reject_size: must be above memtable.flush_size (or "0" for unbounded)',
    );
  }
  if (http.enableApiServer && http.apiServerAddr === http.addr && !http.addr.endsWith(':0')) {
    throw new ConfigError(
      `invalid value for http.api_server_addr: ${JSON.stringify(http.apiServerAddr)} (must differ from http.addr)`,
    );
  }
}

/** The `--help` text: options, the environment syntax and every key with its default. */
export function helpText(): string {
  const defaults = defaultConfig();
  const width = Math.max(...KEYS.map((key) => key.key.length));
  const lines = KEYS.map((key) => {
    const value = key.toToml(defaults);
    const shown =
      key.key === 'storage.shards' ? 'number of CPUs' : value === undefined ? 'unset' : stringifyScalar(value);
    return `  ${key.key.padEnd(width)}  ${shown.padEnd(16)} ${key.env}\n  ${''.padEnd(width)}  ${key.doc}`;
  });
  return [
    'Usage: shoaldb [--config FILE]',
    '',
    'Options:',
    '  -c, --config FILE   read settings from a TOML file (see config/shoaldb.example.toml)',
    '  -h, --help          print this help and exit',
    '',
    'Precedence: built-in defaults < config file < environment variables.',
    `Environment overrides: ${ENV_PREFIX}<SECTION>__<KEY> for section keys (e.g. ${ENV_PREFIX}HTTP__ADDR=127.0.0.1:5000),`,
    `${ENV_PREFIX}<KEY> for top-level keys (e.g. ${ENV_PREFIX}ENABLE_TELEMETRY=false). Sizes are binary ("64MB" = "64MiB"),`,
    'durations humantime ("30s", "1m 30s", "0s").',
    '',
    'Keys (default, environment variable):',
    ...lines,
    '',
  ].join('\n');
}

function stringifyScalar(value: string | number | boolean): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * Builds the configuration from command-line arguments (without the node binary and script path,
 * i.e. `process.argv.slice(2)`) and the environment. With `--help`/`-h`, returns the defaults and
 * the help text; the caller prints it and exits 0. Unknown keys are reported through `warn` and
 * ignored; every invalid value, unknown argument, missing file or TOML syntax error throws a
 * `ConfigError`.
 */
export function loadConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  warn: (msg: string) => void,
): { config: Config; help?: string } {
  let configPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') return { config: defaultConfig(), help: helpText() };
    if (arg === '--config' || arg === '-c') {
      const next = argv[i + 1];
      if (next === undefined || next === '') throw new ConfigError(`${arg} needs a file path`);
      configPath = next;
      i++;
    } else if (arg.startsWith('--config=')) {
      configPath = arg.slice('--config='.length);
      if (configPath === '') throw new ConfigError('--config needs a file path');
    } else {
      throw new ConfigError(`unknown command-line argument: ${arg} (try --help)`);
    }
  }
  const config = defaultConfig();
  const given = new Set<string>();
  if (configPath !== undefined) applyDocument(config, readDocument(configPath), warn, given);
  applyEnvironment(config, env, warn, given);
  // Memtable bounds follow the shard count and each other unless set (memtableDefaults).
  const { flushBytes, rejectBytes } = config.memtable;
  config.memtable = memtableDefaults(os.totalmem(), config.storage.shards, {
    ...(given.has('memtable.flush_size') ? { flushBytes } : {}),
    ...(given.has('memtable.reject_size') ? { rejectBytes } : {}),
  });
  checkCrossKey(config);
  return { config };
}

/**
 * The effective configuration as TOML, for `GET /config`: top-level scalars, then one section
 * after another in key order (`[http]` ... `[logging]`, `[tracing]`, `[debug]`). Durations are
 * humantime strings, sizes `"64MiB"`-style, an unset `user_provider` is omitted and an inline one
 * is redacted.
 */
export function configToToml(config: Config): string {
  const doc: Record<string, unknown> = {};
  for (const key of KEYS) {
    const value = key.toToml(config);
    if (value === undefined) continue;
    if (key.section === undefined) {
      doc[key.name] = value;
    } else {
      const section = (doc[key.section] ??= {}) as Record<string, unknown>;
      section[key.name] = value;
    }
  }
  const text = stringify(doc);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** For tests and docs: each key's dotted name and environment variable, in `/config` order. */
export function configKeys(): { key: string; env: string }[] {
  return KEYS.map((key) => ({ key: key.key, env: key.env }));
}
