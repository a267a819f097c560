/**
 * Reads one segment as a merge source. A series' rows are found through the series table, then
 * only the blocks that hold them and overlap the time range are read; the last block read is kept
 * because the walk visits series in the same order as the file stores them.
 */
import type { ColumnData, FieldSpec, Part } from '../merge/part.js';
import { lowerBound, upperBound } from '../merge/part.js';
import type { SeriesSource } from '../merge/series-walk.js';
import type { BlockMeta, DecodedBlock } from './block-codec.js';
import type { SeriesMeta } from './footer.js';
import type { SegmentFile } from './segment-reader.js';

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

  constructor(
    readonly file: SegmentFile,
    specs: readonly FieldSpec[],
  ) {
    this.keys = file.keys;
    this.specColumns = specs.map((s) => file.columnOf(s));
  }

  collectParts(index: number, lo: bigint, hi: bigint, out: Part[]): void {
    const file = this.file;
    const s = file.series[index] as SeriesMeta;
    if (s.rowCount === 0 || s.maxTs < lo || s.minTs > hi) return;
    const rowEnd = s.rowStart + s.rowCount;
    for (let b = file.blockOfRow(s.rowStart); b < file.blocks.length; b++) {
      const meta = file.blocks[b] as BlockMeta;
      if (meta.firstRow >= rowEnd) break;
      if (meta.maxTs < lo || meta.minTs > hi) continue;
      if (this.mayMatch !== null && this.mayMatch[b] === 0 && this.guards !== null && !this.guarded(meta)) {
        this.blocksSkipped++;
        continue;
      }
      const block = this.block(b);
      const from = Math.max(s.rowStart, meta.firstRow) - meta.firstRow;
      const to = Math.min(rowEnd, meta.firstRow + meta.rowCount) - meta.firstRow;
      const start = lowerBound(block.ts, from, to, lo);
      const end = upperBound(block.ts, start, to, hi);
      if (start >= end) continue;
      const cols = this.specColumns.map((c): ColumnData | null => {
        if (c < 0) return null;
        try {
          return block.column(c);
        } catch (err) {
          throw file.blockError(b, err);
        }
      });
      out.push({ ts: block.ts, start, end, cols, unique: file.deduplicated });
    }
  }

  private guarded(meta: BlockMeta): boolean {
    const g = this.guards as bigint[];
    for (let i = 0; i < g.length; i += 2) {
      if (meta.maxTs >= (g[i] as bigint) && meta.minTs <= (g[i + 1] as bigint)) return true;
    }
    return false;
  }

  private block(index: number): DecodedBlock {
    if (this.cached?.index !== index) {
      this.cached = this.file.readBlock(index);
      this.blocksRead++;
    }
    return this.cached;
  }
}
