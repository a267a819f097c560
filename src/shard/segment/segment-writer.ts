/**
 * Writes one segment file: blocks as the merge fills them, then one term index section per
 * indexed column, the series statistics (series-stats.ts), footer and trailer. A block is encoded
 * on the caller's thread, then deflated a chunk a turn of the event loop (block-codec.ts); it gets
 * its place in the file, in order, when the writer next drains. The file is
 * written under `<name>.tmp`, fsynced, renamed into place and its directory fsynced, so a segment
 * file either exists complete or not at all. Whether it is live is the manifest's business.
 */
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { SegmentIndexSpec } from '../../shared/column-index.js';
import { faultPoint } from '../fault-points.js';
import { fsyncDir } from '../fs-util.js';
import type { FieldSpec } from '../merge/part.js';
import type { RowBuffer } from '../merge/row-buffer.js';
import { type BlockMeta, deflateBlock, encodeBlockBody, type RawBlock, storedBlock } from './block-codec.js';
import { ByteWriter } from './byte-io.js';
import { encodeFooter, type SeriesMeta, SeriesTableBuilder } from './footer.js';
import { HEADER_BYTES, INDEX_SECTION_BYTES_MAX, SEGMENT_FORMAT_VERSION, SEGMENT_MAGIC } from './format.js';
import { SeriesStatsBuilder, type StatsMeta } from './series-stats.js';
import { type IndexMeta, TermIndexBuilder } from './term-index.js';

/** Pending block bytes are written out once they pass this. */
const WRITE_CHUNK_BYTES = 4 * 1024 * 1024;

export interface SegmentSummary {
  rows: number;
  bytes: number;
  minTs: bigint;
  maxTs: bigint;
}

/** A block whose stored form is being computed: it is placed in the file once that is known. */
interface Deflating {
  block: RawBlock;
  deflated: Promise<Buffer[]>;
  /** Set once `deflated` has settled. */
  done: boolean;
  firstRow: number;
}

/** Blocks left deflating while the writer goes on encoding; past this, a drain waits for the oldest. */
const DEFLATING_MAX = 8;

export class SegmentWriter {
  private deflating: Deflating[] = [];
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private offset = 0;
  private readonly blocks: BlockMeta[] = [];
  /** The footer's series table, each series added once the next one starts (or at finish). */
  private readonly seriesTable = new SeriesTableBuilder();
  /** The series the last block ended in: it may go on in the next block. */
  private open: SeriesMeta | null = null;
  /** Per series and Float64 column: present rows, sum, min, max (series-stats.ts). */
  private readonly stats: SeriesStatsBuilder;
  /** One builder per indexed column the segment has, with the field spec index it reads. */
  private readonly indexBuilders: Array<{ spec: number; builder: TermIndexBuilder }> = [];
  rows = 0;

  private constructor(
    private readonly handle: FileHandle,
    readonly finalPath: string,
    readonly tmpPath: string,
    private readonly specs: readonly FieldSpec[],
    indexes: readonly SegmentIndexSpec[],
    indexBytesMax: number,
  ) {
    this.stats = new SeriesStatsBuilder(specs);
    for (const index of indexes) {
      const spec = specs.findIndex((s) => s.id === index.columnId && s.kind === 'str');
      if (spec >= 0) this.indexBuilders.push({ spec, builder: new TermIndexBuilder(index, indexBytesMax) });
    }
  }

  /**
   * Creates `<finalPath>.tmp` and queues the header. `flags` are SegmentFlags bits; `indexes` are
   * the columns to build term indexes for (columns the segment lacks are left out).
   */
  static async create(
    finalPath: string,
    tableId: number,
    specs: readonly FieldSpec[],
    flags: number,
    indexes: readonly SegmentIndexSpec[] = [],
    indexBytesMax = INDEX_SECTION_BYTES_MAX,
  ): Promise<SegmentWriter> {
    await fsp.mkdir(path.dirname(finalPath), { recursive: true });
    const tmpPath = `${finalPath}.tmp`;
    const handle = await fsp.open(tmpPath, 'w');
    const writer = new SegmentWriter(handle, finalPath, tmpPath, specs, indexes, indexBytesMax);
    const header = new ByteWriter(HEADER_BYTES);
    header.u32(SEGMENT_MAGIC);
    header.u16(SEGMENT_FORMAT_VERSION);
    header.u16(flags);
    header.u32(tableId);
    header.u32(0);
    writer.queue(Buffer.from(header.bytesView()));
    return writer;
  }

  private queue(bytes: Uint8Array): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.offset += bytes.length;
  }

  /** Encodes the buffer's rows as one block and records its series runs. */
  addBlock(buf: RowBuffer): void {
    const n = buf.length;
    if (n === 0) return;
    const block = encodeBlockBody(buf, this.specs);
    const number = this.blocks.length + this.deflating.length;
    for (const { spec, builder } of this.indexBuilders) {
      const values = buf.values[spec] as Array<string | null>;
      builder.addBlock(number, values, buf.valid[spec] as Uint8Array, n, block.distinct[spec]);
    }
    const entry: Deflating = { block, deflated: deflateBlock(block), done: false, firstRow: this.rows };
    // Awaited in place(); until then a failure must not count as unhandled.
    entry.deflated.then(
      () => {
        entry.done = true;
      },
      () => {
        entry.done = true;
      },
    );
    this.deflating.push(entry);
    for (let k = 0; k < buf.markRows.length; k++) {
      const from = buf.markRows[k] as number;
      const to = k + 1 < buf.markRows.length ? (buf.markRows[k + 1] as number) : n;
      if (to <= from) continue;
      const key = buf.markKeys[k] as string;
      const last = this.open;
      if (last && last.key === key) {
        last.rowCount += to - from;
        last.maxTs = buf.ts[to - 1] as bigint;
      } else {
        if (last) this.seriesTable.add(last);
        this.stats.openSeries();
        this.open = {
          key,
          rowStart: this.rows + from,
          rowCount: to - from,
          minTs: buf.ts[from] as bigint,
          maxTs: buf.ts[to - 1] as bigint,
        };
      }
      this.stats.addRows(buf, from, to);
    }
    this.rows += n;
  }

  /**
   * Gives deflated blocks their place in the file, in order: every block with `all`; otherwise
   * those already deflated, waiting only while more than DEFLATING_MAX are left, so encoding the
   * next blocks goes on between the turns that deflate these.
   */
  private async place(all: boolean): Promise<void> {
    while (this.deflating.length > 0) {
      const first = this.deflating[0] as Deflating;
      if (!all && !first.done && this.deflating.length <= DEFLATING_MAX) return;
      this.deflating.shift();
      const stored = storedBlock(first.block, await first.deflated);
      this.blocks.push({ ...stored.meta, offset: this.offset, firstRow: first.firstRow });
      this.queue(stored.stored);
    }
  }

  /** Writes queued bytes once enough have piled up (or always, with `force`). */
  async drain(force = false): Promise<void> {
    await this.place(force);
    if (this.pendingBytes === 0 || (!force && this.pendingBytes < WRITE_CHUNK_BYTES)) return;
    const bytes = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, written, bytes.length - written);
      written += bytesWritten;
    }
  }

  /** Writes index sections, footer and trailer, makes the file durable under its final name. */
  async finish(): Promise<SegmentSummary> {
    await this.place(true);
    const indexes: IndexMeta[] = [];
    for (const { builder } of this.indexBuilders) {
      const section = builder.encode();
      if (section === null) continue;
      const { columnId, kind, analyzer, caseSensitive } = builder.spec;
      indexes.push({
        columnId,
        kind,
        analyzer,
        caseSensitive,
        offset: this.offset,
        length: section.bytes.length,
        crc: crc32(section.bytes),
        termCount: section.termCount,
      });
      this.queue(section.bytes);
    }
    const statsBytes = this.stats.finish();
    let stats: StatsMeta | null = null;
    if (statsBytes !== null) {
      stats = { offset: this.offset, length: statsBytes.length, crc: crc32(statsBytes), columns: this.stats.columns };
      this.queue(statsBytes);
    }
    if (this.open) this.seriesTable.add(this.open);
    this.open = null;
    const footer = encodeFooter({
      columns: [...this.specs],
      seriesTable: this.seriesTable,
      blocks: this.blocks,
      rows: this.rows,
      indexes,
      stats,
    });
    const footerOffset = this.offset;
    this.queue(footer);
    const trailer = new ByteWriter(20);
    trailer.i64(BigInt(footerOffset));
    trailer.u32(footer.length);
    trailer.u32(crc32(footer));
    trailer.u32(SEGMENT_MAGIC);
    this.queue(Buffer.from(trailer.bytesView()));
    await this.drain(true);
    await this.handle.datasync();
    await this.handle.close();
    await faultPoint('segment.before-rename');
    await fsp.rename(this.tmpPath, this.finalPath);
    const dir = path.dirname(this.finalPath);
    await fsyncDir(dir);
    await fsyncDir(path.dirname(dir));
    // The blocks' bounds cover every row, so they are the segment's.
    let minTs = 0n;
    let maxTs = 0n;
    this.blocks.forEach((b, i) => {
      if (i === 0 || b.minTs < minTs) minTs = b.minTs;
      if (i === 0 || b.maxTs > maxTs) maxTs = b.maxTs;
    });
    return { rows: this.rows, bytes: this.offset, minTs, maxTs };
  }

  /** Gives up: closes and removes the temporary file. */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => {});
    await fsp.rm(this.tmpPath, { force: true });
  }
}
