/**
 * The segment footer: column list, tag dictionary, series table, block index and (version 2)
 * index table (byte layout in docs/formats/segment.md). It is all a reader needs to choose blocks: series by tags, blocks by
 * row range and time range.
 */

import { forEachTag, seriesKeyOf } from '../../shared/series-key.js';
import { type FieldSpec, kindCodeOf, kindOfCode } from '../merge/part.js';
import type { BlockMeta, ColumnStats } from './block-codec.js';
import { ByteReader, ByteWriter, FormatError } from './byte-io.js';
import { decodeStatsMeta, encodeStatsMeta, type StatsMeta } from './series-stats.js';
import { decodeIndexTable, encodeIndexTable, type IndexMeta } from './term-index.js';

/** One series of a segment: rows `[rowStart, rowStart + rowCount)`, sorted by time. */
export interface SeriesMeta {
  key: string;
  rowStart: number;
  rowCount: number;
  minTs: bigint;
  maxTs: bigint;
}

export interface SegmentFooter {
  columns: FieldSpec[];
  series: SeriesMeta[];
  blocks: BlockMeta[];
  rows: number;
  /** Column index sections (version 2; empty for version 1 files). */
  indexes: IndexMeta[];
  /** The series statistics section (version 3; null when absent). */
  stats: StatsMeta | null;
}

function hasMinMax(spec: FieldSpec, stats: ColumnStats, rowCount: number): boolean {
  return spec.kind !== 'bool' && spec.kind !== 'str' && stats.nullCount < rowCount;
}

/**
 * The footer's tag dictionary and series table, built a series at a time: the segment writer
 * adds each series as it completes, so the work is spread over the build's turns of the event
 * loop instead of done in one stretch at the end (a flush of a high-cardinality table writes
 * hundreds of thousands of series). Each tag value is looked up once.
 */
export class SeriesTableBuilder {
  private readonly dictionary = new Map<string, number>();
  private readonly values: string[] = [];
  private readonly table = new ByteWriter(4096);
  private readonly ids: number[] = [];
  private readonly codes: number[] = [];
  private tags = 0;
  private count = 0;

  /** Notes one tag of the series being added, coding its value through the dictionary. */
  private readonly addTag = (id: number, value: string): void => {
    let code = this.dictionary.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.dictionary.set(value, code);
      this.values.push(value);
    }
    this.ids[this.tags] = id;
    this.codes[this.tags] = code;
    this.tags++;
  };

  /** Adds the next series (in key order), complete. */
  add(s: SeriesMeta): void {
    const table = this.table;
    this.tags = 0;
    forEachTag(s.key, this.addTag);
    table.varuint(this.tags);
    for (let t = 0; t < this.tags; t++) {
      table.varuint(this.ids[t] as number);
      table.varuint(this.codes[t] as number);
    }
    table.varuint(s.rowCount);
    table.i64(s.minTs);
    table.i64(s.maxTs);
    this.count++;
  }

  /** Writes the dictionary, then the series table. */
  encodeInto(w: ByteWriter): void {
    w.varuint(this.values.length);
    for (const v of this.values) w.string(v);
    w.varuint(this.count);
    w.bytes(this.table.bytesView());
  }
}

/** A footer to write: the series come as the table the writer built while writing them. */
export type FooterToWrite = Omit<SegmentFooter, 'series'> & { seriesTable: SeriesTableBuilder };

export function encodeFooter(footer: FooterToWrite): Uint8Array {
  const w = new ByteWriter(4096);
  w.varuint(footer.columns.length);
  for (const c of footer.columns) {
    w.varuint(c.id);
    w.u8(kindCodeOf(c.kind));
  }

  footer.seriesTable.encodeInto(w);

  w.varuint(footer.blocks.length);
  for (const b of footer.blocks) {
    w.varuint(b.offset);
    w.varuint(b.storedLength);
    w.varuint(b.rawLength);
    w.u8(b.codec);
    w.u32(b.crc);
    w.varuint(b.rowCount);
    w.i64(b.minTs);
    w.i64(b.maxTs);
    b.columns.forEach((stats, c) => {
      const spec = footer.columns[c] as FieldSpec;
      w.varuint(stats.nullCount);
      if (!hasMinMax(spec, stats, b.rowCount)) return;
      if (spec.kind === 'f64') {
        w.f64(stats.min as number);
        w.f64(stats.max as number);
      } else {
        w.i64(stats.min as bigint);
        w.i64(stats.max as bigint);
      }
    });
  }
  w.varuint(footer.rows);
  encodeIndexTable(w, footer.indexes);
  encodeStatsMeta(w, footer.stats);
  return w.bytesView();
}

/** Decodes the footer of a file of format `version` (1 has no index table). */
export function decodeFooter(bytes: Uint8Array, version: number): SegmentFooter {
  const r = new ByteReader(bytes);
  const columns: FieldSpec[] = [];
  const columnCount = r.varuint();
  for (let c = 0; c < columnCount; c++) {
    const id = r.varuint();
    const code = r.u8();
    const kind = kindOfCode(code);
    if (!kind) throw new FormatError(`column ${id} has unknown kind code ${code}`);
    columns.push({ id, kind });
  }

  const dictionary: string[] = [];
  const dictionarySize = r.varuint();
  for (let i = 0; i < dictionarySize; i++) dictionary.push(r.string());

  const series: SeriesMeta[] = [];
  const seriesCount = r.varuint();
  let rowStart = 0;
  const ids: number[] = [];
  const values: string[] = [];
  for (let i = 0; i < seriesCount; i++) {
    const tagCount = r.varuint();
    ids.length = 0;
    values.length = 0;
    for (let t = 0; t < tagCount; t++) {
      ids.push(r.varuint());
      const value = dictionary[r.varuint()];
      if (value === undefined) throw new FormatError(`series ${i} names a tag value outside the dictionary`);
      values.push(value);
    }
    const rowCount = r.varuint();
    const minTs = r.i64();
    const maxTs = r.i64();
    series.push({ key: seriesKeyOf(ids, values), rowStart, rowCount, minTs, maxTs });
    rowStart += rowCount;
  }

  const blocks: BlockMeta[] = [];
  const blockCount = r.varuint();
  let firstRow = 0;
  for (let b = 0; b < blockCount; b++) {
    const offset = r.varuint();
    const storedLength = r.varuint();
    const rawLength = r.varuint();
    const codec = r.u8();
    const crc = r.u32();
    const rowCount = r.varuint();
    const minTs = r.i64();
    const maxTs = r.i64();
    const stats: ColumnStats[] = [];
    for (const spec of columns) {
      const s: ColumnStats = { nullCount: r.varuint() };
      if (hasMinMax(spec, s, rowCount)) {
        if (spec.kind === 'f64') {
          s.min = r.f64();
          s.max = r.f64();
        } else if (spec.kind === 'i64') {
          s.min = r.i64();
          s.max = r.i64();
        } else {
          s.min = r.u64();
          s.max = r.u64();
        }
      }
      stats.push(s);
    }
    blocks.push({ offset, storedLength, rawLength, codec, crc, firstRow, rowCount, minTs, maxTs, columns: stats });
    firstRow += rowCount;
  }
  const rows = r.varuint();
  if (rows !== rowStart || rows !== firstRow) {
    throw new FormatError(`row counts disagree: footer ${rows}, series ${rowStart}, blocks ${firstRow}`);
  }
  const indexes = version >= 2 ? decodeIndexTable(r) : [];
  const stats = version >= 3 ? decodeStatsMeta(r, columns.length) : null;
  if (r.pos !== r.end) throw new FormatError(`${r.end - r.pos} trailing footer bytes`);
  return { columns, series, blocks, rows, indexes, stats };
}
