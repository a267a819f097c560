/**
 * limit_ratio picks the series Prometheus picks: a series is in `limit_ratio(r, v)` when its
 * label-set hash (xxHash64 over `name 0xff value 0xff ...`) over 2^64 is below r (above 1 + r
 * for negative r). The oracle here is xxHash64 written out from its specification, checked on
 * the specification's own vectors, so the production hash (a WebAssembly build) and its byte
 * layout are both tested against something independent.
 */
import t from 'tap';
import { instantQuery } from '../../../src/query/promql/engine.js';
import { labelsHashes } from '../../../src/query/promql/labels-hash.js';
import { MemorySource } from '../../../src/query/promql/memory-source.js';
import type { Labels } from '../../../src/query/promql/types.js';

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;
const mul = (a: bigint, b: bigint): bigint => (a * b) & MASK;
const add = (a: bigint, b: bigint): bigint => (a + b) & MASK;
const u64 = (b: Uint8Array, i: number): bigint => new DataView(b.buffer, b.byteOffset + i, 8).getBigUint64(0, true);
const u32 = (b: Uint8Array, i: number): bigint =>
  BigInt(new DataView(b.buffer, b.byteOffset + i, 4).getUint32(0, true));
const round = (acc: bigint, lane: bigint): bigint => mul(rotl(add(acc, mul(lane, P2)), 31n), P1);
const merge = (h: bigint, v: bigint): bigint => add(mul(h ^ round(0n, v), P1), P4);

/** xxHash64 with seed 0, straight from the specification. */
function xxh64(b: Uint8Array): bigint {
  let i = 0;
  let h: bigint;
  if (b.length >= 32) {
    let v1 = add(P1, P2);
    let v2 = P2;
    let v3 = 0n;
    let v4 = (0n - P1) & MASK;
    for (; i + 32 <= b.length; i += 32) {
      v1 = round(v1, u64(b, i));
      v2 = round(v2, u64(b, i + 8));
      v3 = round(v3, u64(b, i + 16));
      v4 = round(v4, u64(b, i + 24));
    }
    h = add(add(rotl(v1, 1n), rotl(v2, 7n)), add(rotl(v3, 12n), rotl(v4, 18n)));
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else h = P5;
  h = add(h, BigInt(b.length));
  for (; i + 8 <= b.length; i += 8) h = add(mul(rotl(h ^ round(0n, u64(b, i)), 27n), P1), P4);
  if (i + 4 <= b.length) {
    h = add(mul(rotl(h ^ mul(u32(b, i), P1), 23n), P2), P3);
    i += 4;
  }
  for (; i < b.length; i++) h = mul(rotl(h ^ mul(BigInt(b[i] as number), P5), 11n), P1);
  h = mul(h ^ (h >> 33n), P2);
  h = mul(h ^ (h >> 29n), P3);
  return h ^ (h >> 32n);
}

/** Prometheus' bytes for a label set. */
function labelBytes(labels: Labels): Uint8Array {
  const parts: number[] = [];
  for (const { name, value } of labels) parts.push(...Buffer.from(name), 0xff, ...Buffer.from(value), 0xff);
  return Uint8Array.from(parts);
}

t.test('the oracle is xxHash64', async (t) => {
  t.equal(xxh64(new Uint8Array()).toString(16), 'ef46db3751d8e999');
  t.equal(xxh64(Buffer.from('abc')).toString(16), '44bc2cf5ad770999');
});

t.test('label-set hashes are xxHash64 over Prometheus’ label bytes', async (t) => {
  const sets: Labels[] = [
    [],
    [{ name: '__name__', value: 'up' }],
    [
      { name: '__name__', value: 'http_requests_total' },
      { name: 'instance', value: '10.0.0.1:9100' },
      { name: 'job', value: 'node' },
    ],
    [{ name: 'city', value: 'Zürich — 東京' }],
    [{ name: 'long', value: 'x'.repeat(3000) }],
  ];
  const got = await labelsHashes(sets);
  for (const [k, labels] of sets.entries()) t.equal(got[k], xxh64(labelBytes(labels)), `set ${k}`);
});

t.test('limit_ratio keeps the series whose hash falls below the ratio', async (t) => {
  const source = new MemorySource();
  const all: Labels[] = [];
  for (let i = 0; i < 40; i++) {
    const labels: Labels = [
      { name: '__name__', value: 'req' },
      { name: 'pod', value: `pod-${i}` },
    ];
    all.push(labels);
    source.add(labels, 0, i);
  }
  const offset = (labels: Labels): number => Number(xxh64(labelBytes(labels))) / 2 ** 64;
  const pods = async (q: string): Promise<string[]> => {
    const r = await instantQuery(q, 0, { source });
    if (r.resultType !== 'vector') throw new Error(r.resultType);
    return r.samples.map((s) => s.labels.find((l) => l.name === 'pod')?.value as string).sort();
  };
  const below = all.filter((l) => offset(l) < 0.3).map((l) => l.find((x) => x.name === 'pod')?.value as string);
  t.ok(below.length > 0 && below.length < 40, 'the ratio splits the series');
  t.same(await pods('limit_ratio(0.3, req)'), below.sort());
  const above = all.filter((l) => offset(l) >= 1 - 0.7).map((l) => l.find((x) => x.name === 'pod')?.value as string);
  t.same(await pods('limit_ratio(-0.7, req)'), above.sort());
});
