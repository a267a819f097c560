/**
 * Block pruning by column term indexes: which blocks of each segment can hold a row that meets
 * a scan's `blockFilters`, and when skipping the others is safe.
 *
 * Skipping a block drops its rows from the merge, which is only harmless when none of them could
 * have hidden another row:
 * - a tombstone hides older rows, so blocks with tombstones are always read;
 * - under `last_row` / `last_non_null` a newer row at the same (series, timestamp) hides or
 *   completes an older one, so a block is skipped only when its time range meets no rows of the
 *   series in any other source, and only in deduplicated segments (no duplicates inside);
 * - under `append` rows never hide each other (tombstones aside), so any cleared block may go.
 */

import { DELETE_MARK_COLUMN_ID } from '../shared/codec/write-batch.js';
import type { BlockFilter } from '../shared/scan.js';
import type { Part } from './merge/part.js';
import type { SeriesGroup, SeriesSource } from './merge/series-walk.js';
import type { SegmentFile } from './segment/segment-reader.js';
import { SegmentSource } from './segment/segment-source.js';
import { type IndexMeta, restrictToTerms } from './segment/term-index.js';
import { tokenize } from './segment/tokenizer.js';

/** The terms every matching row's value holds in index `meta`, or null when it cannot tell. */
export function termsOf(meta: IndexMeta, filter: BlockFilter): string[] | null {
  if (meta.kind === 'fulltext') {
    const tokens = tokenize(filter.text, meta.analyzer, meta.caseSensitive);
    return tokens.length > 0 ? tokens : null;
  }
  // Whole-value terms answer equality only; a term inside a value would need a dictionary scan.
  return filter.op === 'equals' ? [filter.text] : null;
}

/**
 * Per block of `file`, 1 when it may hold a row meeting every filter (or holds tombstones); null
 * when no index of the file applies.
 */
export function blocksMayMatch(
  file: SegmentFile,
  filters: readonly BlockFilter[],
  onCorrupt: (message: string) => void,
): Uint8Array | null {
  let mask: Uint8Array | null = null;
  for (const filter of filters) {
    const meta = file.indexes.get(filter.columnId);
    if (meta === undefined) continue;
    const terms = termsOf(meta, filter);
    if (terms === null) continue;
    const postings = file.postings(filter.columnId, onCorrupt);
    if (postings === null) continue;
    mask ??= new Uint8Array(file.blocks.length).fill(1);
    restrictToTerms(postings, terms, mask);
  }
  if (mask === null) return null;
  const markColumn = file.columnOf({ id: DELETE_MARK_COLUMN_ID, kind: 'bool' });
  if (markColumn >= 0) {
    file.blocks.forEach((b, i) => {
      if ((b.columns[markColumn]?.nullCount ?? 0) < b.rowCount) mask[i] = 1;
    });
  }
  return mask;
}

/**
 * Collects one series group's parts like the plain scan does, arming each pruning segment source
 * with the guards that keep skipping safe (see the module comment). `appendMode`: rows of the
 * table never hide each other.
 */
export function collectGroupPruned(
  group: SeriesGroup,
  sources: readonly SeriesSource[],
  lo: bigint,
  hi: bigint,
  appendMode: boolean,
  out: Part[],
): void {
  const count = group.count;
  const member = (j: number) => sources[group.sources[j] as number] as SeriesSource;
  const index = (j: number) => group.indexes[j] as number;
  if (appendMode || count === 1) {
    for (let j = 0; j < count; j++) {
      const source = member(j);
      if (source instanceof SegmentSource) source.guards = appendMode || source.file.deduplicated ? NO_GUARDS : null;
      source.collectParts(index(j), lo, hi, out);
    }
    return;
  }
  // Memtable parts come first so their time spans are known; order in `out` stays source order.
  const held: Part[][] = [];
  const spans: Array<[bigint, bigint] | null> = [];
  for (let j = 0; j < count; j++) {
    const source = member(j);
    if (source instanceof SegmentSource) {
      const s = source.file.series[index(j)];
      spans.push(s && s.rowCount > 0 ? [s.minTs, s.maxTs] : null);
      held.push([]);
    } else {
      const parts: Part[] = [];
      source.collectParts(index(j), lo, hi, parts);
      const first = parts[0];
      const last = parts[parts.length - 1];
      spans.push(first && last ? [first.ts[first.start] as bigint, last.ts[last.end - 1] as bigint] : null);
      held.push(parts);
    }
  }
  for (let j = 0; j < count; j++) {
    const source = member(j);
    if (!(source instanceof SegmentSource)) {
      for (const p of held[j] as Part[]) out.push(p);
      continue;
    }
    if (source.file.deduplicated) {
      const guards: bigint[] = [];
      spans.forEach((span, k) => {
        if (k !== j && span !== null) guards.push(span[0], span[1]);
      });
      source.guards = guards;
    } else {
      source.guards = null;
    }
    source.collectParts(index(j), lo, hi, out);
  }
}

const NO_GUARDS: bigint[] = [];
