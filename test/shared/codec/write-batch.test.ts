import { Packr } from 'msgpackr';
import t from 'tap';
import { utf8Of } from '../../../src/shared/codec/utf8-column.js';
import {
  decodeWalRecord,
  decodeWriteBatch,
  encodeWriteBatch,
  seriesFormOf,
  type TableRows,
} from '../../../src/shared/codec/write-batch.js';
import type { Vector } from '../../../src/shared/types.js';

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
  const encoded = encodeWriteBatch(batch(values));
  t.equal(encoded[0], 0xc1, 'written in the binary form');
  t.ok(Buffer.from(encoded).includes(Buffer.from(values.join(''), 'utf8')), 'the values as one run of UTF-8');
  const column = utf8Of(decodeWriteBatch(encoded).tables[0]?.fields[0]?.vector as Vector);
  t.same(
    [...(column?.lengths ?? [])],
    values.map((v) => (v === null ? -1 : Buffer.byteLength(v))),
    'byte lengths, -1 for NULL',
  );
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

function vectorOf(rows: TableRows, i: number): Vector {
  return (rows.fields[i] as TableRows['fields'][number]).vector;
}

/** A blob-form table: keys `k0..`, key `refs` sent by reference, ids from 100. */
function blobTable(rows: number, refs: number[] = []): TableRows {
  const keys = ['k0', 'kü1', 'k2'];
  const sent = keys.map((k, i) => (refs.includes(i) ? '' : k));
  const ends = new Uint32Array(keys.length);
  let at = 0;
  sent.forEach((k, i) => {
    at += Buffer.byteLength(k);
    ends[i] = at;
  });
  return {
    tableId: 12,
    mergeMode: 'last_row',
    rowCount: rows,
    timestamps: BigInt64Array.from({ length: rows }, (_, i) => BigInt(1_700_000_000_000 + i)),
    tagIds: [3, 4],
    seriesTags: [],
    rowSeries: Uint32Array.from({ length: rows }, (_, i) => i % keys.length),
    seriesKeyBlob: {
      bytes: Buffer.from(sent.join(''), 'utf8'),
      ends,
      origin: 7,
      ids: Int32Array.from([100, 101, -1]),
      refs: refs.length > 0 ? Uint8Array.from(keys.map((_, i) => (refs.includes(i) ? 1 : 0))) : undefined,
    },
    fields: [
      { id: 5, vector: { kind: 'f64', values: Float64Array.from({ length: rows }, (_, i) => i / 3) } },
      { id: 6, vector: { kind: 'i64', values: BigInt64Array.from({ length: rows }, (_, i) => BigInt(-i)) } },
      {
        id: 7,
        vector: {
          kind: 'bool',
          values: Uint8Array.from({ length: rows }, (_, i) => i & 1),
          valid: new Uint8Array(rows).fill(1),
        },
      },
    ],
  };
}

t.test('the binary form: every series form round-trips, and columns are views of the payload', async (t) => {
  const blob = blobTable(5, [1]);
  const keys: TableRows = { ...blobTable(3), seriesKeyBlob: undefined, seriesKeys: ['a=1', 'b=ü', ''] };
  const tuples: TableRows = {
    ...blobTable(3),
    seriesKeyBlob: undefined,
    seriesTags: [
      ['x', null],
      ['', 'y'],
      [null, null],
    ],
  };
  const payload = encodeWriteBatch({ tables: [blob, keys, tuples] });
  const [b, k, tu] = decodeWriteBatch(payload).tables as [TableRows, TableRows, TableRows];
  t.same([...b.timestamps], [...blob.timestamps]);
  t.same([...b.rowSeries], [...blob.rowSeries]);
  t.equal(b.timestamps.buffer, payload.buffer, 'timestamps read in place');
  t.equal((vectorOf(b, 0).values as Float64Array).buffer, payload.buffer, 'values read in place');
  t.same([...(vectorOf(b, 0).values as Float64Array)], [...(vectorOf(blob, 0).values as Float64Array)]);
  t.same([...(vectorOf(b, 1).values as BigInt64Array)], [0n, -1n, -2n, -3n, -4n]);
  t.same([...(vectorOf(b, 2).valid as Uint8Array)], [1, 1, 1, 1, 1]);
  t.equal(vectorOf(b, 0).valid, undefined, 'no validity when none was sent');
  const got = b.seriesKeyBlob;
  t.same(Buffer.from(got?.bytes ?? []).toString(), 'k0k2');
  t.same([...(got?.ends ?? [])], [2, 2, 4]);
  t.same([...(got?.ids ?? [])], [100, 101, -1]);
  t.same([...(got?.refs ?? [])], [0, 1, 0]);
  t.equal(got?.origin, 7);
  t.same(k.seriesKeys, ['a=1', 'b=ü', '']);
  t.same(tu.seriesTags, tuples.seriesTags, 'tuples keep NULL apart from the empty string');
  t.same(tu.tagIds, [3, 4]);
  const noRefs = decodeWriteBatch(encodeWriteBatch({ tables: [blobTable(2)] })).tables[0]?.seriesKeyBlob;
  t.equal(noRefs?.refs, undefined, 'no by-reference flags when none was sent');
  t.same(decodeWriteBatch(encodeWriteBatch({ tables: [] })).tables, [], 'an empty batch');
});

t.test('the binary form at an unaligned offset (a WAL record in its file) reads through a copy', async (t) => {
  const payload = encodeWriteBatch({ tables: [blobTable(4)] });
  const file = Buffer.alloc(payload.length + 3);
  file.set(payload, 3);
  const table = decodeWalRecord(file.subarray(3));
  t.ok('batch' in table);
  if (!('batch' in table)) return;
  const rows = table.batch.tables[0] as TableRows;
  t.same([...rows.timestamps], [...(blobTable(4).timestamps as BigInt64Array)]);
  t.not(rows.timestamps.buffer, file.buffer, 'a copy, aligned');
});

t.test('a damaged binary batch is refused, not read past its end', async (t) => {
  const payload = encodeWriteBatch({ tables: [blobTable(4)] });
  t.throws(() => decodeWriteBatch(payload.slice(0, payload.length - 8)), /says it has|past its end/);
  const longer = new Uint8Array(payload.length + 8);
  longer.set(payload);
  new DataView(longer.buffer).setUint32(4, longer.length, true);
  t.throws(() => decodeWriteBatch(longer), /bytes left after the last table/);
  const rowsLie = payload.slice();
  new DataView(rowsLie.buffer).setUint32(8 + 4, 1_000_000, true);
  t.throws(() => decodeWriteBatch(rowsLie), /past its end/);
  const version = payload.slice();
  version[1] = 9;
  t.throws(() => decodeWriteBatch(version), /version 9/);
  const kind = payload.slice();
  // The first field's kind word: after the 8-byte batch header, the 32-byte table header and 2 tag ids.
  new DataView(kind.buffer).setUint32(8 + 32 + 8 + 4, 9, true);
  t.throws(() => decodeWriteBatch(kind), /unknown column kind 9/);
  const keyed = encodeWriteBatch({
    tables: [{ ...blobTable(3), seriesKeyBlob: undefined, seriesKeys: ['a', 'b', 'c'] }],
  });
  // The keys' byte lengths follow the batch header (8), the table header (32), 2 tag ids, 3 field
  // heads (3 × 24), 3 timestamps (24) and 3 row series (12, padded to 16).
  new DataView(keyed.buffer).setInt32(8 + 32 + 8 + 72 + 24 + 16, -1, true);
  t.throws(() => decodeWriteBatch(keyed), /a series key is NULL/);
  const tuple: TableRows = { ...blobTable(1), seriesKeyBlob: undefined, seriesTags: [['only one of two']] };
  t.throws(() => encodeWriteBatch({ tables: [tuple] }), /one value per tag column/);
});

t.test('a msgpack record of the form before the binary one still decodes', async (t) => {
  const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const record = new Packr({ useRecords: false, moreTypes: false }).pack({
    t: [
      {
        i: 3,
        m: 'last_non_null',
        n: 2,
        ts: bytesOf(BigInt64Array.from([5n, 6n])),
        g: [1],
        st: [],
        rs: bytesOf(Uint32Array.from([1, 0])),
        kb: Buffer.from('abcd'),
        ke: bytesOf(Uint32Array.from([2, 4])),
        ko: 2,
        ki: bytesOf(Int32Array.from([8, 9])),
        f: [
          [2, { k: 'f64', b: bytesOf(Float64Array.from([1.5, Number.NaN])), v: Uint8Array.from([1, 0]) }],
          [4, { k: 'str', u: Buffer.from('xü'), e: bytesOf(Int32Array.from([1, 2])) }],
        ],
      },
    ],
  });
  t.not(record[0], 0xc1);
  const table = decodeWriteBatch(record).tables[0] as TableRows;
  t.same([...table.timestamps], [5n, 6n]);
  t.same([...table.rowSeries], [1, 0]);
  t.same(Buffer.from(table.seriesKeyBlob?.bytes ?? []).toString(), 'abcd');
  t.same([...(table.seriesKeyBlob?.ids ?? [])], [8, 9]);
  t.same([...(table.fields[0]?.vector.valid ?? [])], [1, 0]);
  t.same(table.fields[1]?.vector.values, ['x', 'ü']);
  t.equal(table.mergeMode, 'last_non_null');
});
