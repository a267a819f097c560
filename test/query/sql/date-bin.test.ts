import t from 'tap';
import { scalarFunction } from '../../../src/query/sql/functions/registry.js';
import { type Batch, evaluate } from '../../../src/query/sql/plan/eval.js';
import type { PlanExpr } from '../../../src/query/sql/plan/plan.js';
import type { Value } from '../../../src/query/sql/types/value.js';
import { floorDiv } from '../../../src/shared/bigint-math.js';
import type { DataType } from '../../../src/shared/types.js';
import { prng } from '../../helpers/prng.js';

const dateBin = scalarFunction('date_bin');
const PER: Record<string, bigint> = {
  TimestampSecond: 1_000_000_000n,
  TimestampMillisecond: 1_000_000n,
  TimestampMicrosecond: 1_000n,
  TimestampNanosecond: 1n,
};

/** date_bin by its definition, row by row. */
function expected(stride: bigint, ts: bigint, origin: bigint | undefined, per: bigint): bigint {
  const o = (origin ?? 0n) * per;
  return floorDiv(o + floorDiv(ts * per - o - 0n, stride) * stride, per);
}

t.test('runs of rows in one bin answer as the arithmetic does, whatever the unit, stride and origin', async (t) => {
  const next = prng(11);
  for (const type of Object.keys(PER) as DataType[]) {
    const per = PER[type] as bigint;
    for (let trial = 0; trial < 40; trial++) {
      const n = 400;
      const strides: Value[] = [];
      const times: Value[] = [];
      const origins: Value[] = [];
      // Time runs forward in small steps, jumps back now and then (a new series), crosses zero,
      // and the stride or origin changes between rows sometimes.
      let ts = BigInt(Math.floor((next() - 0.5) * 1e6));
      let stride = BigInt(1 + Math.floor(next() * 5)) * (per * 7n + 3n);
      let origin = BigInt(Math.floor((next() - 0.5) * 1000));
      for (let r = 0; r < n; r++) {
        const u = next();
        if (u < 0.03) ts -= BigInt(Math.floor(next() * 5000));
        else ts += BigInt(Math.floor(next() * 4));
        if (next() < 0.02) stride = BigInt(1 + Math.floor(next() * 5)) * (per * 7n + 3n);
        if (next() < 0.02) origin = BigInt(Math.floor((next() - 0.5) * 1000));
        strides.push(stride);
        times.push(ts);
        origins.push(origin);
      }
      const got3 = dateBin.evaluate([strides, times, origins], n, {} as never, type);
      const got2 = dateBin.evaluate([strides, times], n, {} as never, type);
      let bad = 0;
      for (let r = 0; r < n; r++) {
        const s = strides[r] as bigint;
        const v = times[r] as bigint;
        if (got3[r] !== expected(s, v, origins[r] as bigint, per)) bad++;
        if (got2[r] !== expected(s, v, undefined, per)) bad++;
      }
      if (bad > 0) {
        t.fail(`${type} trial ${trial}: ${bad} rows differ`);
        return;
      }
    }
    t.pass(`${type}: 40 × 400 rows agree`);
  }
});

t.test('NULLs and a non-positive stride keep their meaning inside a run', async (t) => {
  const s = 60_000_000_000n; // strides come in nanoseconds
  const got = dateBin.evaluate(
    [
      [s, s, s, s],
      [1_000n, null, 1_500n, 61_000n],
    ],
    4,
    {} as never,
    'TimestampMillisecond',
  );
  t.same(got, [0n, null, 0n, 60_000n]);
  t.throws(
    () =>
      dateBin.evaluate(
        [
          [s, 0n],
          [1_000n, 1_200n],
        ],
        2,
        {} as never,
        'TimestampMillisecond',
      ),
    /stride must be non-zero/,
  );
});

t.test(
  'over a storage vector (no BigInt a row) date_bin answers as over values, with and without a selection',
  async (t) => {
    const next = prng(23);
    for (const type of Object.keys(PER) as DataType[]) {
      const per = PER[type] as bigint;
      // Magnitudes a table holds (seconds to nanoseconds since 1970, before it) and the int64 ends,
      // where a bin's upper bound leaves the range and rows must take the long way.
      const starts = [0n, 1_700_000_000n * (1_000_000_000n / per), -86_400n * 365n * (1_000_000_000n / per)];
      starts.push(2n ** 63n - 5_000_000n, -(2n ** 63n) + 10n);
      let bad = 0;
      let rows = 0;
      for (const base of starts) {
        for (let trial = 0; trial < 20; trial++) {
          const n = 300;
          const cells = new BigInt64Array(n);
          let ts = base;
          for (let r = 0; r < n; r++) {
            const step = BigInt(Math.floor(next() * 2_000_000)) - (next() < 0.05 ? 3_000_000n : 0n);
            const moved = ts + step;
            if (moved < 2n ** 63n && moved >= -(2n ** 63n)) ts = moved;
            cells[r] = ts;
          }
          const stride = BigInt(1 + Math.floor(next() * 9)) * (next() < 0.5 ? 1_000_000n : per * 60n);
          const origin = next() < 0.5 ? undefined : BigInt(Math.floor((next() - 0.5) * 1e9));
          const selection =
            next() < 0.5
              ? undefined
              : Uint32Array.from(Array.from({ length: n }, (_, r) => r).filter(() => next() < 0.6));
          const m = selection === undefined ? n : selection.length;
          const args: PlanExpr[] = [
            { kind: 'literal', value: stride, type: 'Int64' },
            { kind: 'column', index: 0, type },
          ];
          if (origin !== undefined) args.push({ kind: 'literal', value: origin, type });
          const values = Array.from(
            { length: m },
            (_, r) => cells[selection === undefined ? r : (selection[r] as number)],
          );
          const batch: Batch = {
            rowCount: m,
            columns: [values as Value[]],
            vectors: [{ kind: 'i64', values: cells }],
            selection,
          };
          let got: Value[];
          try {
            got = evaluate({ kind: 'call', name: 'date_bin', args, type }, batch, { nowNanos: 0n, timezone: 'UTC' });
          } catch (err) {
            // Past the int64 range the arithmetic overflows alike on both paths; skip such runs.
            t.match(String(err), /./);
            continue;
          }
          for (let r = 0; r < m; r++) {
            rows++;
            if (got[r] !== expected(stride, values[r] as bigint, origin, per)) bad++;
          }
        }
      }
      t.equal(bad, 0, `${type}: ${rows} rows over typed cells agree with the definition`);
    }
  },
);

t.test('the typed path is taken only for a plain int64 column without NULLs', async (t) => {
  const cells = BigInt64Array.from([1_000n, 61_000n, 125_000n]);
  const call = (vectors: Batch['vectors']): Value[] =>
    evaluate(
      {
        kind: 'call',
        name: 'date_bin',
        args: [
          { kind: 'literal', value: 60_000_000_000n, type: 'Int64' },
          { kind: 'column', index: 0, type: 'TimestampMillisecond' },
        ],
        type: 'TimestampMillisecond',
      },
      // The column's values differ from the cells on purpose: which of them is read shows the path.
      { rowCount: 3, columns: [[0n, 0n, null]], vectors },
      { nowNanos: 0n, timezone: 'UTC' },
    );
  t.same(call([{ kind: 'i64', values: cells }]), [0n, 60_000n, 120_000n], 'cells read when the vector is plain');
  t.same(
    call([{ kind: 'i64', values: cells, valid: Uint8Array.from([1, 1, 0]) }]),
    [0n, 0n, null],
    'values read when it has NULLs',
  );
  t.same(call(undefined), [0n, 0n, null], 'values read without a vector');
});

t.test('typed cells at bin edges, where the low 32-bit word wraps and below zero', async (t) => {
  const stride = 1_000n; // ms bins of 1 s: the stride arrives in nanoseconds
  const edges: bigint[] = [];
  for (const centre of [2n ** 32n, 2n ** 31n, 0n, -(2n ** 32n), 3n * 2n ** 32n + 500n]) {
    const bin = floorDiv(centre, stride) * stride;
    for (const k of [-2n, -1n, 0n, 1n, 2n]) for (const d of [-1n, 0n, 1n]) edges.push(bin + k * stride + d);
  }
  // Every edge in increasing order, so each row is first tried against the previous row's bin.
  const cells = BigInt64Array.from([...new Set(edges)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  const got = evaluate(
    {
      kind: 'call',
      name: 'date_bin',
      args: [
        { kind: 'literal', value: stride * 1_000_000n, type: 'Int64' },
        { kind: 'column', index: 0, type: 'TimestampMillisecond' },
      ],
      type: 'TimestampMillisecond',
    },
    { rowCount: cells.length, columns: [Array.from(cells)], vectors: [{ kind: 'i64', values: cells }] },
    { nowNanos: 0n, timezone: 'UTC' },
  );
  const wrong = Array.from(cells).filter((v, r) => got[r] !== floorDiv(v, stride) * stride);
  t.same(wrong, [], `${cells.length} edge cells land in their bins`);
});
