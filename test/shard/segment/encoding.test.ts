/**
 * Value encodings of segment column chunks and the block codec round-trip exactly, including
 * int64 extremes (which fall back to raw), NULL patterns and non-ASCII strings.
 */
import { randomFillSync } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';
import t from 'tap';
import type { FieldSpec } from '../../../src/shard/merge/part.js';
import {
  type BlockMeta,
  blockSource,
  chunkedSource,
  DecodedBlock,
  DIRECTORY_ENTRY_BYTES,
  encodeBlock,
  encodeBlockBody,
  storedBlockProblem,
} from '../../../src/shard/segment/block-codec.js';
import { ByteReader, ByteWriter, FormatError, unzigzag, zigzag } from '../../../src/shard/segment/byte-io.js';
import {
  decodeBitmap,
  decodeInt64s,
  decodeStrings,
  encodeBitmap,
  encodeInt64s,
  encodeStrings,
  Int64Encoding,
  StringEncoding,
} from '../../../src/shard/segment/encoding.js';
import { BlockCodec } from '../../../src/shard/segment/format.js';
import { uncachedPage } from '../../../src/shard/segment/page-cache.js';

/** A block read back from its stored bytes, as the segment reader would. */
function readBack(stored: Uint8Array, meta: BlockMeta, specs: readonly FieldSpec[]): DecodedBlock {
  return new DecodedBlock(0, meta, uncachedPage(blockSource(Buffer.from(stored), meta, specs.length)), specs);
}

/** The codec of each chunk of a stored chunked block, from its directory. */
function chunkCodecs(stored: Uint8Array, chunks: number): number[] {
  return Array.from({ length: chunks }, (_, c) => stored[c * DIRECTORY_ENTRY_BYTES + 12] as number);
}

function roundTrip64(values: bigint[], order: 1 | 2, unsigned = false) {
  const src = unsigned ? BigUint64Array.from(values) : BigInt64Array.from(values);
  const w = new ByteWriter(16);
  encodeInt64s(src, src.length, order, w);
  const bytes = Buffer.from(w.bytesView());
  const out = unsigned ? new BigUint64Array(src.length) : new BigInt64Array(src.length);
  const r = new ByteReader(bytes);
  decodeInt64s(r, src.length, out);
  return { out: [...out], encoding: bytes[0], bytes: bytes.length, consumed: r.pos === bytes.length };
}

t.test('varints and zigzag cover the safe integer range', async (t) => {
  const values = [0, 1, 127, 128, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 5, 2 ** 52 - 1];
  const w = new ByteWriter(4);
  for (const v of values) w.varuint(v);
  for (const v of values) w.varint(-v);
  const r = new ByteReader(w.bytesView());
  for (const v of values) t.equal(r.varuint(), v);
  for (const v of values) t.equal(r.varint(), -v);
  for (const v of [0, -1, 1, -(2 ** 50), 2 ** 50]) t.equal(unzigzag(zigzag(v)), v);
  t.throws(() => new ByteReader(Buffer.from([0x80])).varuint(), FormatError, 'a truncated varint is a FormatError');
});

t.test('regular timestamps encode as delta-of-delta in about a byte each', async (t) => {
  const ts = Array.from({ length: 1000 }, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 15_000_000_000n);
  const r = roundTrip64(ts, 2);
  t.same(r.out, ts);
  t.equal(r.encoding, Int64Encoding.DeltaOfDelta);
  t.ok(r.bytes < 1000 + 32, `${r.bytes} bytes`);
  t.ok(r.consumed);
});

t.test('int64 deltas that cross word boundaries and signs decode exactly', async (t) => {
  const values = [0n, -1n, 1n, 4294967295n, 4294967296n, -4294967296n, 2n ** 40n, -(2n ** 40n), 123456789012345n, -5n];
  for (const order of [1, 2] as const) {
    const r = roundTrip64(values, order);
    t.same(r.out, values, `order ${order}`);
    t.not(r.encoding, Int64Encoding.Raw);
  }
});

t.test('int64 extremes fall back to raw and still round-trip', async (t) => {
  const values = [-(2n ** 63n), 2n ** 63n - 1n, 0n, -(2n ** 63n)];
  const r = roundTrip64(values, 2);
  t.same(r.out, values);
  t.equal(r.encoding, Int64Encoding.Raw);
  const u = roundTrip64([0n, 2n ** 64n - 1n, 2n ** 63n, 5n], 1, true);
  t.same(u.out, [0n, 2n ** 64n - 1n, 2n ** 63n, 5n]);
});

t.test('empty and single-value int64 chunks round-trip', async (t) => {
  t.same(roundTrip64([], 2).out, []);
  t.same(roundTrip64([42n], 2).out, [42n]);
});

t.test('bitmaps and strings round-trip', async (t) => {
  const bits = Uint8Array.from({ length: 19 }, (_, i) => (i % 3 === 0 ? 1 : 0));
  const strings = ['', 'plain', 'ünïcødé ✓', '\u0000nul', 'x'.repeat(300)];
  const w = new ByteWriter(1);
  encodeBitmap(bits, bits.length, w);
  encodeStrings(strings, strings.length, w);
  const r = new ByteReader(w.bytesView());
  t.same(decodeBitmap(r, bits.length), bits);
  t.equal(r.u8(), StringEncoding.Plain, 'distinct values stay plain');
  t.same(decodeStrings(r, strings.length, StringEncoding.Plain), strings);
});

t.test('repeated strings round-trip as a dictionary', async (t) => {
  const agents = ['Mozilla/5.0 (X11; Linux x86_64)', 'curl/8.5.0', '', 'ünïcødé ✓'];
  const strings = Array.from({ length: 1000 }, (_, i) => agents[(i * 7) % 3 === 0 ? 3 : i % 3] as string);
  const w = new ByteWriter(1);
  const distinct = encodeStrings(strings, strings.length, w);
  t.same(new Set(distinct), new Set(strings), 'each distinct value once');
  t.equal(distinct?.length, new Set(strings).size);
  const bytes = w.bytesView();
  t.ok(bytes.length < 1000 * 2 + 100, 'about a byte or two a value');
  const r = new ByteReader(bytes);
  t.equal(r.u8(), StringEncoding.Dictionary);
  t.same(decodeStrings(r, strings.length, StringEncoding.Dictionary), strings);
  t.equal(r.pos, bytes.length);

  // A code past the dictionary is a format error, as is an unknown encoding.
  const bad = new ByteWriter(1);
  bad.varuint(1);
  bad.string('a');
  bad.varuint(1);
  t.throws(() => decodeStrings(new ByteReader(bad.bytesView()), 1, StringEncoding.Dictionary), FormatError);
  t.throws(() => decodeStrings(new ByteReader(bad.bytesView()), 1, 7), FormatError);
});

const SPECS: FieldSpec[] = [
  { id: 1, kind: 'f64' },
  { id: 2, kind: 'i64' },
  { id: 3, kind: 'u64' },
  { id: 4, kind: 'bool' },
  { id: 5, kind: 'str' },
  { id: 6, kind: 'f64' },
];

t.test('a block round-trips every kind with all-valid, all-null and mixed validity', async (t) => {
  const n = 50;
  const valid = [
    new Uint8Array(n).fill(1),
    Uint8Array.from({ length: n }, (_, i) => (i % 2 ? 1 : 0)),
    Uint8Array.from({ length: n }, (_, i) => (i < 3 ? 1 : 0)),
    Uint8Array.from({ length: n }, (_, i) => (i % 5 ? 1 : 0)),
    Uint8Array.from({ length: n }, (_, i) => (i % 7 ? 1 : 0)),
    new Uint8Array(n),
  ];
  const values = [
    Float64Array.from({ length: n }, (_, i) => i * 1.25 - 7),
    BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * -1_000_000_007n),
    BigUint64Array.from({ length: n }, (_, i) => 2n ** 64n - 1n - BigInt(i)),
    Uint8Array.from({ length: n }, (_, i) => (i % 3) & 1),
    Array.from({ length: n }, (_, i) => (i % 7 ? `v${i}` : null)),
    new Float64Array(n),
  ];
  const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(1000 - i * 3));
  const encoded = encodeBlock({ length: n, ts, values, valid }, SPECS);
  t.equal(encoded.meta.minTs, 1000n - 49n * 3n);
  t.equal(encoded.meta.maxTs, 1000n);
  t.same(
    encoded.meta.columns.map((c) => c.nullCount),
    [0, 25, 47, 10, 8, 50],
  );
  t.same(encoded.meta.columns[0], { nullCount: 0, min: -7, max: 49 * 1.25 - 7 });
  t.same(encoded.meta.columns[2]?.max, 2n ** 64n - 1n);

  const meta = { ...encoded.meta, offset: 0, firstRow: 0 };
  const block = readBack(encoded.stored, meta, SPECS);
  t.same([...block.ts], [...ts]);
  for (let c = 0; c < SPECS.length; c++) {
    const col = block.column(c);
    const v = valid[c] as Uint8Array;
    if (c === 5) {
      t.equal(col, null, 'an all-NULL column decodes as null');
      continue;
    }
    if (!col) throw new Error(`column ${c} missing`);
    for (let i = 0; i < n; i++) {
      const present = col.valid === undefined || col.valid[i] !== 0;
      t.equal(present, v[i] === 1, `column ${c} row ${i} validity`);
      if (present && (col.values as unknown[])[i] !== (values[c] as unknown as unknown[])[i]) {
        t.fail(`column ${c} row ${i}: ${(col.values as unknown[])[i]} != ${(values[c] as unknown as unknown[])[i]}`);
      }
    }
  }
});

t.test('a string column stores a dictionary when its values repeat, plain otherwise', async (t) => {
  const n = 2000;
  const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
  const specs: FieldSpec[] = [
    { id: 1, kind: 'str' },
    { id: 2, kind: 'str' },
  ];
  const agents = Array.from({ length: n }, (_, i) => (i % 9 === 0 ? null : `agent ${i % 5}`));
  const ids = Array.from({ length: n }, (_, i) => `id-${i}`);
  const valid = [Uint8Array.from(agents, (a) => (a === null ? 0 : 1)), new Uint8Array(n).fill(1)];
  const body = encodeBlockBody({ length: n, ts, values: [agents, ids], valid }, specs);
  t.same(new Set(body.distinct[0]), new Set(['agent 0', 'agent 1', 'agent 2', 'agent 3', 'agent 4']));
  t.equal(body.distinct[1], undefined, 'mostly distinct values stay plain');
  const encoded = encodeBlock({ length: n, ts, values: [agents, ids], valid }, specs);
  const meta = { ...encoded.meta, offset: 0, firstRow: 0 };
  const block = readBack(encoded.stored, meta, specs);
  const a = block.column(0);
  t.same(
    Array.from({ length: n }, (_, i) => (a?.valid?.[i] === 1 ? (a.values as string[])[i] : null)),
    agents,
  );
  t.same(block.column(1)?.values, ids);
});

t.test('a plain string chunk written before the dictionary form still reads', async (t) => {
  // The block as the writer before the dictionary form made it: chunk lengths, timestamps (delta,
  // one row), then validity 0, encoding 0 and the strings, repeated as they are.
  const ts = new ByteWriter(16);
  encodeInt64s(BigInt64Array.of(5n, 6n, 7n), 3, 1, ts);
  const column = new ByteWriter(16);
  column.u8(0);
  column.u8(0);
  for (const v of ['GET', 'GET', 'GET']) column.string(v);
  const body = new ByteWriter(64);
  body.u32(ts.bytesView().length);
  body.u32(column.bytesView().length);
  body.bytes(ts.bytesView());
  body.bytes(column.bytesView());
  const raw = Buffer.from(body.bytesView());
  const meta = {
    offset: 0,
    firstRow: 0,
    storedLength: raw.length,
    rawLength: raw.length,
    codec: BlockCodec.None,
    crc: crc32(raw),
    rowCount: 3,
    minTs: 5n,
    maxTs: 7n,
    columns: [{ nullCount: 0 }],
  };
  const block = readBack(raw, meta, [{ id: 1, kind: 'str' }]);
  t.same(block.column(0)?.values, ['GET', 'GET', 'GET']);
  const deflated = deflateRawSync(raw);
  const whole = { ...meta, storedLength: deflated.length, codec: BlockCodec.DeflateRaw, crc: crc32(deflated) };
  t.same(
    readBack(deflated, whole, [{ id: 1, kind: 'str' }]).column(0)?.values,
    ['GET', 'GET', 'GET'],
    'and deflated whole, as format version 3 stored every block',
  );
});

t.test('compressible chunks are deflated and incompressible ones stored raw, each on its own', async (t) => {
  const n = 1000;
  const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
  const specs: FieldSpec[] = [
    { id: 1, kind: 'f64' },
    { id: 2, kind: 'f64' },
  ];
  const flat = new Float64Array(n).fill(1.5);
  const noisy = randomFillSync(new Float64Array(n));
  const encoded = encodeBlock(
    { length: n, ts, values: [flat, noisy], valid: [new Uint8Array(n).fill(1), new Uint8Array(n).fill(1)] },
    specs,
  );
  t.equal(encoded.meta.codec, BlockCodec.Chunked);
  t.same(chunkCodecs(encoded.stored, 3), [BlockCodec.DeflateRaw, BlockCodec.DeflateRaw, BlockCodec.None]);
  const block = readBack(encoded.stored, { ...encoded.meta, offset: 0, firstRow: 0 }, specs);
  t.same(block.column(0)?.values, flat);
  t.same(block.column(1)?.values, noisy);
});

t.test('a scan of one column reads the directory, the timestamps and that column only', async (t) => {
  const n = 500;
  const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(i * 10));
  const specs: FieldSpec[] = [
    { id: 1, kind: 'f64' },
    { id: 2, kind: 'f64' },
    { id: 3, kind: 'str' },
  ];
  const values = [
    Float64Array.from({ length: n }, (_, i) => i / 4),
    Float64Array.from({ length: n }, (_, i) => i * 3),
    Array.from({ length: n }, (_, i) => `s${i % 7}`),
  ];
  const valid = specs.map(() => new Uint8Array(n).fill(1));
  const encoded = encodeBlock({ length: n, ts, values, valid }, specs);
  const stored = Buffer.from(encoded.stored);
  const meta = { ...encoded.meta, offset: 0, firstRow: 0 };
  const reads: Array<[number, number]> = [];
  const source = chunkedSource(meta, specs.length, (offset, length) => {
    reads.push([offset, length]);
    return stored.subarray(offset, offset + length);
  });
  const block = new DecodedBlock(0, meta, uncachedPage(source), specs);
  t.same(block.column(1)?.values, values[1]);
  t.same([...block.ts], [...ts]);
  const directory = DIRECTORY_ENTRY_BYTES * (specs.length + 1);
  const chunkLength = (c: number) => stored.readUInt32LE(c * DIRECTORY_ENTRY_BYTES);
  t.same(
    reads,
    [
      [0, directory],
      [directory, chunkLength(0)],
      [directory + chunkLength(0) + chunkLength(1), chunkLength(2)],
    ],
    'the directory, chunk 0 (timestamps) and chunk 2 (column 1): nothing of columns 0 and 2',
  );
  t.equal(source.chunks.filter((c) => c !== undefined).length, 2, 'two chunks kept');
});

t.test('a block whose bytes do not match the CRC is refused', async (t) => {
  const n = 10;
  const encoded = encodeBlock(
    { length: n, ts: new BigInt64Array(n), values: [new Float64Array(n)], valid: [new Uint8Array(n).fill(1)] },
    [{ id: 1, kind: 'f64' }],
  );
  const meta = { ...encoded.meta, offset: 0, firstRow: 0 };
  const inDirectory = Buffer.from(encoded.stored);
  inDirectory[0] = (inDirectory[0] as number) ^ 1;
  t.throws(() => blockSource(inDirectory, meta, 1), /checksum mismatch/, 'a damaged directory');
  t.equal(storedBlockProblem(inDirectory, meta, 1), 'checksum mismatch');
  const inChunk = Buffer.from(encoded.stored);
  const last = inChunk.length - 1;
  inChunk[last] = (inChunk[last] as number) ^ 1;
  const block = new DecodedBlock(0, meta, uncachedPage(blockSource(inChunk, meta, 1)), [{ id: 1, kind: 'f64' }]);
  t.throws(() => block.column(0), /chunk 1: checksum mismatch/, 'a damaged chunk, when a scan reads it');
  t.equal(storedBlockProblem(inChunk, meta, 1), 'chunk 1: checksum mismatch', 'and at the start-up check');
  t.equal(storedBlockProblem(Buffer.from(encoded.stored), meta, 1), null);
});

t.test("a block's time bounds are the BigInt minimum and maximum of its timestamps", async (t) => {
  const POOL = [
    -(2n ** 63n),
    -(2n ** 32n) - 1n,
    -(2n ** 32n),
    -1n,
    0n,
    2n ** 31n - 1n,
    2n ** 31n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 63n - 1n,
  ];
  const specs: FieldSpec[] = [{ id: 1, kind: 'f64' }];
  for (let round = 0; round < 300; round++) {
    const n = 1 + (round % 17);
    const ts = BigInt64Array.from(
      { length: n },
      (_, i) => (POOL[(round * 7 + i * 13 + ((i * i) % 5)) % POOL.length] as bigint) + BigInt((round + i) % 3) - 1n,
    );
    const meta = encodeBlock(
      { length: n, ts, values: [new Float64Array(n)], valid: [new Uint8Array(n).fill(1)] },
      specs,
    ).meta;
    const sorted = [...ts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (meta.minTs !== sorted[0] || meta.maxTs !== sorted[n - 1]) {
      t.same([meta.minTs, meta.maxTs], [sorted[0], sorted[n - 1]], `round ${round}: ${ts.join(' ')}`);
      return;
    }
  }
  t.pass('300 blocks');
});
