/**
 * WAL replay at open: torn and corrupt records are cut at the last good record, reported in
 * stats and never make open fail; everything before the cut is kept. A damaged record followed
 * by intact ones is skipped alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { Packr } from 'msgpackr';
import t from 'tap';
import { readRecords } from '../../../src/shard/wal/wal-reader.js';
import { encodeRecords, listWalFiles, walFilePath } from '../../../src/shard/wal/wal-record.js';
import type { ScanColumn } from '../../../src/shared/scan.js';
import { type Kinds, openStore, payload, scanRows, tempDir } from '../helpers.js';

const KINDS: Kinds = { 10: 'f64' };
const COLUMNS: ScanColumn[] = [
  { id: 0, kind: 'i64', role: 'time' },
  { id: 10, kind: 'f64', role: 'field' },
];

function rowsFrom(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    ts: BigInt(from + i),
    tags: { 1: 'h' },
    fields: { 10: from + i },
  }));
}

/** Writes `records` payloads of 10 rows each, one group commit per payload. */
async function writeRecords(dir: string, records: number, walSegmentBytes = 64 << 20): Promise<void> {
  const store = await openStore(dir, { wal: { syncMode: 'fsync', segmentBytes: walSegmentBytes } });
  for (let r = 0; r < records; r++) await store.write([payload(1, KINDS, rowsFrom(r * 10, 10))]);
  await store.close();
}

function walFiles(dir: string): string[] {
  const walDir = path.join(dir, 'wal');
  return listWalFiles(walDir)
    .map((n) => walFilePath(walDir, n))
    .filter((f) => fs.statSync(f).size > 0);
}

t.test('a torn record header at the tail is cut and the good prefix kept', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 3);
  const [file] = walFiles(dir) as [string];
  const goodSize = fs.statSync(file).size;
  fs.appendFileSync(file, Buffer.from([1, 2, 3]));
  const store = await openStore(dir);
  t.equal(scanRows(store, 1, COLUMNS).length, 30);
  const recovery = store.stats().recovery;
  t.equal(recovery.cutBytes, 3);
  t.equal(recovery.cuts.length, 1);
  t.match(recovery.cuts[0], /^wal\/\d{8}\.log: torn record header at offset \d+, cut 3 bytes$/);
  t.equal(fs.statSync(file).size, goodSize, 'the file is truncated at the last good record');
  await store.close();
});

t.test('a header promising more payload than the file holds is cut', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 2);
  const [file] = walFiles(dir) as [string];
  const torn = Buffer.alloc(12);
  torn.writeUInt32LE(4096, 0);
  fs.appendFileSync(file, torn);
  const store = await openStore(dir);
  t.equal(scanRows(store, 1, COLUMNS).length, 20);
  t.equal(store.stats().recovery.cutBytes, 12);
  t.match(store.stats().recovery.cuts[0], /torn record payload/);
  await store.close();
});

t.test('flipped bytes in the last record are cut as a checksum mismatch', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 4);
  const [file] = walFiles(dir) as [string];
  const bytes = fs.readFileSync(file);
  const size = bytes.length;
  for (let i = 1; i <= 4; i++) bytes[size - i] = (bytes[size - i] as number) ^ 0xff;
  fs.writeFileSync(file, bytes);

  let store = await openStore(dir);
  t.same(
    scanRows(store, 1, COLUMNS),
    rowsFrom(0, 30).map((r) => ({ ts: r.ts, f10: r.fields[10] })),
  );
  const recovery = store.stats().recovery;
  t.ok(recovery.cutBytes > 0 && recovery.cutBytes < size);
  t.match(recovery.cuts[0], /checksum mismatch at offset \d+, cut \d+ bytes/);

  // Writing after the cut works, and the next open finds nothing more to cut.
  await store.write([payload(1, KINDS, rowsFrom(1000, 5))]);
  await store.close();
  store = await openStore(dir);
  t.equal(scanRows(store, 1, COLUMNS).length, 35);
  t.same(store.stats().recovery.cuts, []);
  await store.close();
});

t.test('a corrupt record in a non-last WAL file cuts that file and later files still replay', async (t) => {
  const dir = tempDir(t);
  // A tiny wal.segmentBytes rotates the WAL after every write: one record per file.
  await writeRecords(dir, 4, 1);
  const files = walFiles(dir);
  t.equal(files.length, 4);
  const second = files[1] as string;
  const bytes = fs.readFileSync(second);
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x01;
  fs.writeFileSync(second, bytes);

  const store = await openStore(dir);
  const ts = scanRows(store, 1, COLUMNS).map((r) => Number(r.ts));
  t.same(
    ts,
    [...rowsFrom(0, 10), ...rowsFrom(20, 20)].map((r) => Number(r.ts)),
    'records 1, 3 and 4 are kept',
  );
  t.equal(store.stats().recovery.cuts.length, 1);
  t.match(store.stats().recovery.cuts[0], new RegExp(`${path.basename(second)}: checksum mismatch at offset 0`));
  await store.close();
});

t.test('a damaged record in the middle of a file is skipped alone; the records after it are kept', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 5);
  const [file] = walFiles(dir) as [string];
  const bytes = fs.readFileSync(file);
  // Records follow each other; find the third and flip a byte of its payload.
  let pos = 0;
  for (let r = 0; r < 2; r++) pos += 8 + bytes.readUInt32LE(pos);
  const third = pos;
  const length = bytes.readUInt32LE(third);
  bytes[third + 8 + (length >> 1)] = (bytes[third + 8 + (length >> 1)] as number) ^ 0x10;
  fs.writeFileSync(file, bytes);

  let store = await openStore(dir);
  const ts = scanRows(store, 1, COLUMNS).map((r) => Number(r.ts));
  t.same(
    ts,
    [...rowsFrom(0, 20), ...rowsFrom(30, 20)].map((r) => Number(r.ts)),
    'only the third record is gone',
  );
  const { cuts, cutBytes } = store.stats().recovery;
  t.same(cuts, [
    `wal/${path.basename(file)}: checksum mismatch at offset ${third}, skipped ${8 + length} bytes up to the next intact record, kept the records after it`,
  ]);
  t.equal(cutBytes, 8 + length);
  t.equal(fs.statSync(file).size, bytes.length - 8 - length, 'the file is rewritten without it');
  await store.close();
  store = await openStore(dir);
  t.same(store.stats().recovery.cuts, [], 'so the next open finds nothing to report');
  t.equal(scanRows(store, 1, COLUMNS).length, 40);
  await store.close();
});

/** Offsets of the records of a WAL file, by their length fields. */
function recordStarts(bytes: Buffer): number[] {
  const starts: number[] = [];
  for (let pos = 0; pos < bytes.length; pos += 8 + bytes.readUInt32LE(pos)) starts.push(pos);
  return starts;
}

t.test('a damaged length field mid-file: the reader finds the next intact record and keeps the rest', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 5);
  const [file] = walFiles(dir) as [string];
  const bytes = fs.readFileSync(file);
  const starts = recordStarts(bytes);
  const third = starts[2] as number;
  bytes.writeUInt32LE(0xfffffff0, third);
  fs.writeFileSync(file, bytes);

  const store = await openStore(dir);
  t.same(
    scanRows(store, 1, COLUMNS).map((r) => Number(r.ts)),
    [...rowsFrom(0, 20), ...rowsFrom(30, 20)].map((r) => Number(r.ts)),
    'records 1, 2, 4 and 5 are kept',
  );
  t.same(store.stats().recovery.cuts, [
    `wal/${path.basename(file)}: bad record length 4294967280 at offset ${third}, skipped ${(starts[3] as number) - third} bytes up to the next intact record, kept the records after it`,
  ]);
  await store.close();
});

t.test('a zeroed region across two records mid-file is skipped; the records after it are kept', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 6);
  const [file] = walFiles(dir) as [string];
  const bytes = fs.readFileSync(file);
  const starts = recordStarts(bytes);
  // From the middle of record 2 to the middle of record 4, as a lost sector range reads back.
  const from = (starts[1] as number) + 12;
  bytes.fill(0, from, (starts[3] as number) + 12);
  fs.writeFileSync(file, bytes);

  const store = await openStore(dir);
  t.same(
    scanRows(store, 1, COLUMNS).map((r) => Number(r.ts)),
    [...rowsFrom(0, 10), ...rowsFrom(40, 20)].map((r) => Number(r.ts)),
    'records 1, 5 and 6 are kept',
  );
  t.equal(store.stats().recovery.cuts.length, 1);
  t.match(
    store.stats().recovery.cuts[0],
    /checksum mismatch at offset \d+, skipped \d+ bytes up to the next intact record/,
  );
  t.equal(store.stats().recovery.cutBytes, (starts[4] as number) - (starts[1] as number));
  await store.close();
});

t.test('a record that checks out but cannot be applied, followed by intact records, is skipped alone', async (t) => {
  // What a damaged key-definitions record leaves: later records name keys nobody defined.
  const dir = tempDir(t);
  await writeRecords(dir, 2);
  const [file] = walFiles(dir) as [string];
  fs.appendFileSync(file, encodeRecords([Buffer.from('not a write batch')]));
  fs.appendFileSync(file, encodeRecords([payload(1, KINDS, rowsFrom(20, 10)), payload(1, KINDS, rowsFrom(30, 10))]));
  const store = await openStore(dir);
  t.same(
    scanRows(store, 1, COLUMNS).map((r) => Number(r.ts)),
    rowsFrom(0, 40).map((r) => Number(r.ts)),
    'the records after it are replayed',
  );
  t.match(store.stats().recovery.cuts[0], /undecodable payload .* skipped 25 bytes up to the next intact record/);
  await store.close();
});

t.test('a record with a good checksum but an undecodable payload is cut', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 2);
  const [file] = walFiles(dir) as [string];
  fs.appendFileSync(file, encodeRecords([Buffer.from('not a write batch')]));
  const store = await openStore(dir);
  t.equal(scanRows(store, 1, COLUMNS).length, 20);
  t.match(store.stats().recovery.cuts[0], /undecodable payload/);
  await store.close();
});

t.test('readRecords stops at the first bad record and says where', async (t) => {
  const a = Buffer.from('first');
  const b = Buffer.from('second');
  const bytes = encodeRecords([a, b]);
  const seen: string[] = [];
  const all = readRecords(bytes, (p) => {
    seen.push(Buffer.from(p).toString());
    return null;
  });
  t.same(seen, ['first', 'second']);
  t.same(all, { records: 2, cut: null, skipped: [] });

  t.equal(bytes.readUInt32LE(4), crc32(a), 'the header holds the CRC32 of the payload');
  const refused = readRecords(bytes, (p) => (Buffer.from(p).toString() === 'second' ? 'no' : null));
  t.same(refused, {
    records: 1,
    cut: { offset: 8 + a.length, reason: 'undecodable payload (no)', bytesCut: 8 + b.length },
    skipped: [],
  });

  const zeros = readRecords(Buffer.alloc(16), () => null);
  t.same(zeros.cut, { offset: 0, reason: 'bad record length 0', bytesCut: 16 });
});

/** A payload as WAL records were written before the binary form (msgpack), of rows `from`..`from + 9`. */
function msgpackPayload(from: number): Uint8Array {
  const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const rows = rowsFrom(from, 10);
  return new Packr({ useRecords: false, moreTypes: false }).pack({
    t: [
      {
        i: 1,
        m: 'last_row',
        n: rows.length,
        ts: bytesOf(BigInt64Array.from(rows.map((r) => r.ts))),
        g: [1],
        st: [['h']],
        rs: bytesOf(new Uint32Array(rows.length)),
        f: [[10, { k: 'f64', b: bytesOf(Float64Array.from(rows.map((r) => r.fields[10]))) }]],
      },
    ],
  });
}

t.test('a WAL holding records of both payload forms replays, and damage between them is skipped alone', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 2); // rows 0..19, binary
  const [file] = walFiles(dir) as [string];
  const older = [msgpackPayload(20), msgpackPayload(30)];
  t.ok(
    older.every((p) => p[0] !== 0xc1),
    'the older records are msgpack',
  );
  fs.appendFileSync(file, encodeRecords(older));
  const bytes = fs.readFileSync(file);
  t.equal(bytes[8], 0xc1, 'the first record is binary');
  // Overwrite the second (binary) record's length field: the resync has to scan for where intact
  // records start again, and the records after it are msgpack.
  const second = 8 + bytes.readUInt32LE(0);
  const third = second + 8 + bytes.readUInt32LE(second);
  bytes.writeUInt32LE(0xfffffff0, second);
  fs.writeFileSync(file, bytes);

  const store = await openStore(dir);
  t.same(
    scanRows(store, 1, COLUMNS).map((r) => Number(r.ts)),
    [...rowsFrom(0, 10), ...rowsFrom(20, 20)].map((r) => Number(r.ts)),
    'the binary record before the damage and both msgpack records after it',
  );
  t.same(store.stats().recovery.cuts, [
    `wal/${path.basename(file)}: bad record length 4294967280 at offset ${second}, skipped ${third - second} bytes up to the next intact record, kept the records after it`,
  ]);
  await store.close();
});
