/**
 * Walks the series of several sources (memtables and segments of one table) in key order, naming
 * for each key the sources that hold it. Sources are given oldest first, and members come out in
 * that order, which is what makes parts reach the merge oldest first.
 */
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

export function* walkSeries(sources: readonly SeriesSource[]): Generator<SeriesGroup, void, void> {
  const k = sources.length;
  const pos = new Array<number>(k).fill(0);
  const group: SeriesGroup = { key: '', count: 0, sources: [], indexes: [] };
  for (;;) {
    let min: string | undefined;
    for (let s = 0; s < k; s++) {
      const keys = (sources[s] as SeriesSource).keys;
      const at = pos[s] as number;
      if (at < keys.length && (min === undefined || (keys[at] as string) < min)) min = keys[at];
    }
    if (min === undefined) return;
    group.key = min;
    group.count = 0;
    for (let s = 0; s < k; s++) {
      const keys = (sources[s] as SeriesSource).keys;
      const at = pos[s] as number;
      if (at < keys.length && keys[at] === min) {
        group.sources[group.count] = s;
        group.indexes[group.count] = at;
        group.count++;
        pos[s] = at + 1;
      }
    }
    yield group;
  }
}
