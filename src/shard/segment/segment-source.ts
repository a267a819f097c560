/**
 * Reads one segment as a merge source. A series' rows are found through the series table, then
 * only the blocks that hold them and overlap the time range are read; the last block read is kept
 * because the walk visits series in the same order as the file stores them.
 */
import type { SeriesMatcher } from '../../shared/scan.js';
import type { ColumnData, FieldSpec, Part } from '../merge/part.js';
import { lowerBound, upperBound } from '../merge/part.js';
import type { SeriesSource, SourceSummary, SummaryRequest } from '../merge/series-walk.js';
import type { BlockMeta, DecodedBlock } from './block-codec.js';
import type { SeriesMeta } from './footer.js';
import type { SegmentFile } from './segment-reader.js';
import { STATS_WIDTH, statsPerColumn } from './series-stats.js';

export class SegmentSource implements SeriesSource {
  readonly keys: readonly string[];
  /** Segment column of each field spec, -1 when the segment lacks it. */
  private readonly specColumns: number[];
  private cached: DecodedBlock | null = null;
  /** Blocks read (and checksummed) so far; a test hook for pruning. */
  blocksRead = 0;
  /**
   * Index pruning (src/shard/index-pruning.ts): per block, 1 when it may hold a row the scan's
   * block filters accept; null when this segment's indexes cannot tell.
   */
  mayMatch: Uint8Array | null = null;
  /**
   * Set per series by the scan when skipping blocks is safe for it: flat `[min, max, ...]` time
   * ranges of the series' rows in the other sources. A block is skipped only when `mayMatch`
   * clears it and its time range meets none of these (a skipped row must not have hidden an
   * older one). Null: read every block.
   */
  guards: bigint[] | null = null;
  /** Blocks left unread because of `mayMatch`. */
  blocksSkipped = 0;

  /** `cacheBlocks` false: blocks are read past the page cache (compaction's inputs). */
  constructor(
    readonly file: SegmentFile,
    specs: readonly FieldSpec[],
    private readonly cacheBlocks = true,
  ) {
    this.keys = file.keys;
    this.specColumns = specs.map((s) => file.columnOf(s));
  }

  candidates(matchers: readonly SeriesMatcher[]): Int32Array | null {
    return this.file.seriesIndex().candidates(matchers);
  }

  collectParts(index: number, lo: bigint, hi: bigint, out: Part[]): void {
    const file = this.file;
    const s = file.series[index] as SeriesMeta;
    if (s.rowCount === 0 || s.maxTs < lo || s.minTs > hi) return;
    const rowEnd = s.rowStart + s.rowCount;
    const run = {};
    for (let b = file.blockOfRow(s.rowStart); b < file.blocks.length; b++) {
      const meta = file.blocks[b] as BlockMeta;
      if (meta.firstRow >= rowEnd) break;
      if (meta.maxTs < lo || meta.minTs > hi) continue;
      if (this.mayMatch !== null && this.mayMatch[b] === 0 && this.guards !== null && !this.guarded(meta)) {
        this.blocksSkipped++;
        continue;
      }
      const from = Math.max(s.rowStart, meta.firstRow) - meta.firstRow;
      const to = Math.min(rowEnd, meta.firstRow + meta.rowCount) - meta.firstRow;
      if (from === 0 && to === meta.rowCount && meta.minTs >= lo && meta.maxTs <= hi) {
        // The whole block is this series' and inside the window: its bounds are its statistics,
        // so the block is decoded only when its rows are read.
        out.push(new BlockPart(this, b, meta, file.deduplicated, run));
        continue;
      }
      const block = this.block(b);
      const start = lowerBound(block.ts, from, to, lo);
      const end = upperBound(block.ts, start, to, hi);
      if (start >= end) continue;
      out.push({ ts: block.ts, start, end, cols: this.columnsOf(block, b), unique: file.deduplicated, run });
    }
  }

  summaryOf(index: number, lo: bigint, hi: bigint, request: SummaryRequest): SourceSummary | null {
    // A segment that keeps repeated timestamps (append mode) summarises rows a merge would drop
    // unless the table keeps them too.
    if (!this.file.deduplicated && !request.appendMode) return null;
    const stats = this.statsOf(index, lo, hi, request.specs, request.onCorrupt);
    const s = this.file.series[index];
    if (stats === null || s === undefined) return null;
    return { stats, rows: s.rowCount, span: [s.minTs, s.maxTs] };
  }

  /**
   * Series `index`'s statistics laid out per scan column (`[present, sum, min, max]` at 4 × column;
   * `specs[column]` the column's field spec, -1 for columns without statistics, left zero), when
   * all its rows lie in `[lo, hi]` and the file's statistics stand for them (every spec a Float64
   * column; a column the file lacks counts as present nowhere); else null.
   */
  statsOf(
    index: number,
    lo: bigint,
    hi: bigint,
    specs: readonly number[],
    onCorrupt: (message: string) => void,
  ): Float64Array | null {
    const file = this.file;
    const s = file.series[index] as SeriesMeta;
    if (s.rowCount === 0 || s.minTs < lo || s.maxTs > hi || file.statsColumns === 0) return null;
    const all = file.seriesStats(onCorrupt);
    if (all === null) return null;
    const width = file.statsColumns * STATS_WIDTH;
    return statsPerColumn(specs, all, (spec) => {
      const c = this.specColumns[spec] as number;
      if (c < 0) return -1;
      const column = file.statsColumn(c);
      return column < 0 ? null : index * width + column * STATS_WIDTH;
    });
  }

  private guarded(meta: BlockMeta): boolean {
    const g = this.guards as bigint[];
    for (let i = 0; i < g.length; i += 2) {
      if (meta.maxTs >= (g[i] as bigint) && meta.minTs <= (g[i + 1] as bigint)) return true;
    }
    return false;
  }

  /** The merge's columns of a decoded block (null where the segment lacks one). */
  columnsOf(block: DecodedBlock, index: number): Array<ColumnData | null> {
    return this.specColumns.map((c): ColumnData | null => {
      if (c < 0) return null;
      try {
        return block.column(c);
      } catch (err) {
        throw this.file.blockError(index, err);
      }
    });
  }

  /** Block `index` decoded (the last one is kept: parts of one block are read together). */
  block(index: number): DecodedBlock {
    if (this.cached?.index !== index) {
      this.cached = this.file.readBlock(index, this.cacheBlocks);
      this.blocksRead++;
    }
    return this.cached;
  }
}

/**
 * A whole block of one series as a part that decodes the block when its rows are first read;
 * until then its time bounds come from the block's statistics.
 */
class BlockPart implements Part {
  readonly start = 0;
  readonly end: number;
  readonly firstTs: bigint;
  readonly lastTs: bigint;
  private decoded: { ts: BigInt64Array; cols: Array<ColumnData | null> } | null = null;

  constructor(
    private readonly source: SegmentSource,
    private readonly index: number,
    meta: BlockMeta,
    readonly unique: boolean,
    readonly run: object,
  ) {
    this.end = meta.rowCount;
    this.firstTs = meta.minTs;
    this.lastTs = meta.maxTs;
  }

  private load(): { ts: BigInt64Array; cols: Array<ColumnData | null> } {
    if (this.decoded === null) {
      const block = this.source.block(this.index);
      this.decoded = { ts: block.ts, cols: this.source.columnsOf(block, this.index) };
    }
    return this.decoded;
  }

  get ts(): BigInt64Array {
    return this.load().ts;
  }

  get cols(): Array<ColumnData | null> {
    return this.load().cols;
  }

  release(): void {
    this.decoded = null;
  }
}
