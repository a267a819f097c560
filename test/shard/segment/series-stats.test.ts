/**
 * The series statistics section of a segment (src/shard/segment/series-stats.ts): written for
 * series long enough to pay for it, read on first use and checked; a corrupt section is
 * reported and ignored, and the scan answers with rows instead of summaries.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SegmentFile } from '../../../src/shard/segment/segment-reader.js';
import type { ScanChunk, ScanRequest, SeriesSummary } from '../../../src/shared/scan.js';
import { type Kinds, openStore, payload, type TestRow, tempDir } from '../helpers.js';

const KINDS: Kinds = { 10: 'f64', 11: 'f64', 12: 'i64' };

/** `series` series of `rows` rows each, flushed into one segment; returns its path. */
async function segmentOf(dir: string, series: number, rows: number): Promise<string> {
  const store = await openStore(dir, { segment: { blockRows: 100, compactionTrigger: 100 } });
  const all: TestRow[] = [];
  for (let s = 0; s < series; s++) {
    for (let i = 0; i < rows; i++) {
      // Field 11 is NULL on every third row; field 12 is an integer (no statistics).
      all.push({
        ts: BigInt(i),
        tags: { 1: `s${s}` },
        fields: { 10: s + i, 11: i % 3 === 0 ? null : -i, 12: BigInt(i) },
      });
    }
  }
  await store.write([payload(3, KINDS, all)]);
  await store.flush();
  await store.close();
  const [name] = fs.readdirSync(path.join(dir, 'seg', '3'));
  return path.join(dir, 'seg', '3', name as string);
}

t.test('present rows, sum, min and max per series and Float64 column', async (t) => {
  const file = await segmentOf(tempDir(t), 3, 300);
  const segment = SegmentFile.open(file, 'x', 0, 3);
  t.teardown(() => segment.close());
  t.equal(segment.statsColumns, 2, 'the two Float64 columns');
  const stats = segment.seriesStats(() => t.fail('not corrupt')) as Float64Array;
  t.equal(stats.length, 3 * 2 * 4);
  for (let s = 0; s < 3; s++) {
    let sum10 = 0;
    let sum11 = 0;
    let present11 = 0;
    for (let i = 0; i < 300; i++) {
      sum10 += s + i;
      if (i % 3 !== 0) {
        sum11 += -i;
        present11++;
      }
    }
    t.same(Array.from(stats.subarray(s * 8, s * 8 + 8)), [300, sum10, s, s + 299, present11, sum11, -299, -1], `s${s}`);
  }
});

t.test('not written when series average few rows', async (t) => {
  const file = await segmentOf(tempDir(t), 5000, 2);
  const segment = SegmentFile.open(file, 'x', 0, 3);
  t.teardown(() => segment.close());
  t.equal(segment.statsColumns, 0);
  t.equal(
    segment.seriesStats(() => t.fail('not corrupt')),
    null,
  );
});

function scanWith(store: { scan(r: ScanRequest): Iterable<ScanChunk> }): { rows: number; summaries: SeriesSummary[] } {
  let rows = 0;
  const summaries: SeriesSummary[] = [];
  for (const chunk of store.scan({
    tableId: 3,
    columns: [
      { id: 1, kind: 'str', role: 'tag' },
      { id: 10, kind: 'f64', role: 'field' },
    ],
    summaries: true,
  })) {
    rows += chunk.rowCount;
    summaries.push(...(chunk.summaries ?? []));
  }
  return { rows, summaries };
}

t.test('a scan takes summaries; a corrupt section is reported and the rows are read instead', async (t) => {
  const dir = tempDir(t);
  const file = await segmentOf(dir, 3, 300);
  let store = await openStore(dir);
  const whole = scanWith(store);
  t.equal(whole.rows, 0, 'no rows');
  t.same(
    whole.summaries.map((s) => [s.tags[0], s.rows, s.stats[4], s.stats[5]]),
    [
      ['s0', 300, 300, 44850],
      ['s1', 300, 300, 45150],
      ['s2', 300, 300, 45450],
    ],
  );
  await store.close();

  const segment = SegmentFile.open(file, 'x', 0, 3);
  const blocksEnd = Math.max(...segment.blocks.map((b) => b.offset + b.storedLength));
  segment.close();
  const bytes = fs.readFileSync(file);
  bytes[blocksEnd + 9] = (bytes[blocksEnd + 9] as number) ^ 0x5a; // inside the statistics
  fs.writeFileSync(file, bytes);
  store = await openStore(dir);
  const fallback = scanWith(store);
  t.equal(fallback.summaries.length, 0, 'no summaries from a corrupt section');
  t.equal(fallback.rows, 900, 'the rows instead');
  t.equal(store.stats().indexSectionsCorrupt, 1, 'reported once');
  await store.close();
});
