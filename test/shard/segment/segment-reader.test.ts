/**
 * Segment files on disk: every block read is checked against its CRC32, a bad block or footer
 * surfaces as StorageUnavailable (5000) naming the file, and blocks outside a scan's time range
 * are never read.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { Part } from '../../../src/shard/merge/part.js';
import { HEADER_BYTES, SEGMENT_FORMAT_VERSION, SEGMENT_MAGIC } from '../../../src/shard/segment/format.js';
import { SegmentFile } from '../../../src/shard/segment/segment-reader.js';
import { SegmentSource } from '../../../src/shard/segment/segment-source.js';
import { ErrorCode } from '../../../src/shared/errors.js';
import type { ScanColumn } from '../../../src/shared/scan.js';
import { type Kinds, openStore, payload, scanRows, type TestRow, tempDir } from '../helpers.js';

const KINDS: Kinds = { 10: 'f64' };
const COLUMNS: ScanColumn[] = [
  { id: 0, kind: 'i64', role: 'time' },
  { id: 10, kind: 'f64', role: 'field' },
];

/** One series, timestamps 0..999, flushed into one segment of 100-row blocks. */
async function oneSegment(dir: string): Promise<string> {
  const store = await openStore(dir, { segment: { blockRows: 100, compactionTrigger: 100 } });
  const rows: TestRow[] = Array.from({ length: 1000 }, (_, i) => ({
    ts: BigInt(i),
    tags: { 1: 'a' },
    fields: { 10: i },
  }));
  await store.write([payload(3, KINDS, rows)]);
  await store.flush();
  await store.close();
  const [name] = fs.readdirSync(path.join(dir, 'seg', '3'));
  return path.join(dir, 'seg', '3', name as string);
}

function flipByte(file: string, offset: number): void {
  const bytes = fs.readFileSync(file);
  bytes[offset] = (bytes[offset] as number) ^ 0x5a;
  fs.writeFileSync(file, bytes);
}

t.test('a segment starts with magic and format version', async (t) => {
  const file = await oneSegment(tempDir(t));
  const bytes = fs.readFileSync(file);
  t.equal(bytes.readUInt32LE(0), SEGMENT_MAGIC);
  t.equal(bytes.toString('latin1', 0, 4), 'SHSG');
  t.equal(bytes.readUInt16LE(4), SEGMENT_FORMAT_VERSION);
  t.equal(bytes.readUInt32LE(8), 3, 'the table id');
  t.equal(bytes.readUInt32LE(bytes.length - 4), SEGMENT_MAGIC, 'the trailer ends with the magic');
});

t.test('a flipped byte in a block fails the scan with StorageUnavailable naming file and block', async (t) => {
  const dir = tempDir(t);
  const file = await oneSegment(dir);
  const segment = SegmentFile.open(file, 'x', 0, 3);
  const block = segment.blocks[4];
  segment.close();
  if (!block) throw new Error('expected 10 blocks');
  // Damaged while the shard runs (a damaged file found at start-up is quarantined instead:
  // test/reliability/corruption.test.ts): every read checks its block.
  const store = await openStore(dir);
  flipByte(file, block.offset + 3);
  t.throws(() => scanRows(store, 3, COLUMNS), {
    code: ErrorCode.StorageUnavailable,
    message: /segment seg\/3\/\d+\.seg block 4: checksum mismatch/,
  });
  t.equal(scanRows(store, 3, COLUMNS, { timeMax: 400n }).length, 400, 'other blocks still read');
  await store.close();
});

t.test('blocks outside the time range are not read', async (t) => {
  const dir = tempDir(t);
  const file = await oneSegment(dir);
  const segment = SegmentFile.open(file, 'x', 0, 3);
  t.equal(segment.blocks.length, 10);
  const source = new SegmentSource(segment, [{ id: 10, kind: 'f64' }]);
  const parts: Part[] = [];
  source.collectParts(0, 250n, 349n, parts);
  t.equal(source.blocksRead, 2, 'only the two blocks holding 250..349 were read');
  t.same(
    parts.map((p) => [p.ts[p.start], p.ts[p.end - 1]]),
    [
      [250n, 299n],
      [300n, 349n],
    ],
  );
  segment.close();

  // End to end: a corrupt block outside the range does not matter, because it is never read
  // (damaged while the shard runs; at start-up the whole file would be checked).
  const store = await openStore(dir);
  flipByte(file, (segment.blocks[0] as { offset: number }).offset + 1);
  t.equal(scanRows(store, 3, COLUMNS, { timeMin: 500n }).length, 500);
  t.throws(() => scanRows(store, 3, COLUMNS), { code: ErrorCode.StorageUnavailable });
  await store.close();
});

t.test('a segment with a corrupt footer is quarantined at start-up and the shard opens', async (t) => {
  const dir = tempDir(t);
  const file = await oneSegment(dir);
  const store0 = await openStore(dir);
  await store0.write([payload(4, KINDS, [{ ts: 1n, tags: { 1: 'x' }, fields: { 10: 1 } }])]);
  await store0.close();
  const size = fs.statSync(file).size;
  flipByte(file, size - 30);

  const store = await openStore(dir);
  t.equal(store.stats().recovery.segmentsQuarantined, 1, 'the damaged file is quarantined');
  t.notOk(fs.existsSync(file), 'and moved out of seg/');
  t.equal(scanRows(store, 3, COLUMNS).length, 0, 'its rows are gone, the table reads');
  t.equal(scanRows(store, 4, COLUMNS).length, 1, 'other tables are fine');
  await store.close();
});

t.test(
  'a damaged block found at start-up: quarantined by default, left to the scans with verify_on_open off',
  async (t) => {
    for (const verifyOnOpen of [true, false]) {
      const dir = tempDir(t);
      const file = await oneSegment(dir);
      const segment = SegmentFile.open(file, 'x', 0, 3);
      const block = segment.blocks[7] as { offset: number };
      t.equal(segment.verifyBlocks(), null, 'the file checks out before the damage');
      segment.close();
      flipByte(file, block.offset + 2);
      const damaged = SegmentFile.open(file, 'x', 0, 3);
      t.equal(damaged.verifyBlocks(), `block 7 at offset ${block.offset}: checksum mismatch`, 'the check finds it');
      damaged.close();
      const store = await openStore(dir, { segment: { blockRows: 100, compactionTrigger: 100, verifyOnOpen } });
      if (verifyOnOpen) {
        t.equal(store.stats().recovery.segmentsQuarantined, 1, 'checked at start-up: quarantined');
        t.equal(scanRows(store, 3, COLUMNS).length, 0);
      } else {
        t.equal(store.stats().recovery.segmentsQuarantined, 0, 'not read at start-up');
        t.equal(scanRows(store, 3, COLUMNS, { timeMax: 700n }).length, 700, 'the blocks before it read');
        t.throws(
          () => scanRows(store, 3, COLUMNS),
          { message: /block 7: checksum mismatch/ },
          'the scan that reaches it fails',
        );
      }
      await store.close();
    }
  },
);

t.test('segment files are not truncated: header, blocks, footer and trailer are all present', async (t) => {
  const file = await oneSegment(tempDir(t));
  const segment = SegmentFile.open(file, 'x', 0, 3);
  t.equal(segment.rows, 1000);
  t.equal(segment.series.length, 1);
  t.equal(segment.blocks[0]?.offset, HEADER_BYTES);
  t.same(segment.columns, [{ id: 10, kind: 'f64' }]);
  t.equal(segment.deduplicated, true);
  segment.close();
});
