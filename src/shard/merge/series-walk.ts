/**
 * Walks the series of several sources (memtables and segments of one table) in key order, naming
 * for each key the sources that hold it. Sources are given oldest first, and members come out in
 * that order, which is what makes parts reach the merge oldest first.
 */
import type { SeriesMatcher } from '../../shared/scan.js';
import type { Part } from './part.js';

/** Something that holds series of one table: a memtable or a segment. */
export interface SeriesSource {
  /** Series keys in ascending order (see series-key.ts). */
  readonly keys: readonly string[];
  /**
   * Appends to `out` the parts of series `keys[index]` with timestamps in `[lo, hi]` (inclusive),
   * in time order.
   */
  collectParts(index: number, lo: bigint, hi: bigint, out: Part[]): void;
  /**
   * Series `index`'s statistics laid out per scan column (`[present, sum, min, max]` at 4 × column;
   * `specs[column]` its field spec, -1 for columns without statistics), with its row count and
   * time span, when its rows all lie in `[lo, hi]` and the statistics stand for them (see
   * scan-summaries.ts); else null. Sources without statistics leave it out.
   */
  summaryOf?(index: number, lo: bigint, hi: bigint, request: SummaryRequest): SourceSummary | null;
  /** Positions of the series that may pass `matchers` (series-index.ts); null: any may. */
  candidates?(matchers: readonly SeriesMatcher[]): Int32Array | null;
}

/** What a scan asks of a source's statistics. */
export interface SummaryRequest {
  /** Per scan column: its field spec, or -1. */
  specs: readonly number[];
  /** Rows never merge (append mode), so repeated timestamps do not matter. */
  appendMode: boolean;
  onCorrupt: (message: string) => void;
}

export interface SourceSummary {
  stats: Float64Array;
  rows: number;
  /** Least and greatest timestamp of the rows summarised. */
  span: [bigint, bigint];
}

/** One step of the walk. The object is reused between steps: copy what you keep. */
export interface SeriesGroup {
  key: string;
  /** How many sources hold the key; `sources[j]`/`indexes[j]` for j < count, oldest first. */
  count: number;
  sources: number[];
  indexes: number[];
}

/**
 * `only[s]`, when given and not null, lists the positions (ascending) of source s's keys to walk;
 * its other series are passed over without a comparison (a series index narrowed them).
 */
export function* walkSeries(
  sources: readonly SeriesSource[],
  only?: ReadonlyArray<Int32Array | null>,
): Generator<SeriesGroup, void, void> {
  const k = sources.length;
  const pos = new Array<number>(k).fill(0);
  const ends = sources.map((s, i) => only?.[i]?.length ?? s.keys.length);
  const indexOf = (s: number, at: number): number => {
    const list = only?.[s];
    return list === null || list === undefined ? at : (list[at] as number);
  };
  const group: SeriesGroup = { key: '', count: 0, sources: [], indexes: [] };
  for (;;) {
    let min: string | undefined;
    for (let s = 0; s < k; s++) {
      const at = pos[s] as number;
      if (at >= (ends[s] as number)) continue;
      const key = (sources[s] as SeriesSource).keys[indexOf(s, at)] as string;
      if (min === undefined || key < min) min = key;
    }
    if (min === undefined) return;
    group.key = min;
    group.count = 0;
    for (let s = 0; s < k; s++) {
      const at = pos[s] as number;
      if (at >= (ends[s] as number)) continue;
      const index = indexOf(s, at);
      if ((sources[s] as SeriesSource).keys[index] === min) {
        group.sources[group.count] = s;
        group.indexes[group.count] = index;
        group.count++;
        pos[s] = at + 1;
      }
    }
    yield group;
  }
}
