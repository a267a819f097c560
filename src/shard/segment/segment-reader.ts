/**
 * An open segment file: its footer in memory, blocks read on demand with `pread`, each checked
 * against its CRC32 on every read. Errors name the file and block and carry code 5000
 * (StorageUnavailable).
 *
 * Lifetime: a live segment may be retired by compaction or a table drop while a scan or a
 * compaction still reads it. Readers pin it; the file is unlinked at retirement (an open fd keeps
 * the inode readable on POSIX) and the fd is closed when the last pin goes.
 */

import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { StorageUnavailable } from '../../shared/errors.js';
import { type FieldSpec, specKey } from '../merge/part.js';
import { SeriesIndex } from '../series-index.js';
import { type BlockMeta, blockSource, chunkedSource, DecodedBlock, storedBlockProblem } from './block-codec.js';
import { ByteReader, FormatError } from './byte-io.js';
import { decodeFooter, type SeriesMeta } from './footer.js';
import {
  BlockCodec,
  FOOTER_BYTES_MAX,
  HEADER_BYTES,
  SEGMENT_FORMAT_VERSION,
  SEGMENT_FORMAT_VERSION_MIN,
  SEGMENT_MAGIC,
  SegmentFlags,
  TRAILER_BYTES,
} from './format.js';
import { cachedBlock, dropPageCacheFile, pageCacheFileNumber, uncachedPage } from './page-cache.js';
import { decodeSeriesStats, type StatsMeta } from './series-stats.js';
import { decodeTermIndex, type IndexMeta, type TermPostings } from './term-index.js';

/** Largest read of the start-up block check. */
const VERIFY_READ_BYTES = 8 * 1024 * 1024;

function readExactly(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new FormatError(`unexpected end of file at ${position + done}`);
    done += n;
  }
  return buf;
}

/** A segment whose bytes are damaged (as opposed to one that cannot be read at all). */
export class SegmentCorrupt extends StorageUnavailable {}

export class SegmentFile {
  readonly columns: FieldSpec[];
  readonly series: SeriesMeta[];
  readonly keys: string[];
  readonly blocks: BlockMeta[];
  readonly rows: number;
  /** No two rows of one series share a timestamp. */
  readonly deduplicated: boolean;
  /** Format version of the file (1 has no index sections). */
  readonly version: number;
  /** Term index sections by column id. */
  readonly indexes = new Map<number, IndexMeta>();
  /** Decoded sections by column id; null once a section proved corrupt. */
  private readonly postingsCache = new Map<number, TermPostings | null>();
  /** Where the series statistics lie (version 3), null when the file has none. */
  private readonly statsMeta: StatsMeta | null;
  /** Per footer column, its position in the statistics (-1: not covered). */
  private readonly statsColumnOf: Int32Array;
  /** The statistics once read; null once they proved corrupt. */
  private statsCache: Float64Array | null | undefined;
  private readonly columnIndex = new Map<number, number>();
  private index: SeriesIndex | null = null;
  private pins = 0;
  private retired = false;
  /** This file's number in the page cache. */
  private readonly cacheFile = pageCacheFileNumber();
  private closed = false;

  private constructor(
    private readonly fd: number,
    readonly absPath: string,
    /** Path relative to the shard directory, as the manifest and messages name it. */
    readonly relPath: string,
    readonly id: number,
    readonly tableId: number,
    readonly bytes: number,
  ) {
    const header = readExactly(fd, HEADER_BYTES, 0);
    const r = new ByteReader(header);
    if (r.u32() !== SEGMENT_MAGIC) throw new FormatError('bad header magic');
    const version = r.u16();
    if (version < SEGMENT_FORMAT_VERSION_MIN || version > SEGMENT_FORMAT_VERSION) {
      throw new FormatError(`unsupported format version ${version}`);
    }
    this.version = version;
    const flags = r.u16();
    const fileTableId = r.u32();
    if (fileTableId !== tableId) throw new FormatError(`holds table ${fileTableId}, expected ${tableId}`);
    this.deduplicated = (flags & SegmentFlags.Deduplicated) !== 0;

    if (bytes < HEADER_BYTES + TRAILER_BYTES) throw new FormatError(`file of ${bytes} bytes is too short`);
    const t = new ByteReader(readExactly(fd, TRAILER_BYTES, bytes - TRAILER_BYTES));
    const footerOffset = Number(t.i64());
    const footerLength = t.u32();
    const footerCrc = t.u32();
    if (t.u32() !== SEGMENT_MAGIC) throw new FormatError('bad trailer magic');
    if (
      footerLength > FOOTER_BYTES_MAX ||
      footerOffset < HEADER_BYTES ||
      footerOffset + footerLength !== bytes - TRAILER_BYTES
    ) {
      throw new FormatError(`footer at ${footerOffset}+${footerLength} does not fit a file of ${bytes} bytes`);
    }
    const footerBytes = readExactly(fd, footerLength, footerOffset);
    if (crc32(footerBytes) !== footerCrc) throw new FormatError('footer checksum mismatch');
    const footer = decodeFooter(footerBytes, version);
    this.columns = footer.columns;
    this.series = footer.series;
    this.keys = footer.series.map((s) => s.key);
    this.blocks = footer.blocks;
    this.rows = footer.rows;
    footer.columns.forEach((c, i) => {
      this.columnIndex.set(specKey(c.id, c.kind), i);
    });
    for (const b of this.blocks) {
      if (b.offset < HEADER_BYTES || b.offset + b.storedLength > footerOffset) {
        throw new FormatError(`block at ${b.offset}+${b.storedLength} lies outside the data area`);
      }
    }
    for (const m of footer.indexes) {
      if (m.offset < HEADER_BYTES || m.offset + m.length > footerOffset || this.indexes.has(m.columnId)) {
        throw new FormatError(`index of column ${m.columnId} at ${m.offset}+${m.length} is misplaced or repeated`);
      }
      this.indexes.set(m.columnId, m);
    }
    this.statsMeta = footer.stats;
    this.statsColumnOf = new Int32Array(this.columns.length).fill(-1);
    if (footer.stats !== null) {
      const { offset, length, columns } = footer.stats;
      if (offset < HEADER_BYTES || offset + length > footerOffset) {
        throw new FormatError(`series statistics at ${offset}+${length} are misplaced`);
      }
      columns.forEach((c, i) => {
        if ((this.columns[c] as FieldSpec).kind !== 'f64')
          throw new FormatError('series statistics of a non-f64 column');
        this.statsColumnOf[c] = i;
      });
    }
  }

  /** Where column `column` (a footer position) sits in the series statistics; -1 if it does not. */
  statsColumn(column: number): number {
    return this.statsColumnOf[column] ?? -1;
  }

  /** Float64 columns the series statistics cover (0 when the file has none). */
  get statsColumns(): number {
    return this.statsMeta?.columns.length ?? 0;
  }

  /**
   * The series statistics (series-stats.ts), read and checked on first use; null when the file
   * has none. Statistics that fail their CRC or size are reported once through `onCorrupt` and
   * then treated as absent: scans read the rows.
   */
  seriesStats(onCorrupt: (message: string) => void): Float64Array | null {
    const meta = this.statsMeta;
    if (meta === null) return null;
    if (this.statsCache !== undefined) return this.statsCache;
    try {
      const bytes = readExactly(this.fd, meta.length, meta.offset);
      if (crc32(bytes) !== meta.crc) throw new FormatError('series statistics checksum mismatch');
      this.statsCache = decodeSeriesStats(bytes, this.series.length, meta.columns.length);
    } catch (err) {
      this.statsCache = null;
      onCorrupt(`segment ${this.relPath} series statistics: ${(err as Error).message}`);
    }
    return this.statsCache;
  }

  /**
   * The decoded term index of column `columnId`, read and checked on first use; null when the
   * segment has none. A section that fails its CRC or decoding is reported once through
   * `onCorrupt` and then treated as absent: the scan reads every block, so answers stay right.
   */
  postings(columnId: number, onCorrupt: (message: string) => void): TermPostings | null {
    const meta = this.indexes.get(columnId);
    if (meta === undefined) return null;
    let cached = this.postingsCache.get(columnId);
    if (cached !== undefined) return cached;
    try {
      const bytes = readExactly(this.fd, meta.length, meta.offset);
      if (crc32(bytes) !== meta.crc) throw new FormatError('index checksum mismatch');
      cached = decodeTermIndex(bytes, this.blocks.length, meta.termCount);
    } catch (err) {
      cached = null;
      onCorrupt(`segment ${this.relPath} index of column ${columnId}: ${(err as Error).message}`);
    }
    this.postingsCache.set(columnId, cached);
    return cached;
  }

  /** Opens and validates a segment; throws StorageUnavailable naming the file on any problem. */
  static open(absPath: string, relPath: string, id: number, tableId: number): SegmentFile {
    let fd = -1;
    try {
      fd = fs.openSync(absPath, 'r');
      const bytes = fs.fstatSync(fd).size;
      return new SegmentFile(fd, absPath, relPath, id, tableId, bytes);
    } catch (err) {
      if (fd >= 0) fs.closeSync(fd);
      const damaged = err instanceof FormatError || err instanceof RangeError;
      throw new (damaged ? SegmentCorrupt : StorageUnavailable)(`segment ${relPath}: ${(err as Error).message}`);
    }
  }

  /**
   * Reads every block and checks its CRC (what a scan would meet later); returns the first
   * damaged one as `block <i> at offset <o>: checksum mismatch`, or null.
   */
  verifyBlocks(): string | null {
    // Blocks lie one after another: read them in runs of up to VERIFY_READ_BYTES, not one by one.
    let i = 0;
    while (i < this.blocks.length) {
      const first = this.blocks[i] as BlockMeta;
      let end = i + 1;
      let bytes = first.storedLength;
      for (; end < this.blocks.length; end++) {
        const next = this.blocks[end] as BlockMeta;
        if (next.offset !== first.offset + bytes || bytes + next.storedLength > VERIFY_READ_BYTES) break;
        bytes += next.storedLength;
      }
      const run = readExactly(this.fd, bytes, first.offset);
      for (; i < end; i++) {
        const meta = this.blocks[i] as BlockMeta;
        const at = meta.offset - first.offset;
        // The CRCs only: inflating every block would make a restart cost a full scan's CPU.
        const problem = storedBlockProblem(run.subarray(at, at + meta.storedLength), meta, this.columns.length);
        if (problem !== null) return `block ${i} at offset ${meta.offset}: ${problem}`;
      }
    }
    return null;
  }

  /** Index of column (id, kind) in this segment, or -1. */
  columnOf(spec: FieldSpec): number {
    return this.columnIndex.get(specKey(spec.id, spec.kind)) ?? -1;
  }

  /** Index of the block holding segment row `row`. */
  blockOfRow(row: number): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.blocks[mid] as BlockMeta).firstRow <= row) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Reads, checks and decodes block `index` (columns decode lazily); through the page cache
   * unless `cache` is false (compaction reads each input block once, from files it retires, and
   * every column of it: in one read).
   */
  readBlock(index: number, cache = true): DecodedBlock {
    const meta = this.blocks[index] as BlockMeta;
    const columns = this.columns.length;
    try {
      const whole = () => blockSource(readExactly(this.fd, meta.storedLength, meta.offset), meta, columns);
      // A scan reads a chunked block's chunks as its columns are asked for.
      const load =
        meta.codec === BlockCodec.Chunked
          ? () => chunkedSource(meta, columns, (offset, length) => readExactly(this.fd, length, meta.offset + offset))
          : whole;
      const page = cache ? cachedBlock(this.cacheFile, index, load) : uncachedPage(whole());
      return new DecodedBlock(index, meta, page, this.columns);
    } catch (err) {
      throw this.blockError(index, err);
    }
  }

  /** The error to throw for a bad block, naming file and block. */
  blockError(index: number, err: unknown): StorageUnavailable {
    if (err instanceof StorageUnavailable) return err;
    return new StorageUnavailable(`segment ${this.relPath} block ${index}: ${(err as Error).message}`);
  }

  /** The inverted index of the series (built at the first scan that asks; the file never changes). */
  seriesIndex(): SeriesIndex {
    this.index ??= new SeriesIndex(this.keys);
    return this.index;
  }

  pin(): void {
    this.pins++;
  }

  unpin(): void {
    this.pins--;
    if (this.pins === 0 && this.retired) this.close();
  }

  /** The segment is no longer live: remove the file, close the fd once no reader holds it. */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    try {
      fs.unlinkSync(this.absPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (this.pins === 0) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    dropPageCacheFile(this.cacheFile);
    fs.closeSync(this.fd);
  }
}
