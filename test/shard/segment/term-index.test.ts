/**
 * Column term indexes in segments: the tokenizer agrees with `matches_term`, the section codec
 * round-trips and refuses damage, flushes write the section, scans skip blocks with it (and read
 * every block when it is corrupt or absent), version-1 files still read, and an index past its
 * size bound is left out instead of failing the flush.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import t from 'tap';
import { REGEX_FUNCTIONS } from '../../../src/query/sql/functions/regex.js';
import { readManifest, writeManifest } from '../../../src/shard/manifest.js';
import { FormatError } from '../../../src/shard/segment/byte-io.js';
import { SEGMENT_FORMAT_VERSION } from '../../../src/shard/segment/format.js';
import { SegmentFile } from '../../../src/shard/segment/segment-reader.js';
import { decodeTermIndex, restrictToTerms, TermIndexBuilder } from '../../../src/shard/segment/term-index.js';
import { tokenize } from '../../../src/shard/segment/tokenizer.js';
import type { SegmentIndexSpec } from '../../../src/shared/column-index.js';
import type { BlockFilter, ScanColumn } from '../../../src/shared/scan.js';
import { type Kinds, openStore, payload, scanRows, type TestRow, tempDir } from '../helpers.js';

const ENGLISH: SegmentIndexSpec = { columnId: 10, kind: 'fulltext', analyzer: 'English', caseSensitive: false };
const KINDS: Kinds = { 10: 'str' };
const COLUMNS: ScanColumn[] = [
  { id: 0, kind: 'i64', role: 'time' },
  { id: 10, kind: 'str', role: 'field' },
];

function matchesTerm(text: string, term: string): boolean {
  const fn = REGEX_FUNCTIONS.matches_term;
  if (fn?.kind !== 'scalar') throw new Error('matches_term is missing');
  return fn.evaluate([[text], [term]], 1, { nowNanos: 0n, timezone: 'UTC' }, 'Boolean')[0] === true;
}

t.test('the English analyzer splits on non-alphanumerics and lower-cases unless told not to', async (t) => {
  t.same(tokenize('GET /api/v1/Items?id=42&trace_id=abc', 'English', false), [
    'get',
    'api',
    'v1',
    'items',
    'id',
    '42',
    'trace',
    'abc',
  ]);
  t.same(tokenize('Error ERROR error', 'English', true), ['Error', 'ERROR', 'error']);
  t.same(tokenize('Straße café ünïcode', 'English', false), ['straße', 'café', 'ünïcode']);
  t.same(tokenize('  ', 'English', false), []);
  t.same(tokenize('a b', 'none', true), ['a b'], 'no analyzer: the whole value');
});

t.test('the Chinese analyzer makes one token per Han character plus other word runs', async (t) => {
  t.same(tokenize('错误error日志', 'Chinese', false), ['错', '误', 'error', '日', '志']);
  t.same(tokenize('用户user-123登录', 'Chinese', false), ['用', '户', 'user', '123', '登', '录']);
  t.same(tokenize('错误error日志', 'English', false), ['错误error日志'], 'English keeps the run whole');
});

t.test('the tokens of a term matches_term finds are always tokens of the text', async (t) => {
  const texts = [
    'kernel PANIC at cpu_3: Oops',
    'trace_id=abc-123 user@host',
    '错误error日志 中国农业银行',
    '𝐀abc x_y-z',
    'hello_world',
    'a.b.c',
  ];
  const terms = ['PANIC', 'cpu_3', 'abc-123', 'error', '农业', 'abc', 'x_y', '-z', 'b.c', 'hello', 'world', 'a.b'];
  for (const analyzer of ['English', 'Chinese'] as const) {
    for (const text of texts) {
      const have = new Set(tokenize(text, analyzer, false));
      for (const term of terms) {
        if (!matchesTerm(text, term)) continue;
        const need = tokenize(term, analyzer, false);
        t.ok(
          need.every((x) => have.has(x)),
          `${analyzer}: ${term} in ${text}`,
        );
      }
    }
  }
});

t.test('a term index section round-trips and lists blocks per term', async (t) => {
  const builder = new TermIndexBuilder(ENGLISH, 1 << 20);
  builder.addBlock(0, ['GET items', null, 'get x'], new Uint8Array([1, 0, 1]), 3);
  builder.addBlock(1, ['POST items'], new Uint8Array([1]), 1);
  builder.addBlock(2, ['nothing'], new Uint8Array([0]), 1);
  const section = builder.encode();
  if (!section) throw new Error('no section');
  t.equal(section.termCount, 4);
  const postings = decodeTermIndex(section.bytes, 3, section.termCount);
  t.same([...postings.keys()], ['get', 'items', 'post', 'x'], 'terms are sorted');
  t.same([...(postings.get('items') ?? [])], [0, 1]);
  const mask = new Uint8Array(3).fill(1);
  restrictToTerms(postings, ['items', 'post'], mask);
  t.same([...mask], [0, 1, 0]);
  restrictToTerms(postings, ['absent'], mask);
  t.same([...mask], [0, 0, 0]);

  t.throws(() => decodeTermIndex(section.bytes, 1, section.termCount), FormatError, 'a block beyond the segment');
  t.throws(() => decodeTermIndex(section.bytes.subarray(0, section.bytes.length - 1), 3, 4), FormatError);
  t.throws(() => decodeTermIndex(section.bytes, 3, 5), FormatError, 'a term count that disagrees');
});

t.test("a block's distinct values index as its rows do, values seen before included", async (t) => {
  const blocks = [
    ['GET items items', 'GET items items', 'curl x'],
    ['POST items', 'curl x'],
    ['GET items items', 'x x y'],
  ];
  const byRows = new TermIndexBuilder(ENGLISH, 1 << 20);
  const byDistinct = new TermIndexBuilder(ENGLISH, 1 << 20);
  blocks.forEach((rows, b) => {
    byRows.addBlock(b, rows, new Uint8Array(rows.length).fill(1), rows.length);
    byDistinct.addBlock(b, rows, new Uint8Array(rows.length).fill(1), rows.length, [...new Set(rows)]);
  });
  const a = byRows.encode();
  const d = byDistinct.encode();
  if (!a || !d) throw new Error('no section');
  t.same(Buffer.from(d.bytes), Buffer.from(a.bytes));
  const postings = decodeTermIndex(a.bytes, 3, a.termCount);
  t.same([...(postings.get('items') ?? [])], [0, 1, 2]);
  t.same([...(postings.get('x') ?? [])], [0, 1, 2]);
  t.same([...(postings.get('get') ?? [])], [0, 2]);
  t.same([...(postings.get('y') ?? [])], [2]);
});

t.test('postings agree with a reference built from token strings, folded or not, ASCII or not', async (t) => {
  // The builder finds terms from ranges of the values (term-table.ts); a reference keyed by the
  // token strings tokenize() makes must give the same terms and blocks. Values mix ASCII, letters
  // that lower-case to ASCII (the Kelvin sign) or to longer strings (dotted capital I), Han text, and
  // enough distinct ids to grow the table several times.
  const words = [
    'GET',
    'get',
    'Straße',
    'STRASSE',
    '\u212Aelvin',
    'kelvin',
    'K',
    'k',
    'İstanbul',
    'istanbul',
    '错误error日志',
    'ÉCOLE',
    'école',
  ];
  const blocks: string[][] = [];
  for (let b = 0; b < 6; b++) {
    const rows: string[] = [];
    for (let i = 0; i < 700; i++) {
      const n = b * 700 + i;
      rows.push(`/api/${words[n % words.length]}/${(n * 7919) % 5000} ${words[(n >> 3) % words.length]}-x${n % 37}`);
    }
    blocks.push(rows);
  }
  for (const spec of [
    ENGLISH,
    { ...ENGLISH, caseSensitive: true },
    { ...ENGLISH, analyzer: 'Chinese' as const },
    { ...ENGLISH, kind: 'inverted' as const, analyzer: 'none' as const, caseSensitive: true },
    // A whole value is its term as written, whatever the flag says (docs/formats/segment.md).
    { ...ENGLISH, kind: 'inverted' as const, analyzer: 'none' as const },
  ]) {
    const builder = new TermIndexBuilder(spec, 1 << 26);
    const reference = new Map<string, number[]>();
    blocks.forEach((rows, b) => {
      builder.addBlock(b, rows, new Uint8Array(rows.length).fill(1), rows.length);
      for (const row of rows) {
        for (const term of tokenize(row, spec.analyzer, spec.caseSensitive)) {
          const list = reference.get(term) ?? [];
          if (list[list.length - 1] !== b) list.push(b);
          reference.set(term, list);
        }
      }
    });
    const section = builder.encode();
    if (!section) throw new Error('no section');
    const postings = decodeTermIndex(section.bytes, blocks.length, section.termCount);
    const got = [...postings].map(([term, list]) => [term, [...list]]);
    const want = [...reference.keys()].sort().map((term) => [term, reference.get(term)]);
    t.equal(section.termCount, reference.size, `${spec.analyzer} ${spec.caseSensitive}: term count`);
    t.same(got, want, `${spec.analyzer} ${spec.caseSensitive}: terms and blocks`);
  }
});

t.test('a whole-value index keeps each value as written', async (t) => {
  t.same(tokenize('GET /Items', 'none', false), ['GET /Items']);
  const builder = new TermIndexBuilder({ ...ENGLISH, kind: 'inverted', analyzer: 'none' }, 1 << 20);
  builder.addBlock(0, ['GET /Items', 'get /items'], new Uint8Array([1, 1]), 2);
  const section = builder.encode();
  if (!section) throw new Error('no section');
  t.same([...decodeTermIndex(section.bytes, 1, section.termCount).keys()], ['GET /Items', 'get /items']);
});

t.test('a builder past its size bound gives up instead of failing', async (t) => {
  const builder = new TermIndexBuilder(ENGLISH, 64);
  builder.addBlock(0, ['one two three four five six seven eight nine ten eleven twelve'], new Uint8Array([1]), 1);
  t.ok(builder.dropped);
  t.equal(builder.encode(), null);
});

/** 2,000 rows of one series in 100-row blocks; row 1234 alone says "panic". */
function rows(): TestRow[] {
  return Array.from({ length: 2000 }, (_, i) => ({
    ts: BigInt(i),
    tags: { 1: 'a' },
    fields: { 10: i === 1234 ? 'kernel panic now' : `request ${i % 10} ok` },
  }));
}

async function flushedStore(dir: string, indexes: SegmentIndexSpec[]) {
  const store = await openStore(dir, { segment: { blockRows: 100, compactionTrigger: 100 } });
  store.setIndexes([{ tableId: 3, columns: indexes }]);
  await store.write([payload(3, KINDS, rows(), 'append')]);
  await store.flush();
  return store;
}

function segmentPath(dir: string): string {
  const [name] = fs.readdirSync(path.join(dir, 'seg', '3'));
  return path.join(dir, 'seg', '3', name as string);
}

const PANIC: BlockFilter[] = [{ columnId: 10, op: 'term', text: 'Panic' }];

t.test('a flushed segment carries the index and scans read only blocks that may match', async (t) => {
  const dir = tempDir(t);
  const store = await flushedStore(dir, [ENGLISH]);
  t.teardown(() => store.close());
  const found = scanRows(store, 3, COLUMNS, { blockFilters: PANIC });
  t.equal(found.length, 100, 'one block of rows comes back');
  t.ok(
    found.some((r) => Object.values(r).includes('kernel panic now')),
    'the matching row is among them',
  );
  t.equal(store.stats().indexBlocksSkipped, 19);
  t.equal(scanRows(store, 3, COLUMNS).length, 2000, 'without filters every row');
  t.equal(scanRows(store, 3, COLUMNS, { blockFilters: [{ columnId: 10, op: 'term', text: '!!' }] }).length, 2000);
  const file = SegmentFile.open(segmentPath(dir), 'x', 0, 3);
  t.equal(file.version, SEGMENT_FORMAT_VERSION);
  t.same([...file.indexes.keys()], [10]);
  file.close();
});

t.test('an inverted index answers equality with whole values', async (t) => {
  const dir = tempDir(t);
  const spec: SegmentIndexSpec = { columnId: 10, kind: 'inverted', analyzer: 'none', caseSensitive: true };
  const store = await flushedStore(dir, [spec]);
  t.teardown(() => store.close());
  t.equal(
    scanRows(store, 3, COLUMNS, { blockFilters: [{ columnId: 10, op: 'equals', text: 'kernel panic now' }] }).length,
    100,
  );
  t.equal(
    scanRows(store, 3, COLUMNS, { blockFilters: [{ columnId: 10, op: 'equals', text: 'Kernel panic now' }] }).length,
    0,
  );
  t.equal(scanRows(store, 3, COLUMNS, { blockFilters: PANIC }).length, 2000, 'terms inside values prune nothing');
});

t.test('a corrupt index section is counted and the scan reads every block', async (t) => {
  const dir = tempDir(t);
  let store = await flushedStore(dir, [ENGLISH]);
  await store.close();
  const file = segmentPath(dir);
  const opened = SegmentFile.open(file, 'x', 0, 3);
  const meta = opened.indexes.get(10);
  opened.close();
  if (!meta) throw new Error('no index');
  const bytes = fs.readFileSync(file);
  bytes[meta.offset + 1] = (bytes[meta.offset + 1] as number) ^ 0x5a;
  fs.writeFileSync(file, bytes);
  store = await openStore(dir, { segment: { blockRows: 100, compactionTrigger: 100 } });
  t.teardown(() => store.close());
  t.equal(scanRows(store, 3, COLUMNS, { blockFilters: PANIC }).length, 2000);
  t.equal(store.stats().indexSectionsCorrupt, 1, 'reported once');
  t.equal(scanRows(store, 3, COLUMNS, { blockFilters: PANIC }).length, 2000);
  t.equal(store.stats().indexSectionsCorrupt, 1);
});

for (const version of [1, 2]) {
  t.test(`a version-${version} segment still reads`, async (t) => {
    const dir = tempDir(t);
    let store = await flushedStore(dir, []);
    await store.close();
    // A version-3 footer without indexes or series statistics is a version-1 footer plus two 0
    // bytes (no index entries, no statistics); version 2 has the first of them.
    const file = segmentPath(dir);
    const bytes = fs.readFileSync(file);
    const trailer = bytes.length - 20;
    const footerOffset = Number(bytes.readBigInt64LE(trailer));
    const footerLength = bytes.readUInt32LE(trailer + 8);
    t.same([bytes[footerOffset + footerLength - 2], bytes[footerOffset + footerLength - 1]], [0, 0]);
    const footer = bytes.subarray(footerOffset, footerOffset + footerLength - (3 - version));
    const out = Buffer.alloc(footerOffset + footer.length + 20);
    bytes.copy(out, 0, 0, footerOffset);
    out.writeUInt16LE(version, 4);
    footer.copy(out, footerOffset);
    out.writeBigInt64LE(BigInt(footerOffset), footerOffset + footer.length);
    out.writeUInt32LE(footer.length, footerOffset + footer.length + 8);
    out.writeUInt32LE(crc32(footer), footerOffset + footer.length + 12);
    bytes.copy(out, footerOffset + footer.length + 16, trailer + 16);
    fs.writeFileSync(file, out);
    // The manifest records each segment's size (start-up checks it): this file is shorter now.
    const manifest = readManifest(dir);
    if (manifest === null) throw new Error('expected a manifest');
    for (const t3 of Object.values(manifest.tables)) for (const seg of t3.segments) seg.bytes = out.length;
    await writeManifest(dir, manifest);
    store = await openStore(dir, { segment: { blockRows: 100, compactionTrigger: 100 } });
    t.teardown(() => store.close());
    const opened = SegmentFile.open(file, 'x', 0, 3);
    t.equal(opened.version, version);
    t.equal(opened.statsColumns, 0);
    opened.close();
    t.equal(scanRows(store, 3, COLUMNS, { blockFilters: PANIC }).length, 2000);
    t.equal(scanRows(store, 3, COLUMNS).length, 2000);
  });
}

t.test('compaction writes the index into its output', async (t) => {
  const dir = tempDir(t);
  const store = await flushedStore(dir, [ENGLISH]);
  t.teardown(() => store.close());
  await store.write([payload(3, KINDS, [{ ts: 5000n, tags: { 1: 'a' }, fields: { 10: 'late panic' } }], 'append')]);
  await store.flush();
  await store.compact();
  t.equal(store.stats().segmentCount, 1);
  t.equal(scanRows(store, 3, COLUMNS, { blockFilters: PANIC }).length, 101);
});
