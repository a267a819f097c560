/**
 * The memtable of one table: rows land in table-wide columns, series are found by their tag set,
 * and the memtable source hands out time-sorted parts (views when it can, gathered otherwise).
 */
import t from 'tap';
import { MemtableSource } from '../../../src/shard/memtable/memtable-source.js';
import { TableMemtable } from '../../../src/shard/memtable/table-memtable.js';
import { ABSENT, I64_MAX, I64_MIN, type Part } from '../../../src/shard/merge/part.js';
import { utf8Of } from '../../../src/shared/codec/utf8-column.js';
import { decodeWriteBatch, encodeWriteBatch, type TableRows } from '../../../src/shared/codec/write-batch.js';
import { parseSeriesKey, seriesKeyOf } from '../../../src/shared/series-key.js';
import type { Vector } from '../../../src/shared/types.js';
import { type TestRow, tableRows } from '../helpers.js';

function table(rows: TestRow[]): TableMemtable {
  const m = new TableMemtable(1, 'last_row');
  m.append(tableRows(1, { 10: 'f64', 11: 'str' }, rows));
  return m;
}

t.test('series keys are unambiguous and parse back into their tags', async (t) => {
  const key = seriesKeyOf([1, 22], ['a,1:b', '']);
  t.same(parseSeriesKey(key), { ids: [1, 22], values: ['a,1:b', ''] });
  t.not(seriesKeyOf([1], ['a2,1:b']), seriesKeyOf([1, 2], ['a', 'b']));
  t.equal(seriesKeyOf([], []), '');
});

t.test('rows of the same tag set share a series whatever the row order', async (t) => {
  const m = table([
    { ts: 1n, tags: { 1: 'a' }, fields: { 10: 1 } },
    { ts: 1n, tags: { 1: 'b' }, fields: { 10: 2 } },
    { ts: 2n, tags: { 1: 'a', 2: null }, fields: { 10: 3 } },
  ]);
  t.equal(m.series.size, 2);
  t.same(m.sortedSeries().keys, [seriesKeyOf([1], ['a']), seriesKeyOf([1], ['b'])]);
  const a = m.series.get(seriesKeyOf([1], ['a']));
  t.same([a?.count, a?.firstRow, a?.lastRow, m.prevRow[2]], [2, 0, 2, 0], "a's rows are 0 and 2, chained");
  t.equal(m.rows, 3);
});

t.test('time order and duplicates are tracked per series', async (t) => {
  const m = table([
    { ts: 1n, tags: { 1: 'sorted' } },
    { ts: 2n, tags: { 1: 'sorted' } },
    { ts: 5n, tags: { 1: 'dup' } },
    { ts: 5n, tags: { 1: 'dup' } },
    { ts: 9n, tags: { 1: 'unsorted' } },
    { ts: 3n, tags: { 1: 'unsorted' } },
  ]);
  const flags = (tag: string) => {
    const s = m.series.get(seriesKeyOf([1], [tag]));
    return [s?.sorted, s?.unique, s?.contiguous];
  };
  t.same(flags('sorted'), [true, true, true]);
  t.same(flags('dup'), [true, false, true]);
  t.same(flags('unsorted'), [false, false, true]);
});

t.test('an out-of-order series is handed out sorted, stable for equal timestamps', async (t) => {
  const m = table([
    { ts: 3n, tags: { 1: 'a' }, fields: { 10: 1 } },
    { ts: 1n, tags: { 1: 'b' }, fields: { 10: 0 } },
    { ts: 1n, tags: { 1: 'a' }, fields: { 10: 2, 11: 'x' } },
    { ts: 3n, tags: { 1: 'a' }, fields: { 10: 3 } },
    { ts: 2n, tags: { 1: 'a' }, fields: { 10: 4 } },
  ]);
  const source = new MemtableSource(m, [
    { id: 10, kind: 'f64' },
    { id: 11, kind: 'str' },
  ]);
  const parts: Part[] = [];
  source.collectParts(0, I64_MIN, I64_MAX, parts);
  const p = parts[0] as Part;
  const values = p.cols[0]?.values as Float64Array;
  const strings = p.cols[1]?.values as string[];
  t.same([...p.ts.subarray(p.start, p.end)], [1n, 2n, 3n, 3n]);
  t.same([...values.subarray(0, 4)], [2, 4, 1, 3], 'equal timestamps keep write order');
  t.same(strings.slice(0, 4), ['x', null, null, null]);
  t.equal(p.unique, false);

  parts.length = 0;
  source.collectParts(0, 2n, 2n, parts);
  t.same([...(parts[0] as Part).ts.subarray(0, (parts[0] as Part).end)], [2n], 'time bounds are inclusive here');
});

t.test('a field id arriving with another kind gets its own slot', async (t) => {
  const m = new TableMemtable(1, 'last_row');
  m.append(tableRows(1, { 10: 'f64' }, [{ ts: 1n, tags: {}, fields: { 10: 1.5 } }]));
  m.append(tableRows(1, { 10: 'str' }, [{ ts: 2n, tags: {}, fields: { 10: 'text' } }]));
  t.equal(m.slotOf(10, 'f64'), 0);
  t.equal(m.slotOf(10, 'str'), 1);
  t.equal(m.slotOf(10, 'i64'), -1);
});

t.test('estimated bytes grow with rows, series and string lengths', async (t) => {
  const m = new TableMemtable(1, 'last_row');
  const start = m.bytes;
  m.append(tableRows(1, { 10: 'f64' }, [{ ts: 1n, tags: { 1: 'a' }, fields: { 10: 1 } }]));
  const one = m.bytes;
  t.ok(one > start);
  const rows: TestRow[] = Array.from({ length: 5000 }, (_, i) => ({
    ts: BigInt(i),
    tags: { 1: `h${i % 100}` },
    fields: { 10: i },
  }));
  m.append(tableRows(1, { 10: 'f64' }, rows));
  t.ok(m.bytes > one + 5000 * 17, `${m.bytes} bytes for 5001 rows`);
  const before = m.bytes;
  m.append(tableRows(1, { 11: 'str' }, [{ ts: 1n, tags: { 1: 'a' }, fields: { 11: 'y'.repeat(1000) } }]));
  t.ok(m.bytes - before >= 1000, 'a string column counts its bytes');
  // The new slot's offsets and validity for the table's capacity, and a first small chunk.
  t.ok(m.bytes - before < m.capacity * 9 + 8192, `${m.bytes - before} bytes: a new string column starts small`);
});

t.test('a series is distinct exactly when no two rows share a time, for rows up to 16 places late', async (t) => {
  // Random series: a time walk with rows swapped (late rows), sometimes a repeat; written in
  // batches of random size. `distinct` must never hold with a repeat, and must be exact when no
  // row comes after 16 rows of later times.
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  let exact = 0;
  for (let trial = 0; trial < 300; trial++) {
    const times: bigint[] = [];
    const base = 1_700_000_000_000_000_000n + BigInt(trial) * 4_294_967_296n;
    let next = 0;
    const length = 1 + Math.floor(random() * 60);
    const order: number[] = [];
    for (let i = 0; i < length; i++) order.push(next++);
    // Swap neighbours up to 15 apart to make rows late; repeat a time now and then.
    for (let k = 0; k < 3; k++) {
      const i = Math.floor(random() * length);
      const j = Math.min(length - 1, i + Math.floor(random() * 15));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const o of order) times.push(base + BigInt(o) * 1000n);
    if (trial % 3 === 0 && length > 1) {
      const at = Math.floor(random() * length);
      const from = Math.max(0, at - Math.floor(random() * 15));
      times[at] = times[from] as bigint;
    }
    const m = new TableMemtable(1, 'last_row');
    for (let i = 0; i < times.length; ) {
      const n = 1 + Math.floor(random() * 5);
      m.append(
        tableRows(
          1,
          { 10: 'f64' },
          times.slice(i, i + n).map((ts) => ({ ts, tags: { 1: 'x' }, fields: { 10: 1 } })),
        ),
      );
      i += n;
    }
    const s = m.series.get(seriesKeyOf([1], ['x']));
    const truth = new Set(times).size === times.length;
    const late = times.some((x, i) => times.slice(0, i).filter((y) => y > x).length >= 16);
    if (late ? s?.distinct === true && !truth : s?.distinct !== truth) {
      t.fail(`trial ${trial}: distinct ${s?.distinct}, truth ${truth}: ${times.map((x) => x - base)}`);
    }
    exact += late ? 0 : 1;
  }
  t.ok(exact > 250, `${exact} of 300 series within the bound`);
});

t.test('a row later than 16 places may be taken as a repeat, never the other way', async (t) => {
  const rows = Array.from({ length: 40 }, (_, i) => ({ ts: BigInt(100 + i), tags: { 1: 'x' }, fields: { 10: 1 } }));
  const m = table(rows);
  m.append(tableRows(1, { 10: 'f64' }, [{ ts: 99n, tags: { 1: 'x' }, fields: { 10: 1 } }]));
  const s = m.series.get(seriesKeyOf([1], ['x']));
  t.equal(s?.distinct, true, 'the first late row is checked exactly');
  m.append(tableRows(1, { 10: 'f64' }, [{ ts: 98n, tags: { 1: 'x' }, fields: { 10: 1 } }]));
  t.equal(s?.distinct, false, 'a second row older than every kept one is taken as a possible repeat');
  m.append(tableRows(1, { 10: 'f64' }, [{ ts: 200n, tags: { 1: 'x' }, fields: { 10: 1 } }]));
  t.equal(s?.distinct, false, 'and stays so');
});

t.test('a table knows the span of its times, so scans outside it skip the table', async (t) => {
  const m = new TableMemtable(1, 'last_row');
  t.equal(m.mayHoldTimes(I64_MIN, I64_MAX), false, 'empty');
  m.append(
    tableRows(
      1,
      { 10: 'f64' },
      [50n, 20n, 90n].map((ts) => ({ ts, tags: { 1: 'a' }, fields: { 10: 1 } })),
    ),
  );
  m.append(
    tableRows(
      1,
      { 10: 'f64' },
      [-5n, 60n].map((ts) => ({ ts, tags: { 1: 'b' }, fields: { 10: 1 } })),
    ),
  );
  t.equal(m.mayHoldTimes(91n, 200n), false, 'after the greatest');
  t.equal(m.mayHoldTimes(-100n, -6n), false, 'before the least (negative times)');
  t.equal(m.mayHoldTimes(90n, 90n), true, 'the greatest itself');
  t.equal(m.mayHoldTimes(-5n, -5n), true, 'the least itself');
  t.equal(m.mayHoldTimes(21n, 49n), true, 'inside the span (a gap between rows still counts)');
});

t.test('a scan older than a series fold gets the statistics of its own rows', async (t) => {
  const m = new TableMemtable(1, 'last_row');
  const rows = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => ({ ts: BigInt(from + i), tags: { 1: 'a' }, fields: { 10: from + i } }));
  m.append(tableRows(1, { 10: 'f64' }, rows(0, 10)));
  const specs = [{ id: 10, kind: 'f64' as const }];
  const request = { specs: [0], appendMode: false, onCorrupt: () => {} };
  const older = new MemtableSource(m, specs);
  m.append(tableRows(1, { 10: 'f64' }, rows(10, 30)));
  const newer = new MemtableSource(m, specs);
  const sum = (from: number, to: number) => ((to - 1 + from) * (to - from)) / 2;
  t.same([...(newer.summaryOf(0, I64_MIN, I64_MAX, request)?.stats ?? [])], [30, sum(0, 30), 0, 29]);
  const old = older.summaryOf(0, I64_MIN, I64_MAX, request);
  t.same([...(old?.stats ?? [])], [10, sum(0, 10), 0, 9], 'the older snapshot: 10 rows');
  t.same(old?.span, [0n, 9n]);
  m.append(tableRows(1, { 10: 'f64' }, rows(30, 35)));
  t.same(
    [...(new MemtableSource(m, specs).summaryOf(0, I64_MIN, I64_MAX, request)?.stats ?? [])],
    [35, sum(0, 35), 0, 34],
    'the kept fold still extends',
  );
});

t.test('string columns grow: a scan taken before keeps its rows, later rows read back', async (t) => {
  const m = table([{ ts: 0n, tags: { 1: 'a' }, fields: { 11: 's0' } }]);
  const specs = [{ id: 11, kind: 'str' as const }];
  const before = new MemtableSource(m, specs);
  // Past the table's first capacity (1,024 rows), so every column grows twice.
  m.append(
    tableRows(
      1,
      { 11: 'str' },
      Array.from({ length: 3000 }, (_, i) => ({ ts: BigInt(i + 1), tags: { 1: 'a' }, fields: { 11: `s${i + 1}` } })),
    ),
  );
  const stringsOf = (source: MemtableSource): Array<string | null> => {
    const parts: Part[] = [];
    source.collectParts(0, I64_MIN, I64_MAX, parts);
    return parts.flatMap((p) => (p.cols[0] as { values: Array<string | null> }).values.slice(p.start, p.end));
  };
  t.same(stringsOf(before), ['s0'], 'the earlier scan sees its one row');
  const all = stringsOf(new MemtableSource(m, specs));
  t.equal(all.length, 3001);
  t.same(
    all.findIndex((v, i) => v !== `s${i}`),
    -1,
    'every value in place after growing',
  );
});

/** Every value of series 0 through a fresh source, reading the parts in the order given. */
function readAll(m: TableMemtable, order?: (n: number) => number[]): Array<string | null> {
  const parts: Part[] = [];
  new MemtableSource(m, [{ id: 11, kind: 'str' }]).collectParts(0, I64_MIN, I64_MAX, parts);
  const out: Array<Array<string | null>> = [];
  for (const i of order ? order(parts.length) : parts.map((_, i) => i)) {
    const p = parts[i] as Part;
    out[i] = (p.cols[0] as { values: Array<string | null> }).values.slice(p.start, p.end);
  }
  return out.flat();
}

t.test('string columns are kept as bytes and read back exactly, across chunks and runs', async (t) => {
  const shapes = ['', 'ü日本', '😀x', 'a,b\u0000c', 'plain ascii line', 'é'.repeat(3000)];
  const values = Array.from({ length: 24_000 }, (_, i) =>
    i % 17 === 0 ? null : `${shapes[i % shapes.length]}${i % 5 === 0 ? 'x'.repeat(900) : ''}#${i}`,
  );
  // One value larger than a chunk (2 MiB) gets a chunk of its own.
  values[7000] = 'big'.repeat(1_000_000);
  const m = new TableMemtable(1, 'append');
  // Half from a decoded payload (bytes), half from strings, the way SQL INSERT and old WAL
  // records arrive; timestamps repeat in tens, so runs must not cut between equal times.
  const rows = (from: number, to: number): TestRow[] =>
    values.slice(from, to).map((v, k) => ({
      ts: BigInt(Math.floor((from + k) / 10)),
      tags: {},
      fields: v === null ? {} : { 11: v },
    }));
  const encoded = tableRows(1, { 11: 'str' }, rows(0, 12_000), 'append');
  const decoded = decodeWriteBatch(encodeWriteBatch({ tables: [encoded] })).tables[0] as TableRows;
  t.ok(utf8Of(decoded.fields[0]?.vector as Vector), 'a decoded payload keeps the bytes');
  m.append(decoded);
  m.append(tableRows(1, { 11: 'str' }, rows(12_000, 24_000), 'append'));
  const back = readAll(m);
  t.equal(back.length, values.length);
  t.equal(
    back.findIndex((v, i) => v !== values[i]),
    -1,
    'every value, null, empty and multi-byte one in place',
  );
  const parts: Part[] = [];
  new MemtableSource(m, [{ id: 11, kind: 'str' }]).collectParts(0, I64_MIN, I64_MAX, parts);
  t.ok(parts.length > 4, `${parts.length} runs`);
  for (let i = 1; i < parts.length; i++) {
    const a = parts[i - 1] as Part;
    const b = parts[i] as Part;
    t.ok((a.ts[a.end - 1] as bigint) < (b.ts[b.start] as bigint), 'runs never share a timestamp');
  }
  const backwards = readAll(m, (n) => Array.from({ length: n }, (_, i) => n - 1 - i));
  t.equal(
    backwards.findIndex((v, i) => v !== values[i]),
    -1,
    'runs read in any order, their strings made again once dropped',
  );
  // An out-of-order series is gathered row by row.
  const late = new TableMemtable(1, 'last_row');
  late.append(
    tableRows(
      1,
      { 11: 'str' },
      [3, 1, 2].map((n) => ({ ts: BigInt(n), tags: {}, fields: { 11: `é${n}` } })),
    ),
  );
  t.same(readAll(late), ['é1', 'é2', 'é3']);
});

t.test('a string column added late reads as absent before it and NULL where a row skips it', async (t) => {
  const m = new TableMemtable(1, 'append');
  m.append(tableRows(1, { 10: 'f64' }, [{ ts: 1n, tags: {}, fields: { 10: 1 } }], 'append'));
  m.append(tableRows(1, { 11: 'str' }, [{ ts: 2n, tags: {}, fields: { 11: 'b' } }], 'append'));
  m.append(tableRows(1, { 10: 'f64' }, [{ ts: 3n, tags: {}, fields: { 10: 3 } }], 'append'));
  m.append(tableRows(1, { 11: 'str' }, [{ ts: 4n, tags: {}, fields: { 11: 'd' } }], 'append'));
  const parts: Part[] = [];
  new MemtableSource(m, [{ id: 11, kind: 'str' }]).collectParts(0, I64_MIN, I64_MAX, parts);
  const p = parts[0] as Part;
  const col = p.cols[0] as { values: Array<string | null>; valid: Uint8Array };
  t.same(col.values.slice(p.start, p.end), [null, 'b', null, 'd']);
  t.same([...col.valid.slice(p.start, p.end)], [ABSENT, 1, ABSENT, 1]);
});
