/**
 * Builds one segment file from merge sources: the series walk and the series merge (with the
 * table's merge mode) feed a RowBuffer of `blockRows` rows, each full buffer becomes a block. Flush
 * (one memtable source) and compaction (several segment sources) both come through here, so a
 * segment always holds rows sorted by (series, time) and deduplicated like a scan would see them.
 */
import { DELETE_MARK_COLUMN_ID, type MergeMode } from '../../shared/codec/write-batch.js';
import type { SegmentIndexSpec } from '../../shared/column-index.js';
import { type FieldSpec, I64_MAX, I64_MIN, type Part } from '../merge/part.js';
import { RowBuffer } from '../merge/row-buffer.js';
import { type DeleteMarks, mergeSeries } from '../merge/series-merge.js';
import { type SeriesSource, walkSeries } from '../merge/series-walk.js';
import { SegmentFlags } from './format.js';
import { type SegmentSummary, SegmentWriter } from './segment-writer.js';

/**
 * Work between two turns of the event loop, so writes and queries are not starved: whichever of
 * these comes first. Checked after every block, also inside a series: a table without tags is
 * one series, and its whole memtable used to be merged and encoded in one go (a second and more
 * of the shard's thread for a memtable of log lines, with every write to the shard waiting).
 */
const ROWS_PER_TURN = 64 * 1024;
/** Default for `turnMs`. */
export const MS_PER_TURN = 10;

export interface BuildSegmentOptions {
  finalPath: string;
  tableId: number;
  /** Field columns of the new segment, in (id, kind) order. */
  specs: readonly FieldSpec[];
  /** Oldest first. */
  sources: readonly SeriesSource[];
  mode: MergeMode;
  blockRows: number;
  /**
   * Whether tombstones are written out: a flush keeps them (older segments may hold what they
   * delete); a compaction of all of a table's segments drops them with what they delete.
   */
  tombstones: 'keep' | 'drop';
  /** Rows before this time (the table's unit) are left out: they are past the ttl. I64_MIN unless given. */
  fromTs?: bigint | undefined;
  /** Columns to build term indexes for (the table's, as the router last sent them). */
  indexes?: readonly SegmentIndexSpec[] | undefined;
  /** Overrides INDEX_SECTION_BYTES_MAX (tests). */
  indexBytesMax?: number | undefined;
  /** Awaited now and then; lets the event loop turn and throws to abort (store closing). */
  checkpoint: () => Promise<void>;
  /**
   * Milliseconds of work between two checkpoints (MS_PER_TURN unless given; at least that).
   * A flush asks for longer turns as its shard's memtables near `memtable.reject_size`: it must
   * keep up with the writes that fill them, or writes are refused.
   */
  turnMs?: (() => number) | undefined;
}

/** Writes the segment and returns its summary, or null (and no file) when there are no rows. */
export async function buildSegment(o: BuildSegmentOptions): Promise<SegmentSummary | null> {
  const flags = o.mode === 'append' ? 0 : SegmentFlags.Deduplicated;
  const writer = await SegmentWriter.create(o.finalPath, o.tableId, o.specs, flags, o.indexes, o.indexBytesMax);
  try {
    const buf = new RowBuffer(o.specs, o.blockRows);
    const markColumn = o.specs.findIndex((c) => c.id === DELETE_MARK_COLUMN_ID && c.kind === 'bool');
    const marks: DeleteMarks | undefined =
      markColumn < 0 ? undefined : { column: markColumn, keep: o.tombstones === 'keep' };
    const parts: Part[] = [];
    let nextTurn = ROWS_PER_TURN;
    let turnStarted = performance.now();
    // Checked after every block and series, so cheap unless due: no await, and the budget is asked
    // only once the shortest one has passed.
    const turnDue = (): boolean => {
      if (writer.rows + buf.length >= nextTurn) return true;
      const worked = performance.now() - turnStarted;
      return worked >= MS_PER_TURN && worked >= (o.turnMs?.() ?? MS_PER_TURN);
    };
    const turn = async (): Promise<void> => {
      nextTurn = writer.rows + buf.length + ROWS_PER_TURN;
      await writer.drain();
      await o.checkpoint();
      turnStarted = performance.now();
    };
    for (const group of walkSeries(o.sources)) {
      parts.length = 0;
      for (let j = 0; j < group.count; j++) {
        const source = o.sources[group.sources[j] as number] as SeriesSource;
        source.collectParts(group.indexes[j] as number, o.fromTs ?? I64_MIN, I64_MAX, parts);
      }
      if (parts.length === 0) continue;
      buf.markSeries(group.key);
      // Pausing inside a series is safe: the parts are this job's (a memtable source's scratch
      // arrays are reused only by its next collectParts, which comes after this series).
      for (const _ of mergeSeries(parts, o.mode, buf, marks)) {
        writer.addBlock(buf);
        buf.clear();
        if (turnDue()) await turn();
      }
      if (turnDue()) await turn();
    }
    writer.addBlock(buf);
    if (writer.rows === 0) {
      await writer.abort();
      return null;
    }
    return await writer.finish();
  } catch (err) {
    await writer.abort();
    throw err;
  }
}
