/**
 * A series' rows in time order: the order is (timestamp, write order) for timestamps near each
 * other (compared as doubles), far apart (compared as BigInts), negative, and equal.
 */
import t from 'tap';
import { MemSeries } from '../../../src/shard/memtable/mem-series.js';
import { prng } from '../../helpers/prng.js';

const rand = prng(Number(process.env.MEM_SERIES_SEED ?? 5));

/** The reference order: a stable sort of positions by BigInt timestamp. */
function expected(ts: BigInt64Array, rows: number[]): number[] {
  return rows
    .map((row, i) => ({ t: ts[row] as bigint, i }))
    .sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.i - b.i))
    .map((x) => x.i);
}

const REGIMES: Array<[string, () => bigint]> = [
  ['nanoseconds within a minute', () => 1_700_000_000_000_000_000n + BigInt(Math.floor(rand() * 60e9))],
  ['equal high words, low words across the sign bit', () => 0x1_0000_0000n * 7n + BigInt(Math.floor(rand() * 2 ** 32))],
  ['negative and positive', () => BigInt(Math.floor(rand() * 2e12)) - 1_000_000_000_000n],
  [
    'spanning centuries of nanoseconds',
    () => BigInt(Math.floor(rand() * 2 ** 40)) * 0x1_0000_0000n * (rand() < 0.5 ? -1n : 1n),
  ],
  ['the extremes', () => (rand() < 0.5 ? -(2n ** 63n) : 2n ** 63n - 1n) - BigInt(Math.floor(rand() * 3))],
  ['many duplicates', () => 1_000n + BigInt(Math.floor(rand() * 4))],
  // Mostly in order, a few rows late (the insertion sort's case), with equal timestamps.
  [
    'nearly in order',
    (() => {
      let t = 1_700_000_000_000_000_000n;
      return () => {
        t += BigInt(Math.floor(rand() * 3));
        return rand() < 0.1 ? t - BigInt(Math.floor(rand() * 20)) : t;
      };
    })(),
  ],
];

for (const [name, next] of REGIMES) {
  t.test(name, async (t) => {
    for (let round = 0; round < 50; round++) {
      const tableRows = 1 + Math.floor(rand() * 300);
      const ts = new BigInt64Array(tableRows);
      for (let r = 0; r < tableRows; r++) ts[r] = next();
      const series = new MemSeries('k');
      const prev = new Int32Array(tableRows);
      const rows: number[] = [];
      for (let r = 0; r < tableRows; r++) {
        if (rand() >= 0.6) continue;
        prev[r] = series.lastRow;
        if (series.count === 0) series.firstRow = r;
        series.lastRow = r;
        series.count++;
        rows.push(r);
      }
      const got = [...series.sortedRows(ts, prev)];
      const want = expected(ts, rows).map((i) => rows[i] as number);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        t.same(got, want, `round ${round}`);
        return;
      }
    }
    t.pass('50 rounds in (timestamp, write order)');
  });
}
