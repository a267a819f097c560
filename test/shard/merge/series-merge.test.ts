/**
 * The series merge: parts (oldest first) come out in time order, duplicates resolved by merge
 * mode, and the buffer can be drained mid-series.
 */
import t from 'tap';
import type { FieldSpec, Part } from '../../../src/shard/merge/part.js';
import { RowBuffer } from '../../../src/shard/merge/row-buffer.js';
import { mergeSeries } from '../../../src/shard/merge/series-merge.js';
import type { MergeMode } from '../../../src/shared/codec/write-batch.js';
import { prng } from '../../helpers/prng.js';

const SPECS: FieldSpec[] = [
  { id: 1, kind: 'f64' },
  { id: 2, kind: 'str' },
];

/** A part from [ts, f64 or null, str or null] rows. */
function part(rows: Array<[number, number | null, string | null]>, unique = true): Part {
  const n = rows.length;
  return {
    ts: BigInt64Array.from(rows.map((r) => BigInt(r[0]))),
    start: 0,
    end: n,
    cols: [
      {
        values: Float64Array.from(rows.map((r) => r[1] ?? 0)),
        valid: Uint8Array.from(rows.map((r) => (r[1] === null ? 0 : 1))),
      },
      { values: rows.map((r) => r[2]), valid: undefined },
    ],
    unique,
  };
}

/** Runs the merge with a small buffer, draining it whenever the merge yields. */
function merge(
  parts: Part[],
  mode: MergeMode,
  capacity = 3,
  lazy = false,
): Array<[number, number | null, string | null]> {
  const buf = new RowBuffer(SPECS, capacity, lazy);
  const out: Array<[number, number | null, string | null]> = [];
  const drain = () => {
    const rows = buf.detach();
    for (let i = 0; i < rows.length; i++) {
      const f = (rows.valid[0] as Uint8Array)[i] ? ((rows.values[0] as Float64Array)[i] as number) : null;
      const s = (rows.valid[1] as Uint8Array)[i] ? ((rows.values[1] as string[])[i] as string) : null;
      out.push([Number(rows.ts[i]), f, s]);
    }
  };
  buf.markSeries('k');
  for (const _ of mergeSeries(parts, mode, buf)) {
    t.equal(buf.free, 0, 'the merge yields only with a full buffer');
    drain();
  }
  drain();
  return out;
}

t.test('non-overlapping parts are concatenated in time order', async (t) => {
  const older = part([
    [5, 1, 'a'],
    [6, 2, 'b'],
  ]);
  const newer = part([
    [1, 3, null],
    [2, 4, 'd'],
    [3, 5, 'e'],
  ]);
  t.same(merge([older, newer], 'last_row'), [
    [1, 3, null],
    [2, 4, 'd'],
    [3, 5, 'e'],
    [5, 1, 'a'],
    [6, 2, 'b'],
  ]);
});

const OLD = () =>
  part([
    [1, 1, 'old1'],
    [2, 2, 'old2'],
    [4, null, 'old4'],
  ]);
const NEW = () =>
  part([
    [2, null, 'new2'],
    [3, 30, null],
    [4, 40, null],
  ]);

t.test('last_row: the newest row of a timestamp wins entirely', async (t) => {
  t.same(merge([OLD(), NEW()], 'last_row'), [
    [1, 1, 'old1'],
    [2, null, 'new2'],
    [3, 30, null],
    [4, 40, null],
  ]);
});

t.test('last_non_null: each field takes the newest non-null value', async (t) => {
  t.same(merge([OLD(), NEW()], 'last_non_null'), [
    [1, 1, 'old1'],
    [2, 2, 'new2'],
    [3, 30, null],
    [4, 40, 'old4'],
  ]);
});

t.test('append: every row is kept, duplicates oldest first', async (t) => {
  t.same(merge([OLD(), NEW()], 'append'), [
    [1, 1, 'old1'],
    [2, 2, 'old2'],
    [2, null, 'new2'],
    [3, 30, null],
    [4, null, 'old4'],
    [4, 40, null],
  ]);
});

t.test('duplicates inside one part resolve in row (write) order', async (t) => {
  const p = part(
    [
      [1, 1, 'a'],
      [1, 2, null],
      [2, 3, 'c'],
    ],
    false,
  );
  t.same(merge([p], 'last_row'), [
    [1, 2, null],
    [2, 3, 'c'],
  ]);
  t.same(merge([p], 'last_non_null'), [
    [1, 2, 'a'],
    [2, 3, 'c'],
  ]);
  t.same(merge([p], 'append').length, 3);
});

t.test('a part without a column reads it as NULL, and last_non_null skips it', async (t) => {
  const withoutStr: Part = { ...part([[1, 9, null]]), cols: [part([[1, 9, null]]).cols[0] ?? null, null] };
  t.same(merge([part([[1, 1, 'kept']]), withoutStr], 'last_non_null'), [[1, 9, 'kept']]);
  t.same(merge([part([[1, 1, 'kept']]), withoutStr], 'last_row'), [[1, 9, null]]);
});

t.test('empty parts are ignored', async (t) => {
  const empty: Part = { ...part([[1, 1, 'x']]), start: 1 };
  t.same(merge([empty], 'last_row'), []);
  t.same(merge([empty, part([[2, 2, 'y']])], 'last_row'), [[2, 2, 'y']]);
});

/** The merge modes over plain rows: (timestamp, part age, row) order, equal timestamps grouped. */
function model(parts: Array<Array<[number, number | null, string | null]>>, mode: MergeMode) {
  const all = parts.flatMap((rows, age) => rows.map((r, i) => ({ r, age, i })));
  all.sort((a, b) => a.r[0] - b.r[0] || a.age - b.age || a.i - b.i);
  const out: Array<[number, number | null, string | null]> = [];
  for (let j = 0; j < all.length; ) {
    let k = j;
    while (k < all.length && all[k]?.r[0] === all[j]?.r[0]) k++;
    const group = all.slice(j, k).map((e) => e.r);
    if (mode === 'append') out.push(...group);
    else if (mode === 'last_row') out.push(group[group.length - 1] as [number, number | null, string | null]);
    else {
      let f: number | null = null;
      let s: string | null = null;
      for (const [, gf, gs] of group) {
        if (gf !== null) f = gf;
        if (gs !== null) s = gs;
      }
      out.push([group[0]?.[0] as number, f, s]);
    }
    j = k;
  }
  return out;
}

t.test('parts that overlap only in places merge like the model (disjoint runs copied, the rest merged)', async (t) => {
  const rand = prng(29);
  for (const mode of ['last_row', 'last_non_null', 'append'] as MergeMode[]) {
    let agree = 0;
    for (let round = 0; round < 200; round++) {
      const rows: Array<Array<[number, number | null, string | null]>> = [];
      const n = 2 + Math.floor(rand() * 5);
      for (let p = 0; p < n; p++) {
        // Mostly consecutive ranges, some reaching back into older ones, some with duplicates.
        const start = p * 10 + (rand() < 0.3 ? -Math.floor(rand() * 15) : 0);
        const ts: number[] = [];
        for (let i = 0; i < 1 + Math.floor(rand() * 6); i++) ts.push(start + Math.floor(rand() * 10));
        ts.sort((a, b) => a - b);
        rows.push(ts.map((x, i) => [x, rand() < 0.2 ? null : p * 100 + i, rand() < 0.5 ? null : `p${p}r${i}`]));
      }
      const parts = rows.map((r) => part(r, new Set(r.map((x) => x[0])).size === r.length));
      if (JSON.stringify(merge(parts, mode, 2)) === JSON.stringify(model(rows, mode))) agree++;
      else t.fail(`${mode} round ${round}: ${JSON.stringify(rows)}`);
    }
    t.equal(agree, 200, `${mode}: 200 random part sets agree`);
  }
});

t.test('a lazy buffer grows with its rows and gives the same rows as a full one', async (t) => {
  const empty = new RowBuffer(SPECS, 4096, true).detach();
  t.same(
    [empty.length, empty.ts.length, (empty.valid[0] as Uint8Array).length],
    [0, 0, 0],
    'no room made before a row',
  );
  const rand = prng(31);
  for (const mode of ['last_row', 'last_non_null', 'append'] as MergeMode[]) {
    // Runs long and short (copied in bulk and row by row), past the first room of 256 rows and
    // across several chunks of 1,000, so that growing and later chunks' room are both exercised.
    const rows: Array<Array<[number, number | null, string | null]>> = [];
    let at = 0;
    for (let p = 0; p < 40; p++) {
      const run: Array<[number, number | null, string | null]> = [];
      const length = rand() < 0.5 ? 1 + Math.floor(rand() * 10) : 50 + Math.floor(rand() * 300);
      for (let i = 0; i < length; i++) {
        at += rand() < 0.1 ? 0 : 1;
        run.push([at, rand() < 0.1 ? null : at * 2, rand() < 0.3 ? null : `v${at}`]);
      }
      rows.push(run);
    }
    const parts = rows.map((r) => part(r, new Set(r.map((x) => x[0])).size === r.length));
    const eager = merge(parts, mode, 1000);
    t.ok(eager.length > 2000, `${mode}: ${eager.length} rows`);
    t.same(merge(parts, mode, 1000, true), eager, `${mode}: lazy and full buffers agree`);
    t.same(eager, model(rows, mode), `${mode}: and agree with the model`);
  }
});

t.test('overlapping parts order by the whole 64-bit timestamp (sign, high and low words)', async (t) => {
  const rand = prng(23);
  // Timestamps that differ only in the high word, only in the low word across 2^31, or in sign.
  const POOL = [
    -(2n ** 63n),
    -(2n ** 32n),
    -1n,
    0n,
    1n,
    2n ** 31n - 1n,
    2n ** 31n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 32n + 2n ** 31n,
    2n ** 62n,
    2n ** 63n - 1n,
  ];
  for (let round = 0; round < 200; round++) {
    const parts: Part[] = [];
    const rows: Array<{ ts: bigint; age: number; value: number }> = [];
    for (let age = 0; age < 2 + Math.floor(rand() * 3); age++) {
      const ts = [
        ...new Set(
          Array.from({ length: 1 + Math.floor(rand() * 6) }, () => POOL[Math.floor(rand() * POOL.length)] as bigint),
        ),
      ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const values = ts.map((_, i) => age * 100 + i);
      for (let i = 0; i < ts.length; i++) rows.push({ ts: ts[i] as bigint, age, value: values[i] as number });
      parts.push({
        ts: BigInt64Array.from(ts),
        start: 0,
        end: ts.length,
        cols: [
          { values: Float64Array.from(values), valid: undefined },
          { values: ts.map(() => null), valid: undefined },
        ],
        unique: true,
      });
    }
    const buf = new RowBuffer(SPECS, 4096);
    buf.markSeries('k');
    for (const _ of mergeSeries(parts, 'last_row', buf)) t.fail('no yield with a large buffer');
    const out = buf.detach();
    const got = Array.from({ length: out.length }, (_, i) => [String(out.ts[i]), (out.values[0] as Float64Array)[i]]);
    const newest = new Map<bigint, number>();
    for (const r of rows) newest.set(r.ts, r.value); // rows are in age order: the newest wins
    const want = [...newest.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([ts, v]) => [String(ts), v]);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      t.same(got, want, `round ${round}`);
      return;
    }
  }
  t.pass('200 rounds');
});

t.test("a run's pieces merge as one input: read when reached, released when passed", async (t) => {
  const rand = prng(37);
  for (const mode of ['last_row', 'last_non_null', 'append'] as MergeMode[]) {
    for (let round = 0; round < 60; round++) {
      // A few sources (segments), each one time-sorted run cut into pieces (blocks) that often
      // share a timestamp at their edges; sources overlap in time.
      const sources: Array<Array<[number, number | null, string | null]>> = [];
      const parts: Part[] = [];
      const loads = new Map<Part, number>();
      let released = 0;
      const pieceCount: number[] = [];
      for (let s = 0; s < 2 + Math.floor(rand() * 3); s++) {
        let at = Math.floor(rand() * 20);
        const rows: Array<[number, number | null, string | null]> = [];
        const run = {};
        const pieces = 2 + Math.floor(rand() * 5);
        pieceCount.push(pieces);
        for (let b = 0; b < pieces; b++) {
          const block: Array<[number, number | null, string | null]> = [];
          for (let i = 0; i < 1 + Math.floor(rand() * 6); i++) {
            at += rand() < 0.4 ? 0 : 1 + Math.floor(rand() * 3);
            block.push([
              at,
              rand() < 0.2 ? null : s * 1000 + rows.length,
              rand() < 0.4 ? null : `s${s}r${rows.length}`,
            ]);
            rows.push(block[block.length - 1] as [number, number | null, string | null]);
          }
          const whole = part(block, false);
          const piece: Part = {
            start: 0,
            end: block.length,
            unique: false,
            firstTs: BigInt(block[0]?.[0] as number),
            lastTs: BigInt(block[block.length - 1]?.[0] as number),
            run,
            get ts() {
              loads.set(piece, (loads.get(piece) ?? 0) + 1);
              return whole.ts;
            },
            get cols() {
              return whole.cols;
            },
            release() {
              released++;
            },
          };
          parts.push(piece);
        }
        sources.push(rows);
      }
      const got = merge(parts, mode, 2);
      if (JSON.stringify(got) !== JSON.stringify(model(sources, mode))) {
        t.fail(`${mode} round ${round}: ${JSON.stringify(sources)}`);
        continue;
      }
      t.ok(released >= 1, `${mode} round ${round}: passed pieces released`);
    }
  }
  // Laziness: one long run beside a short one; at the first yield the run's last piece is unread.
  const run = {};
  const loaded: boolean[] = [];
  const pieces: Part[] = [];
  for (let b = 0; b < 10; b++) {
    const whole = part([
      [b * 2, b, `b${b}`],
      [b * 2 + 2, b, null],
    ]);
    pieces.push({
      start: 0,
      end: 2,
      unique: true,
      firstTs: BigInt(b * 2),
      lastTs: BigInt(b * 2 + 2),
      run,
      get ts() {
        loaded[b] = true;
        return whole.ts;
      },
      get cols() {
        return whole.cols;
      },
    });
  }
  const other = part([
    [1, 9, 'x'],
    [25, 9, 'y'],
  ]);
  const buf = new RowBuffer(SPECS, 2, false);
  buf.markSeries('k');
  const gen = mergeSeries([...pieces, other], 'append', buf);
  t.equal(gen.next().done, false, 'the merge stops at a full buffer');
  t.equal(loaded[9], undefined, 'the last piece of the run is not read before the merge reaches it');
  buf.detach();
  for (const _ of gen) buf.detach();
  t.equal(loaded[9], true, 'and is read when it does');
});
