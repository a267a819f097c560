/**
 * A segment's per-column term index (docs/formats/segment.md, "Index sections"): the sorted terms
 * of one String column and, per term, the blocks that hold it. The writer feeds each block's
 * values to a `TermIndexBuilder`; a scan asks `blocksMayMatch` which blocks can hold a row with
 * every wanted term and leaves the others unread.
 *
 * Section body:
 *
 *   varuint T                                  number of terms
 *   T × { string term,                         strictly ascending (JS string order, UTF-16 units)
 *         varuint P, P × varuint gap }         block numbers: the first, then each minus the one before
 */
import assert from 'node:assert';
import type { IndexAnalyzer, SegmentIndexSpec } from '../../shared/column-index.js';
import { ByteReader, ByteWriter, FormatError } from './byte-io.js';
import { TermTable } from './term-table.js';
import { foldsCase, forEachTokenRange } from './tokenizer.js';

/** Index kind codes in the footer's index table. */
export const IndexKindCode = { fulltext: 1, inverted: 2, skipping: 3 } as const;
/** Analyzer codes in the footer's index table. */
export const AnalyzerCode = { none: 0, English: 1, Chinese: 2 } as const;

/** Where one column's index section lies and how its terms were made (footer, version 2). */
export interface IndexMeta {
  columnId: number;
  kind: SegmentIndexSpec['kind'];
  analyzer: IndexAnalyzer;
  caseSensitive: boolean;
  offset: number;
  length: number;
  /** CRC32 of the section's `length` bytes. */
  crc: number;
  termCount: number;
}

/** Postings by term, decoded from one section. */
export type TermPostings = ReadonlyMap<string, Uint32Array>;

/** Estimated cost in the section of one posting (a gap varuint). */
const POSTING_BYTES = 2;

/**
 * Collects one column's terms block by block. Once the estimated section size passes
 * `bytesMax`, it gives up (`dropped`) and frees what it held: the segment is then written without
 * this column's index rather than failing the flush.
 */
export class TermIndexBuilder {
  private table = new TermTable();
  /** Per term id: the blocks holding it, ascending, and the newest of them. */
  private blocks: number[][] = [];
  private last: number[] = [];
  private estimatedBytes = 0;
  dropped = false;
  /** The value being tokenized and its block, for `onToken`. */
  private value = '';
  private block = 0;
  private readonly onToken = (start: number, end: number): void => {
    const table = this.table;
    const id = table.idOf(this.value, start, end, this.exact);
    if (id === this.blocks.length) {
      this.blocks.push([]);
      this.last.push(-1);
      this.estimatedBytes += Buffer.byteLength(table.terms[id] as string) + 2;
    }
    // A block posts each term once, whichever of its values hold it.
    if (this.last[id] !== this.block) {
      this.last[id] = this.block;
      (this.blocks[id] as number[]).push(this.block);
      this.estimatedBytes += POSTING_BYTES;
    }
  };

  /** Whether tokens are stored as written (not lower-cased). */
  private readonly exact: boolean;

  constructor(
    readonly spec: SegmentIndexSpec,
    private readonly bytesMax: number,
  ) {
    this.exact = !foldsCase(spec.analyzer, spec.caseSensitive);
  }

  /**
   * Adds the present values of block `block` (blocks come in ascending order). `distinct`, when
   * the caller has it (the block's dictionary), is the block's distinct present values, taken
   * instead of the rows.
   */
  addBlock(
    block: number,
    values: ReadonlyArray<string | null>,
    valid: Uint8Array,
    rows: number,
    distinct?: readonly string[],
  ): void {
    if (this.dropped) return;
    this.block = block;
    const analyzer = this.spec.analyzer;
    if (distinct !== undefined) {
      for (const v of distinct) {
        this.value = v;
        forEachTokenRange(v, analyzer, this.onToken);
      }
    } else {
      for (let i = 0; i < rows; i++) {
        const v = values[i];
        if (valid[i] !== 1 || v == null) continue;
        this.value = v;
        forEachTokenRange(v, analyzer, this.onToken);
      }
    }
    this.value = '';
    if (this.estimatedBytes > this.bytesMax) {
      this.dropped = true;
      this.table = new TermTable();
      this.blocks = [];
      this.last = [];
    }
  }

  /** The section bytes and term count; null when the builder gave up. */
  encode(): { bytes: Uint8Array; termCount: number } | null {
    if (this.dropped) return null;
    const terms = this.table.terms;
    const order = Array.from(terms.keys()).sort((a, b) => {
      const x = terms[a] as string;
      const y = terms[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const w = new ByteWriter(Math.max(1024, this.estimatedBytes + 16));
    w.varuint(order.length);
    for (const id of order) {
      const list = this.blocks[id] as number[];
      w.string(terms[id] as string);
      w.varuint(list.length);
      let previous = 0;
      for (let k = 0; k < list.length; k++) {
        const block = list[k] as number;
        assert(k === 0 || block > previous, 'postings ascend');
        w.varuint(k === 0 ? block : block - previous);
        previous = block;
      }
    }
    return { bytes: w.bytesView(), termCount: order.length };
  }
}

/** Decodes a section, checking order, block numbers and length; throws FormatError. */
export function decodeTermIndex(bytes: Uint8Array, blockCount: number, termCount: number): TermPostings {
  const r = new ByteReader(bytes);
  const count = r.varuint();
  if (count !== termCount) throw new FormatError(`index holds ${count} terms, footer says ${termCount}`);
  const out = new Map<string, Uint32Array>();
  let previousTerm: string | null = null;
  for (let t = 0; t < count; t++) {
    const term = r.string();
    if (previousTerm !== null && !(term > previousTerm)) throw new FormatError(`index terms out of order at ${t}`);
    previousTerm = term;
    const n = r.varuint();
    if (n === 0 || n > blockCount) throw new FormatError(`term ${t} has ${n} postings for ${blockCount} blocks`);
    const list = new Uint32Array(n);
    let block = -1;
    for (let k = 0; k < n; k++) {
      const gap = r.varuint();
      if (k > 0 && gap === 0) throw new FormatError(`term ${t} repeats a block`);
      block = k === 0 ? gap : block + gap;
      if (block >= blockCount) throw new FormatError(`term ${t} names block ${block} of ${blockCount}`);
      list[k] = block;
    }
    out.set(term, list);
  }
  if (r.pos !== r.end) throw new FormatError(`${r.end - r.pos} trailing index bytes`);
  return out;
}

/**
 * Marks in `mayMatch` (1 = may hold a row with the terms) only blocks that hold every one of
 * `terms`: clears the others. With no terms, nothing is cleared.
 */
export function restrictToTerms(postings: TermPostings, terms: readonly string[], mayMatch: Uint8Array): void {
  for (const term of terms) {
    const list = postings.get(term);
    if (list === undefined) {
      mayMatch.fill(0);
      return;
    }
    let k = 0;
    for (let b = 0; b < mayMatch.length; b++) {
      while (k < list.length && (list[k] as number) < b) k++;
      if (k >= list.length || list[k] !== b) mayMatch[b] = 0;
    }
  }
}

/** Writes the index table of a version-2 footer. */
export function encodeIndexTable(w: ByteWriter, indexes: readonly IndexMeta[]): void {
  w.varuint(indexes.length);
  for (const m of indexes) {
    w.varuint(m.columnId);
    w.u8(IndexKindCode[m.kind]);
    w.u8(AnalyzerCode[m.analyzer]);
    w.u8(m.caseSensitive ? 1 : 0);
    w.varuint(m.offset);
    w.varuint(m.length);
    w.u32(m.crc);
    w.varuint(m.termCount);
  }
}

const KINDS = new Map<number, IndexMeta['kind']>(
  Object.entries(IndexKindCode).map(([k, v]) => [v, k as IndexMeta['kind']]),
);
const ANALYZERS = new Map<number, IndexAnalyzer>(Object.entries(AnalyzerCode).map(([k, v]) => [v, k as IndexAnalyzer]));

/** Reads the index table of a version-2 footer. */
export function decodeIndexTable(r: ByteReader): IndexMeta[] {
  const out: IndexMeta[] = [];
  const count = r.varuint();
  for (let i = 0; i < count; i++) {
    const columnId = r.varuint();
    const kindCode = r.u8();
    const analyzerCode = r.u8();
    const flags = r.u8();
    const kind = KINDS.get(kindCode);
    const analyzer = ANALYZERS.get(analyzerCode);
    if (!kind || !analyzer || flags > 1) throw new FormatError(`index ${i} has unknown kind, analyzer or flags`);
    out.push({
      columnId,
      kind,
      analyzer,
      caseSensitive: flags === 1,
      offset: r.varuint(),
      length: r.varuint(),
      crc: r.u32(),
      termCount: r.varuint(),
    });
  }
  return out;
}
