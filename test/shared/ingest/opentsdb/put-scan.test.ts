/**
 * The OpenTSDB put scan agrees with the general path (JSON.parse, then per-point checks) on every
 * body it takes, takes every plain body, and gives up (null) on the rest: random bodies in the
 * collectors' shape, and the same bodies with one mutation each.
 */
import t from 'tap';
import { SeriesCache } from '../../../../src/shared/ingest/byte-series-cache.js';
import { parsePutBody } from '../../../../src/shared/ingest/opentsdb/put-points.js';
import { scanPutRuns } from '../../../../src/shared/ingest/opentsdb/put-scan.js';
import { PutSeriesResolver } from '../../../../src/shared/ingest/opentsdb/put-series.js';
import type { SeriesRuns } from '../../../../src/shared/ingest/series-inserts.js';
import { prng } from '../../../helpers/prng.js';

const SHARDS = 3;
const rand = prng(Number(process.env.PUT_SCAN_SEED ?? 11));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const ws = () => pick(['', '', '', ' ', '\n', ' \t\r\n ']);

const METRICS = ['cpu.user', 'cpu_idle', 'disk/io', 'mém', 'a-b_c.d/e'];
const TAGS = [
  ['host', 'web01'],
  ['host', 'web02'],
  ['dc', 'eu-1'],
  ['rack', 'r.1/2'],
  ['zone', 'é'],
] as const;
const VALUES = [
  '0',
  '-0',
  '1',
  '-17',
  '12.5',
  '0.1',
  '3.14159265358979',
  '123456789012345678',
  '1e3',
  '-2.5E-3',
  '1e400',
  '0.000001',
];

function tagsText(): string {
  const chosen = new Map<string, string>();
  const n = Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const [name, value] = pick(TAGS);
    chosen.set(name, value);
  }
  return `{${ws()}${[...chosen].map(([k, v]) => `"${k}"${ws()}:${ws()}"${v}"`).join(`${ws()},${ws()}`)}${ws()}}`;
}

function timestampText(): string {
  return pick(['1700000000', '1700000000123', '4294967295', '4294967296', String(1 + Math.floor(rand() * 1e9))]);
}

/** A point in the plain shape, fields in a random order. */
function pointText(): string {
  const fields = [
    `"metric"${ws()}:${ws()}"${pick(METRICS)}"`,
    `"timestamp"${ws()}:${ws()}${timestampText()}`,
    `"value"${ws()}:${ws()}${pick(VALUES)}`,
    `"tags"${ws()}:${ws()}${tagsText()}`,
  ].sort(() => rand() - 0.5);
  return `{${ws()}${fields.join(`${ws()},${ws()}`)}${ws()}}`;
}

function bodyText(): string {
  const n = 1 + Math.floor(rand() * 6);
  if (n === 1 && rand() < 0.3) return `${ws()}${pointText()}${ws()}`;
  return `${ws()}[${Array.from({ length: n }, () => `${ws()}${pointText()}${ws()}`).join(',')}]${ws()}`;
}

/** One change that the scan must either handle like JSON.parse or refuse. */
const MUTATIONS: Array<(body: string) => string> = [
  (b) => b.replace('"metric"', '"metric","extra":1,"x"'),
  (b) => b.replace(/"value"(\s*):(\s*)([^,}\s]+)/, '"value"$1:$2"$3"'),
  (b) => b.replace(/"timestamp"(\s*):(\s*)(\d+)/, '"timestamp"$1:$2"$3"'),
  (b) => b.replace(/"timestamp"(\s*):(\s*)(\d+)/, '"timestamp"$1:$2$3.0'),
  (b) => b.replace(/"timestamp"(\s*):(\s*)(\d+)/, '"timestamp"$1:$20'),
  (b) => b.replace(/"timestamp"(\s*):(\s*)(\d+)/, '"timestamp"$1:$2-$3'),
  (b) => b.replace('web01', 'web\\u0030'),
  (b) => b.replace('web01', 'web 01'),
  (b) => b.replace(/"value"(\s*):(\s*)([^,}\s]+)/, '"value"$1:$201'),
  (b) => b.replace(/"value"(\s*):(\s*)([^,}\s]+)/, '"value"$1:$2.5'),
  (b) => b.replace(/"value"(\s*):(\s*)([^,}\s]+)/, '"value"$1:$21.'),
  (b) => b.replace(/"value"(\s*):(\s*)([^,}\s]+)/, '"value"$1:$2null'),
  (b) => b.replace(/,?\s*"tags"\s*:\s*\{[^}]*\}/, ''),
  (b) => b.replace('"metric"', '"metric":"dup","metric"'),
  (b) => b.replace(/\}\s*\]\s*$/, '},]'),
  (b) => `${b}x`,
  (b) => b.replace(/"tags"(\s*):(\s*)\{/, '"tags"$1:$2{"n":1,'),
  (b) => b.replace(/"tags"(\s*):(\s*)\{/, '"tags"$1:$2{"host":"a","host":"b",'),
  (b) => b.replace('cpu.user', 'cpu user'),
  (b) => b.replace(/"[a-z]/, '"\u0001'),
  (b) => b.slice(0, Math.floor(b.length / 2)),
];

function generalRuns(body: Buffer): SeriesRuns | null {
  try {
    const put = new PutSeriesResolver(SHARDS).runsOf(parsePutBody(body), 'public', true);
    return put.invalid.length === 0 ? put.runs : null;
  } catch {
    return null;
  }
}

/** The runs as plain data: each point's series (as resolved) and its numbers. */
function described(runs: SeriesRuns): unknown[] {
  return runs.series.map((s, i) => ({
    table: s.table,
    tagNames: [...s.tagNames],
    tagValues: [...s.tagValues],
    shard: s.shard,
    start: runs.start[i],
    count: runs.count[i],
    timestamp: runs.timestamps[runs.start[i] as number],
    value: Object.is(runs.values[runs.start[i] as number], -0) ? '-0' : runs.values[runs.start[i] as number],
  }));
}

t.test('the scan agrees with the general path, and takes every plain body', async (t) => {
  const cache = new SeriesCache(1 << 16);
  let plain = 0;
  let disagreements = 0;
  for (let i = 0; i < 3000; i++) {
    const text = bodyText();
    const body = Buffer.from(text);
    const general = generalRuns(body);
    const scanned = scanPutRuns(body, cache, 'public', SHARDS);
    if (general === null) {
      // A plain body the general path refuses: only for 1e400 (not finite).
      if (scanned !== null) t.fail(`scan took a body the general path refuses: ${text}`);
      continue;
    }
    plain++;
    if (scanned === null) t.fail(`scan refused a plain body: ${text}`);
    else if (JSON.stringify(described(scanned)) !== JSON.stringify(described(general))) {
      disagreements++;
      t.same(described(scanned), described(general), text);
    }
  }
  t.equal(disagreements, 0);
  t.ok(plain > 2000, `${plain} plain bodies scanned`);
  // A body sent again resolves every point from the cache.
  const again = Buffer.from(bodyText());
  scanPutRuns(again, cache, 'public', SHARDS);
  const misses = cache.misses;
  const hits = cache.hits;
  const runs = scanPutRuns(again, cache, 'public', SHARDS);
  t.equal(cache.misses, misses, 'no miss the second time');
  t.equal(cache.hits - hits, runs?.series.length, 'a hit per point');
});

t.test('a mutated body is refused by the scan or read exactly as JSON.parse reads it', async (t) => {
  const cache = new SeriesCache(1 << 16);
  let taken = 0;
  let refused = 0;
  for (let i = 0; i < 3000; i++) {
    const mutated = pick(MUTATIONS)(bodyText());
    const body = Buffer.from(mutated);
    const scanned = scanPutRuns(body, cache, 'public', SHARDS);
    if (scanned === null) {
      refused++;
      continue;
    }
    taken++;
    const general = generalRuns(body);
    if (general === null) t.fail(`scan took a body the general path refuses: ${mutated}`);
    else if (JSON.stringify(described(scanned)) !== JSON.stringify(described(general))) {
      t.same(described(scanned), described(general), mutated);
    }
  }
  t.ok(refused > 1000, `${refused} refused, ${taken} taken (mutations that leave a plain body)`);
});

t.test('series guessed from the previous body are confirmed byte for byte', async (t) => {
  const cache = new SeriesCache(1 << 16);
  // Finite values only: one point of 1e400 refuses the whole body.
  const finitePoint = () => pointText().replace('1e400', '1e40');
  const points = Array.from({ length: 40 }, finitePoint);
  let disagreements = 0;
  for (let round = 0; round < 200; round++) {
    // The same series in the same order, with some points changed: another tag value, a tag
    // more or less, another metric, or the tags before the metric.
    for (let i = 0; i < points.length; i++) {
      if (rand() < 0.8) continue;
      points[i] = pick([
        (p: string) => p.replace('web01', 'web02'),
        (p: string) => p.replace('web02', 'web0'),
        (p: string) => p.replace(/"tags"(\s*):(\s*)\{(\s*)"/, '"tags"$1:$2{$3"x":"1","'),
        (p: string) => p.replace(/"metric"(\s*):(\s*)"[^"]*"/, `"metric"$1:$2"${pick(METRICS)}"`),
        finitePoint,
      ])(points[i] as string);
    }
    const body = Buffer.from(`[${points.join(',')}]`);
    const general = generalRuns(body);
    const scanned = scanPutRuns(body, cache, 'public', SHARDS);
    if (general === null || scanned === null) {
      if ((general === null) !== (scanned === null)) t.fail(`scan and general path disagree on taking ${body}`);
      continue;
    }
    if (JSON.stringify(described(scanned)) !== JSON.stringify(described(general))) {
      disagreements++;
      t.same(described(scanned), described(general), body.toString());
    }
  }
  t.equal(disagreements, 0);
  t.ok(cache.hits > cache.misses, `hits ${cache.hits}, misses ${cache.misses}`);
});

t.test('decimals read exactly as Number reads them', async (t) => {
  const cache = new SeriesCache(16);
  for (let i = 0; i < 2000; i++) {
    const digits = 1 + Math.floor(rand() * 20);
    let text = String(1 + Math.floor(rand() * 9));
    for (let d = 1; d < digits; d++) text += String(Math.floor(rand() * 10));
    const point = Math.floor(rand() * text.length);
    if (point > 0) text = `${text.slice(0, point)}.${text.slice(point)}`;
    if (rand() < 0.5) text = `-${text}`;
    if (rand() < 0.2) text += `e${Math.floor(rand() * 40) - 20}`;
    const body = Buffer.from(`{"metric":"m","timestamp":1700000000,"value":${text},"tags":{}}`);
    const runs = scanPutRuns(body, cache, 'public', SHARDS);
    if (runs === null || !Object.is(runs.values[0], Number(text))) {
      t.fail(`${text}: ${runs?.values[0]} != ${Number(text)}`);
      return;
    }
  }
  t.pass('2000 decimals');
});

t.test('one series in other bytes is another cache entry, resolved to the same series', async (t) => {
  const cache = new SeriesCache(16);
  const a = scanPutRuns(
    Buffer.from('[{"metric":"m","timestamp":1,"value":1,"tags":{"a":"x","b":"y"}}]'),
    cache,
    'public',
    SHARDS,
  );
  const b = scanPutRuns(
    Buffer.from('[{"tags":{"b":"y","a":"x"},"value":2,"timestamp":2,"metric":"m"}]'),
    cache,
    'public',
    SHARDS,
  );
  const c = scanPutRuns(
    Buffer.from('[{"metric":"m","timestamp":3,"value":3,"tags":{"a":"x","b":"y"}}]'),
    cache,
    'public',
    SHARDS,
  );
  t.ok(a && b && c);
  t.not(a?.series[0], b?.series[0], 'two entries');
  t.equal(a?.series[0], c?.series[0], 'the same bytes hit');
  t.same([...(b?.series[0]?.tagValues ?? [])], [...(a?.series[0]?.tagValues ?? [])]);
  t.equal(b?.series[0]?.shard, a?.series[0]?.shard);
  t.equal(cache.size, 2);
});
