/**
 * /debug/prof (reference §3): CPU profiles and heap dumps of the router and every shard, as pprof
 * protobuf (gzipped, for `go tool pprof`), a text top table, or a self-contained flame graph SVG.
 * Main listener only, no auth, no timeout (a CPU profile takes `seconds`). Query-string and form
 * errors answer in plain text as GreptimeDB's framework does; the rest use the short JSON body.
 * A CPU profile asked for while one runs gets 409 (V8 has one CPU profiler per thread).
 */
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Logger } from 'pino';
import { Profile } from 'pprof-format';
import type { Config } from '../../shared/config.js';
import { Internal, InvalidArgument } from '../../shared/errors.js';
import { mediaTypeOf } from '../../shared/media-type.js';
import { ThreadProfiler } from '../../shared/thread-profiler.js';
import { ClientError } from '../errors/catalogue.js';
import type { HttpResponse, Route } from '../http/context.js';
import { text } from '../http/context.js';
import { CpuCapture, CpuProfileBusy, type ShardBroadcast } from '../profiling/cpu-capture.js';
import { renderFlamegraph } from '../profiling/flamegraph-svg.js';
import { GdumpWriter } from '../profiling/gdump.js';
import { HeapCapture } from '../profiling/heap-capture.js';
import { SourceLocator } from '../profiling/source-locator.js';
import { renderTextReport } from '../profiling/text-report.js';

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/** Longest CPU profile; the request holds its connection for all of it. */
export const CPU_PROFILE_SECONDS_MAX = 300;
/** Highest sampling rate: V8 cannot usefully sample more often than every 100 µs. */
export const CPU_PROFILE_FREQUENCY_MAX_HZ = 10_000;
/** Largest profile `symbol` will inflate; the body itself is capped by the debug body limit. */
const SYMBOL_INFLATED_BYTES_MAX = 256 * 1024 * 1024;

type Output = 'proto' | 'text' | 'flamegraph';
const OUTPUTS: readonly Output[] = ['proto', 'text', 'flamegraph'];

/** A query-string error, worded like the reference's framework text. */
function badQuery(detail: string): ClientError {
  return new ClientError('BadQueryString', `Failed to deserialize query string: ${detail}`);
}

function outputOf(query: URLSearchParams, fallback: Output): Output {
  const raw = query.get('output');
  if (raw === null) return fallback;
  const found = OUTPUTS.find((o) => o === raw);
  if (found === undefined) {
    throw badQuery(`output: unknown variant \`${raw}\`, expected one of ${OUTPUTS.map((o) => `\`${o}\``).join(', ')}`);
  }
  return found;
}

function integerOf(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw badQuery(`${name}: invalid digit found in string`);
  const value = Number(raw);
  if (value === 0 && min > 0) throw badQuery(`${name}: invalid value: integer \`0\`, expected a nonzero integer`);
  if (value < min || value > max)
    throw badQuery(`${name}: invalid value: integer \`${raw}\`, expected ${min}..=${max}`);
  return value;
}

function threadOf(query: URLSearchParams, shards: number): string | null {
  const raw = query.get('thread');
  if (raw === null || raw === '') return null;
  const shard = /^shard-(\d+)$/.exec(raw);
  if (raw === 'router' || (shard && Number(shard[1]) < shards)) return raw;
  throw badQuery(`thread: unknown thread \`${raw}\`, expected \`router\` or \`shard-0\`..\`shard-${shards - 1}\``);
}

async function render(profile: Profile, output: Output, title: string): Promise<HttpResponse> {
  const body =
    output === 'proto'
      ? await gzip(profile.encode())
      : output === 'text'
        ? renderTextReport(profile)
        : renderFlamegraph(profile, title);
  return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body };
}

/** Parses an uploaded dump: gzipped or plain pprof protobuf, checked by rendering it. */
async function symbolize(body: Buffer): Promise<string> {
  try {
    const raw =
      body[0] === 0x1f && body[1] === 0x8b ? await gunzip(body, { maxOutputLength: SYMBOL_INFLATED_BYTES_MAX }) : body;
    if (raw.length === 0) throw new Error('empty body');
    return renderFlamegraph(Profile.decode(raw), 'Heap profile');
  } catch (err) {
    throw new Internal(`cannot parse the heap dump: ${(err as Error).message}`, { cause: err });
  }
}

export function debugProfRoutes(
  config: Config,
  shards: ShardBroadcast & { allReady(): boolean },
  log: Logger,
): Route[] {
  const local = new ThreadProfiler();
  const locator = new SourceLocator();
  const cpu = new CpuCapture(shards, local, locator);
  const heap = new HeapCapture(shards, local, locator);
  const gdump = new GdumpWriter(path.resolve(config.storage.dataHome, 'dump'), heap, log);
  if (config.debug.heapProfiling) activateWhenReady(heap, shards, log);

  const requireHeap = (): void => {
    if (!heap.active) throw new InvalidArgument('Memory profiling is not enabled');
  };
  const route = (methods: string[], pattern: string, handler: Route['handler']): Route => ({
    methods,
    pattern,
    handler,
    errors: 'short',
    debug: true,
  });

  return [
    route(['POST'], '/debug/prof/cpu', async (ctx) => {
      const seconds = integerOf(ctx.query, 'seconds', 5, 0, CPU_PROFILE_SECONDS_MAX);
      const frequencyHz = integerOf(ctx.query, 'frequency', 99, 1, CPU_PROFILE_FREQUENCY_MAX_HZ);
      const output = outputOf(ctx.query, 'proto');
      const thread = threadOf(ctx.query, shards.count);
      try {
        const profile = await cpu.capture({ seconds, frequencyHz, thread, signal: ctx.signal });
        return await render(profile, output, 'CPU profile');
      } catch (err) {
        if (err instanceof CpuProfileBusy) throw new ClientError('ProfilerBusy', err.message);
        throw err;
      }
    }),
    route(['POST'], '/debug/prof/mem', async (ctx) => {
      const output = outputOf(ctx.query, 'text');
      requireHeap();
      return render(await heap.dump(), output, 'Heap profile');
    }),
    route(['GET'], '/debug/prof/mem/status', async () => text(200, `{"active": ${heap.active}}`)),
    route(['POST'], '/debug/prof/mem/activate', async () => {
      await heap.activate();
      return text(200, 'Heap profiling activated');
    }),
    route(['POST'], '/debug/prof/mem/deactivate', async () => {
      gdump.deactivate();
      await heap.deactivate();
      return text(200, 'Heap profiling deactivated');
    }),
    route(['GET'], '/debug/prof/mem/gdump', async () => text(200, `{"active": ${gdump.active}}`)),
    route(['POST'], '/debug/prof/mem/gdump', async (ctx) => {
      const type = mediaTypeOf(ctx.headers.get('content-type'));
      if (type !== 'application/x-www-form-urlencoded') {
        throw new ClientError(
          'UnsupportedMediaType',
          'Form requests must have `Content-Type: application/x-www-form-urlencoded`',
        );
      }
      const activate = new URLSearchParams(ctx.body.toString('utf8')).get('activate');
      if (activate === null)
        throw new ClientError('UnprocessableBody', 'Failed to deserialize form: missing field `activate`');
      if (activate !== 'true' && activate !== 'false') {
        throw new ClientError(
          'UnprocessableBody',
          'Failed to deserialize form: activate: provided string was not `true` or `false`',
        );
      }
      requireHeap();
      if (activate === 'true') await gdump.activate();
      else gdump.deactivate();
      return text(200, activate === 'true' ? 'gdump activated' : 'gdump deactivated');
    }),
    route(['POST'], '/debug/prof/mem/symbol', async (ctx) => ({
      status: 200,
      headers: { 'content-type': 'application/octet-stream' },
      body: await symbolize(ctx.body),
    })),
  ];
}

/** `[debug] heap_profiling`: shards may still be recovering when routes are built. */
function activateWhenReady(heap: HeapCapture, shards: { allReady(): boolean }, log: Logger): void {
  const attempt = (): void => {
    if (!shards.allReady()) {
      setTimeout(attempt, 200).unref();
      return;
    }
    heap.activate().then(
      () => log.info('heap profiling active from start-up'),
      (err: unknown) => log.error({ err: String(err) }, 'heap profiling could not start'),
    );
  };
  attempt();
}
