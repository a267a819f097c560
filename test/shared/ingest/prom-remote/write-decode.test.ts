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
  const first = decodeWriteRequest(request([...a, ...sample(1, 1)], [...b, ...sample(2, 1)]), resolver);
  const again = decodeWriteRequest(request([...a, ...sample(3, 2)], [...b, ...sample(4, 2)]), resolver);
  t.equal(again.series[1], first.series[1], 'the successor is guessed and confirmed');
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
