/**
 * The remote-write decoder's guessed series (the successor of the previous series, confirmed by
 * its label bytes) against hand-built wire bytes: a hit gives the very entry, more labels after
 * the guessed bytes or a label after the samples give the series those labels really name, and
 * skipped parts are counted once.
 */
import t from 'tap';
import { SeriesCache } from '../../../../src/shared/ingest/byte-series-cache.js';
import { decodeWriteRequest } from '../../../../src/shared/ingest/prom-remote/write-decode.js';

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
function field(tag: number, body: number[]): number[] {
  return [tag, ...varint(body.length), ...body];
}
function label(name: string, value: string): number[] {
  return field(0x0a, [...field(0x0a, [...Buffer.from(name)]), ...field(0x12, [...Buffer.from(value)])]);
}
function sample(value: number, ms: number): number[] {
  const v = Buffer.alloc(8);
  v.writeDoubleLE(value);
  return field(0x12, [0x09, ...v, 0x10, ...varint(ms)]);
}
const exemplar = field(0x1a, [0x09, 0, 0, 0, 0, 0, 0, 0, 0]);
function request(...series: number[][]): Uint8Array {
  return Uint8Array.from(series.flatMap((s) => field(0x0a, s)));
}
const tags = (entry: { table: string; tagNames: readonly string[]; tagValues: readonly string[] }) =>
  `${entry.table}{${entry.tagNames.map((n, i) => `${n}=${entry.tagValues[i]}`).join(',')}}`;

t.test('guessed series', async (t) => {
  const resolver = { cache: new SeriesCache(1000), defaultDb: 'public', shards: 2 };
  const a = [...label('__name__', 'm'), ...label('job', 'a')];
  const b = [...label('__name__', 'm'), ...label('job', 'b')];
  // The decoder reuses its series list from request to request: keep the entry, not the list.
  const firstB = decodeWriteRequest(request([...a, ...sample(1, 1)], [...b, ...sample(2, 1)]), resolver).series[1];
  const again = decodeWriteRequest(request([...a, ...sample(3, 2)], [...b, ...sample(4, 2)]), resolver);
  t.equal(again.series[1], firstB, 'the successor is guessed and confirmed');
  t.same(Array.from(again.values.subarray(0, 2)), [3, 4]);

  const longer = decodeWriteRequest(
    request([...a, ...sample(5, 3)], [...b, ...label('zone', 'z'), ...sample(6, 3)]),
    resolver,
  );
  t.equal(tags(longer.series[1] as never), 'm{job=b,zone=z}', 'more labels after the guessed bytes');

  const late = decodeWriteRequest(
    request([...a, ...sample(7, 4)], [...b, ...sample(8, 4), ...exemplar, ...label('zone', 'y'), ...sample(9, 5)]),
    resolver,
  );
  t.equal(tags(late.series[1] as never), 'm{job=b,zone=y}', 'a label after the samples');
  t.same(Array.from(late.values.subarray(0, late.sampleCount)), [7, 8, 9]);
  t.equal(late.sampleCounts[1], 2);
  t.equal(late.exemplarCount, 1, 'the exemplar is counted once');
});

/** A varint of a 64-bit two's complement integer (negative times are 10 bytes). */
function varint64(n: bigint): number[] {
  let u = BigInt.asUintN(64, n);
  const out: number[] = [];
  while (u >= 0x80n) {
    out.push(Number(u & 0x7fn) | 0x80);
    u >>= 7n;
  }
  out.push(Number(u));
  return out;
}
function double(value: number): number[] {
  const v = Buffer.alloc(8);
  v.writeDoubleLE(value);
  return [...v];
}
function bitsOf(value: number): bigint {
  return new BigUint64Array(Float64Array.of(value).buffer)[0] as bigint;
}
const STALE = new Float64Array(BigUint64Array.of(0x7ff0000000000002n).buffer)[0] as number;

t.test('sample layouts: the common one read in one go, every other one as the wire says', async (t) => {
  const series = [...label('__name__', 'm'), ...label('job', 'a')];
  const now = 1_764_400_000_000;
  const cases: Array<{ name: string; body: number[]; value?: number; ms?: number; error?: RegExp }> = [
    { name: 'value then a one-byte time', body: [0x09, ...double(1.5), 0x10, 5], value: 1.5, ms: 5 },
    { name: 'value then a time of now', body: [0x09, ...double(-2), 0x10, ...varint(now)], value: -2, ms: now },
    { name: 'a 7-byte time', body: [0x09, ...double(3), 0x10, ...varint(2 ** 48)], value: 3, ms: 2 ** 48 },
    { name: 'an 8-byte time', body: [0x09, ...double(3), 0x10, ...varint(2 ** 50)], value: 3, ms: 2 ** 50 },
    { name: 'a negative time', body: [0x09, ...double(4), 0x10, ...varint64(-1000n)], value: 4, ms: -1000 },
    { name: 'time before value', body: [0x10, ...varint(now), 0x09, ...double(6)], value: 6, ms: now },
    { name: 'time 0 omitted', body: [0x09, ...double(7)], value: 7, ms: 0 },
    { name: 'value 0 omitted', body: [0x10, ...varint(now)], value: 0, ms: now },
    { name: 'an unknown field after', body: [0x09, ...double(8), 0x10, 9, 0x18, 1], value: 8, ms: 9 },
    { name: 'a time with a padded varint', body: [0x09, ...double(9), 0x10, 0x85, 0x00], value: 9, ms: 5 },
    {
      name: 'the value given twice: the last wins',
      body: [0x09, ...double(1), 0x09, ...double(2), 0x10, 3],
      value: 2,
      ms: 3,
    },
    { name: '+Inf', body: [0x09, ...double(Infinity), 0x10, 1], value: Infinity, ms: 1 },
    { name: '-Inf', body: [0x09, ...double(-Infinity), 0x10, 1], value: -Infinity, ms: 1 },
    { name: 'a stale marker keeps its bits', body: [0x09, ...double(STALE), 0x10, 1], value: STALE, ms: 1 },
    { name: 'a time cut short', body: [0x09, ...double(1), 0x10, 0x85], error: /truncated varint/ },
    { name: 'a value cut short', body: [0x09, 1, 2, 3], error: /truncated double/ },
  ];
  for (const c of cases) {
    const resolver = { cache: new SeriesCache(1000), defaultDb: 'public', shards: 2 };
    const bytes = request([...series, ...field(0x12, c.body)]);
    if (c.error) {
      t.throws(() => decodeWriteRequest(bytes, resolver), c.error, c.name);
      continue;
    }
    const decoded = decodeWriteRequest(bytes, resolver);
    t.equal(decoded.sampleCount, 1, c.name);
    t.equal(decoded.timestamps[0], c.ms, `${c.name}: time`);
    t.equal(bitsOf(decoded.values[0] as number), bitsOf(c.value as number), `${c.name}: value bits`);
  }
});

t.test('the series list is reused from request to request, cut to each request', async (t) => {
  const resolver = { cache: new SeriesCache(1000), defaultDb: 'public', shards: 2 };
  const job = (j: string) => [...label('__name__', 'm'), ...label('job', j)];
  const three = decodeWriteRequest(
    request([...job('a'), ...sample(1, 1)], [...job('b'), ...sample(2, 1)], [...job('c'), ...sample(3, 1)]),
    resolver,
  );
  const list = three.series;
  t.same(
    three.series.map((e) => tags(e as never)),
    ['m{job=a}', 'm{job=b}', 'm{job=c}'],
  );
  const one = decodeWriteRequest(request([...job('d'), ...sample(4, 1)]), resolver);
  t.equal(one.series, list, 'the same array');
  t.same(
    one.series.map((e) => tags(e as never)),
    ['m{job=d}'],
    'a shorter request leaves nothing of the longer one',
  );
  const empty = decodeWriteRequest(request(), resolver);
  t.equal(empty.series.length, 0);
  const four = decodeWriteRequest(
    request(...['e', 'f', 'g', 'h'].map((j, i) => [...job(j), ...sample(i, 1)])),
    resolver,
  );
  t.same(
    four.series.map((e) => tags(e as never)),
    ['m{job=e}', 'm{job=f}', 'm{job=g}', 'm{job=h}'],
    'and it grows again',
  );
  t.same(Array.from(four.sampleStart.subarray(0, 4)), [0, 1, 2, 3]);
});
