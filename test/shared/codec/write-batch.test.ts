import { Packr } from 'msgpackr';
import t from 'tap';
import { decodeWriteBatch, encodeWriteBatch, seriesFormOf } from '../../../src/shared/codec/write-batch.js';

t.test('seriesFormOf keeps one tuple per distinct tag combination', async (t) => {
  const form = seriesFormOf(
    [
      { id: 3, values: ['a', 'b', 'a', null, 'null'] },
      { id: 5, values: ['x', 'x', 'x', 'x', 'x'] },
    ],
    5,
  );
  t.same(form.tagIds, [3, 5]);
  t.same(form.seriesTags, [
    ['a', 'x'],
    ['b', 'x'],
    [null, 'x'],
    ['null', 'x'],
  ]);
  t.same([...form.rowSeries], [0, 1, 0, 2, 3], 'a null tag and the string "null" are different series');
});

t.test('seriesFormOf without tags makes one series of every row', async (t) => {
  const form = seriesFormOf([], 3);
  t.same(form.seriesTags, [[]]);
  t.same([...form.rowSeries], [0, 0, 0]);
  t.same(seriesFormOf([], 0).seriesTags, [], 'no rows, no series');
});

t.test('a write batch survives encode and decode exactly', async (t) => {
  const batch = {
    tables: [
      {
        tableId: 7,
        mergeMode: 'last_non_null' as const,
        rowCount: 3,
        timestamps: BigInt64Array.from([1n, -2n, 9_223_372_036_854_775_807n]),
        ...seriesFormOf([{ id: 1, values: ['h1', 'h2', 'h1'] }], 3),
        fields: [
          {
            id: 2,
            vector: {
              kind: 'f64' as const,
              values: Float64Array.from([0.5, Number.NaN, -1]),
              valid: Uint8Array.from([1, 0, 1]),
            },
          },
          {
            id: 4,
            vector: { kind: 'u64' as const, values: BigUint64Array.from([0n, 18_446_744_073_709_551_615n, 3n]) },
          },
          { id: 6, vector: { kind: 'str' as const, values: ['a', null, 'ü'] } },
        ],
      },
    ],
  };
  const decoded = decodeWriteBatch(encodeWriteBatch(batch));
  const table = decoded.tables[0];
  t.ok(table);
  if (!table) return;
  t.same([...table.timestamps], [...batch.tables[0]!.timestamps]);
  t.same(table.seriesTags, [['h1'], ['h2']]);
  t.same([...table.rowSeries], [0, 1, 0]);
  t.same([...(table.fields[1]!.vector.values as BigUint64Array)], [0n, 18_446_744_073_709_551_615n, 3n]);
  t.same([...(table.fields[0]!.vector.valid as Uint8Array)], [1, 0, 1]);
  t.same(table.fields[2]!.vector.values, ['a', null, 'ü']);
  t.equal(table.mergeMode, 'last_non_null');
});

t.test('string columns travel as UTF-8 bytes and come back exactly; the older forms still decode', async (t) => {
  const values = ['', null, 'a', 'ü日本', '😀x', '', 'a,b\u0000c', null, 'x'.repeat(1000)];
  const batch = (v: Array<string | null>) => ({
    tables: [
      {
        tableId: 1,
        mergeMode: 'append' as const,
        rowCount: v.length,
        timestamps: BigInt64Array.from(v.map((_, i) => BigInt(i))),
        ...seriesFormOf([], v.length),
        fields: [{ id: 2, vector: { kind: 'str' as const, values: v } }],
      },
    ],
  });
  const back = decodeWriteBatch(encodeWriteBatch(batch(values))).tables[0]?.fields[0]?.vector.values;
  t.same(back, values, 'nulls, empty strings, non-ASCII and long values');
  const wire = new Packr({ useRecords: false }).unpack(encodeWriteBatch(batch(values))) as {
    t: Array<{ f: Array<[number, { u?: Uint8Array; e?: Uint8Array; j?: string }]> }>;
  };
  const column = wire.t[0]?.f[0]?.[1];
  t.equal(Buffer.from(column?.u ?? []).toString('utf8'), values.join(''), 'the values as one run of UTF-8');
  t.same(
    [...new Int32Array(new Uint8Array(column?.e ?? []).buffer)],
    values.map((v) => (v === null ? -1 : Buffer.byteLength(v))),
    'byte lengths, -1 for NULL',
  );
  t.equal(column?.j, undefined);
  // Repeats (shared with recent values), near-misses of the same length, prefixes of one another,
  // more distinct values than the recent ones held, and a mostly-distinct column past the probe.
  const repeats = Array.from({ length: 2000 }, (_, i) =>
    i % 11 === 0 ? null : i % 3 === 0 ? `agent-${i % 7}` : i % 3 === 1 ? `agent-${(i * 13) % 40}` : 'agent-',
  );
  t.same(decodeWriteBatch(encodeWriteBatch(batch(repeats))).tables[0]?.fields[0]?.vector.values, repeats);
  const distinct = Array.from({ length: 2000 }, (_, i) => (i < 300 ? 'GET' : `10.0.${i >> 8}.${i & 255}`));
  t.same(decodeWriteBatch(encodeWriteBatch(batch(distinct))).tables[0]?.fields[0]?.vector.values, distinct);
  const late = Array.from({ length: 600 }, (_, i) => (i < 300 ? `v${i}` : 'same'));
  t.same(decodeWriteBatch(encodeWriteBatch(batch(late))).tables[0]?.fields[0]?.vector.values, late);
  const older = new Packr({ useRecords: true }).pack({
    t: [
      {
        i: 1,
        m: 'append',
        n: 2,
        ts: new Uint8Array(16),
        g: [],
        st: [[]],
        rs: new Uint8Array(8),
        f: [[2, { k: 'str', s: ['p', null] }]],
      },
    ],
  });
  t.same(decodeWriteBatch(older).tables[0]?.fields[0]?.vector.values, ['p', null], 'an older WAL record');
  const joined = new Packr({ useRecords: true }).pack({
    t: [
      {
        i: 1,
        m: 'append',
        n: 3,
        ts: new Uint8Array(24),
        g: [],
        st: [[]],
        rs: new Uint8Array(12),
        f: [[2, { k: 'str', j: 'abü', l: new Uint8Array(Int32Array.from([1, -1, 2]).buffer) }]],
      },
    ],
  });
  t.same(decodeWriteBatch(joined).tables[0]?.fields[0]?.vector.values, ['a', null, 'bü'], 'a joined-string record');
  const corrupt = new Packr({ useRecords: true }).pack({
    t: [
      {
        i: 1,
        m: 'append',
        n: 2,
        ts: new Uint8Array(16),
        g: [],
        st: [[]],
        rs: new Uint8Array(8),
        f: [[2, { k: 'str', j: 'abc', l: new Uint8Array(Int32Array.from([1, 5]).buffer) }]],
      },
    ],
  });
  t.throws(() => decodeWriteBatch(corrupt), /shorter than its lengths/, 'lengths past the joined text are refused');
});
