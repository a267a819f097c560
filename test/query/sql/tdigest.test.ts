import t from 'tap';
import { DIGEST_BATCH, PERCENTILE_FUNCTIONS } from '../../../src/query/sql/functions/aggregate-percentile.js';
import { WEIGHTED_PERCENTILE_FUNCTIONS } from '../../../src/query/sql/functions/aggregate-weighted-percentile.js';
import { sortFloat64 } from '../../../src/query/sql/functions/sort-f64.js';
import {
  digestSorted,
  estimateQuantile,
  mergeDigests,
  newDigest,
  type TDigest,
} from '../../../src/query/sql/functions/tdigest.js';
import type { AggregateFunction } from '../../../src/query/sql/functions/types.js';
import { prng } from '../../helpers/prng.js';

// The t-digest behind approx_percentile_cont: DataFusion's answers where they are known, a small
// rank error where they are not, and shard states that merge to what one state gives.

function digestOf(values: number[], maxSize = 100): TDigest {
  const digest = newDigest(maxSize);
  const sorted = Float64Array.from(values).sort();
  digestSorted(digest, sorted, sorted.length);
  return digest;
}

const range = (n: number, f: (i: number) => number = (i) => i): number[] => Array.from({ length: n }, (_, i) => f(i));

// GreptimeDB's sqlness transcripts (aggregate/approx_percentile_cont, approx_median): one batch.
const KNOWN: Array<[name: string, values: number[], q: number, want: number]> = [
  ['0..999, 0.5', range(1000), 0.5, 499.25],
  ['0..999, 0.25', range(1000), 0.25, 249.575],
  ['0..999, 0.75', range(1000), 0.75, 749.375],
  ['0..999, 0.95', range(1000), 0.95, 949.6607142857143],
  ['0..999, 0.95 DESC', range(1000), 1 - 0.95, 49.50000000000004],
  ['0..999, 0', range(1000), 0, 0],
  ['0..999, 1', range(1000), 1, 999],
  ['1.5 × 0..999, 0.5', range(1000, (i) => i * 1.5), 0.5, 748.875],
  ['1.5 × 0..999, 0.9', range(1000, (i) => i * 1.5), 0.9, 1349.25],
  ['0..299 step 3, 0.5', range(100, (i) => i * 3), 0.5, 148.125],
  ['1..299 step 3, 0.5', range(100, (i) => i * 3 + 1), 0.5, 149.125],
  ['2..299 step 3, 0.5', range(100, (i) => i * 3 + 2), 0.5, 150.125],
  ['1.1..5.5, 0.5', [1.1, 2.2, 3.3, 4.4, 5.5], 0.5, 3.3],
  ['1, 2, 4, 5, 0.5', [1, 2, 4, 5], 0.5, 3.25],
  ['pairs 1..4, 0.5', [1, 1, 2, 2, 3, 3, 4, 4], 0.5, 2.75],
  ['one value', [7], 0.3, 7],
];

t.test("small inputs give DataFusion's answers", async (t) => {
  for (const [name, values, q, want] of KNOWN) t.equal(estimateQuantile(digestOf(values), q), want, name);
  t.equal(estimateQuantile(newDigest(100), 0.5), null, 'empty');
});

/** The fraction of `sorted` below `x`, averaged with at-or-below (ties count half). */
function rankOf(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  let le = lo;
  while (le < sorted.length && sorted[le] === x) le++;
  return (lo + le) / 2 / sorted.length;
}

const DISTRIBUTIONS: Array<[name: string, draw: (rand: () => number) => number]> = [
  ['uniform', (rand) => rand() * 100],
  ['normal', (rand) => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()) * 10 + 50],
  ['log-normal', (rand) => Math.exp(Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()) * 1.5)],
  ['few distinct', (rand) => Math.floor(rand() * 20)],
];

const FRACTIONS = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99];
const fn = PERCENTILE_FUNCTIONS.approx_percentile_cont as AggregateFunction;

/** States fed `values` in scan-sized runs through the Float64 fold, as a shard does. */
function foldInto(state: unknown, values: Float64Array): void {
  for (let from = 0; from < values.length; from += 5000) {
    const fold = fn.updateFloat64Run as NonNullable<AggregateFunction['updateFloat64Run']>;
    fold(state, values, undefined, from, Math.min(values.length, from + 5000));
  }
}

function estimate(q: number, parts: Float64Array[]): number {
  const states = parts.map((part) => {
    const state = fn.create([undefined, q]);
    foldInto(state, part);
    return structuredClone(state);
  });
  const [into, ...rest] = states;
  for (const from of rest) fn.merge(into, from);
  return fn.finish(into, 'Float64') as number;
}

t.test('large inputs: the estimate is within a small rank error of the exact quantile', async (t) => {
  const seed = Number(process.env.TDIGEST_SEED ?? 11);
  for (const [name, draw] of DISTRIBUTIONS) {
    const rand = prng(seed);
    const values = Float64Array.from({ length: 200_000 }, () => draw(rand));
    const sorted = values.slice().sort();
    for (const q of FRACTIONS) {
      const got = estimate(q, [values]);
      const error = Math.abs(rankOf(sorted, got) - q);
      // Ties make a run of ranks one value: its whole run is within reach.
      const tieSlack = name === 'few distinct' ? 0.05 : 0;
      t.ok(error <= 0.005 + tieSlack, `${name} q=${q}: rank error ${error.toFixed(5)} (estimate ${got})`);
    }
  }
});

t.test('states from several shards merge to what one state gives, within the same tolerance', async (t) => {
  const rand = prng(Number(process.env.TDIGEST_SEED ?? 12));
  const values = Float64Array.from({ length: 120_000 }, () => Math.exp(rand() * 6));
  const sorted = values.slice().sort();
  for (const shards of [2, 3, 4]) {
    // Rows go to shards by a random draw, as series do by hash.
    const parts = Array.from({ length: shards }, () => [] as number[]);
    for (const v of values) (parts[Math.floor(rand() * shards)] as number[]).push(v);
    const split = parts.map((p) => Float64Array.from(p));
    for (const q of FRACTIONS) {
      const one = rankOf(sorted, estimate(q, [values]));
      const many = rankOf(sorted, estimate(q, split));
      t.ok(Math.abs(one - many) <= 0.005, `${shards} shards q=${q}: ranks ${one} vs ${many}`);
      t.ok(Math.abs(many - q) <= 0.005, `${shards} shards q=${q}: rank ${many}`);
    }
  }
});

t.test('a small table split over shards is estimated as one batch', async (t) => {
  const rand = prng(5);
  const values = Float64Array.from({ length: DIGEST_BATCH - 1 }, () => rand() * 1000);
  const parts = [values.subarray(0, 3000), values.subarray(3000)];
  for (const q of [0.1, 0.5, 0.9]) {
    t.equal(estimate(q, parts), estimateQuantile(digestOf([...values]), q), `q=${q}`);
  }
});

t.test('merging digests keeps the count, the extremes and the centroid bound', async (t) => {
  const rand = prng(9);
  const digests = Array.from({ length: 5 }, () => digestOf(range(3000, () => rand() * 10 - 5)));
  const merged = mergeDigests(digests, 100);
  t.equal(merged.count, 15_000);
  t.equal(merged.min, Math.min(...digests.map((d) => d.min)));
  t.equal(merged.max, Math.max(...digests.map((d) => d.max)));
  t.ok(merged.means.length <= 101, `${merged.means.length} centroids`);
  t.same(mergeDigests([newDigest(100), newDigest(100)], 100).count, 0);
});

t.test('the batch sort orders exactly as Float64Array.prototype.sort', async (t) => {
  const rand = prng(17);
  const shapes: Array<[name: string, draw: () => number]> = [
    ['uniform', () => rand() * 100],
    ['rounded', () => Math.round(rand() * 1000) / 10],
    ['heavy tail', () => Math.exp(rand() * 40)],
    ['few distinct', () => Math.floor(rand() * 5)],
    ['negative and positive', () => (rand() - 0.5) * 1e6],
    ['with NaN', () => (rand() < 0.01 ? Number.NaN : rand())],
    ['with -0', () => (rand() < 0.01 ? -0 : rand() < 0.01 ? 0 : rand() - 0.5)],
    ['with infinities', () => (rand() < 0.01 ? Number.POSITIVE_INFINITY : rand() < 0.01 ? -Infinity : rand())],
    ['one value', () => 42],
  ];
  for (const [name, draw] of shapes) {
    for (const n of [1, 63, 64, 1000, DIGEST_BATCH]) {
      const values = Float64Array.from({ length: n }, draw);
      const want = values.slice().sort();
      sortFloat64(values);
      t.ok(
        values.every((v, i) => Object.is(v, want[i])),
        `${name}, ${n} values`,
      );
    }
  }
});

t.test('the weighted percentile keeps a bounded digest past a batch, within the rank tolerance', async (t) => {
  const weighted = WEIGHTED_PERCENTILE_FUNCTIONS.approx_percentile_cont_with_weight as AggregateFunction;
  const rand = prng(23);
  const n = 50_000;
  const values = Array.from({ length: n }, () => rand() * 1000);
  const weights = Array.from({ length: n }, () => 1 + Math.floor(rand() * 4));
  // The exact quantile of the values repeated by their weights.
  const expanded = Float64Array.from(values.flatMap((v, i) => new Array<number>(weights[i] as number).fill(v))).sort();
  for (const q of [0.05, 0.5, 0.95]) {
    const states = [0, 1].map(() => weighted.create());
    for (let from = 0; from < n; from += 4096) {
      const to = Math.min(n, from + 4096);
      const rows = to - from;
      // Rows alternate between two shards' states.
      const groupOf = Uint32Array.from({ length: rows }, (_, r) => r % 2);
      const args = [values.slice(from, to), weights.slice(from, to), new Array<number>(rows).fill(q)];
      weighted.update(states, groupOf, args, rows, ['Float64', 'Float64', 'Float64']);
    }
    const [into, from] = states.map((s) => structuredClone(s));
    weighted.merge(into, from);
    t.ok(((into as { digest: TDigest }).digest.means.length as number) <= 101, 'bounded');
    const got = weighted.finish(into, 'Float64') as number;
    t.ok(Math.abs(rankOf(expanded, got) - q) <= 0.005, `q=${q}: rank ${rankOf(expanded, got)}`);
  }
});
