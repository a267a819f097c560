/**
 * An inverted index of one source's series (a segment, or a memtable table's series as last
 * sorted): tag id → tag value → the ascending positions of the series holding it in the source's
 * key list. A scan with `seriesMatchers` asks it for candidates, so a selector that names one host
 * visits that host's series instead of parsing every key of the table (as Prometheus' postings
 * and VictoriaMetrics' indexdb do).
 *
 * Built from the keys the first time a scan asks, then kept as long as its source: a segment is
 * immutable, and a memtable drops its sorted list (and this index with it) when a series is added.
 * The candidates are a superset: the scan still applies its `seriesFilter` to each of them.
 */
import type { SeriesMatcher } from '../shared/scan.js';
import { forEachTag } from '../shared/series-key.js';

/** Positions of one tag value: a single position stays a number (most values of a high-cardinality tag). */
type Postings = number | Int32Array;

export class SeriesIndex {
  private readonly byTag = new Map<number, Map<string, Postings>>();

  constructor(keys: readonly string[]) {
    const lists = new Map<number, Map<string, number | number[]>>();
    for (let i = 0; i < keys.length; i++) {
      forEachTag(keys[i] as string, (id, value) => {
        let values = lists.get(id);
        if (values === undefined) lists.set(id, (values = new Map()));
        const list = values.get(value);
        if (list === undefined) values.set(value, i);
        else if (typeof list === 'number') values.set(value, [list, i]);
        else list.push(i);
      });
    }
    for (const [id, values] of lists) {
      const compact = new Map<string, Postings>();
      for (const [value, list] of values) compact.set(value, typeof list === 'number' ? list : Int32Array.from(list));
      this.byTag.set(id, compact);
    }
  }

  /**
   * Ascending positions of the series that may pass every matcher, or null when no matcher can
   * narrow them (each accepts a series without its tag, so the index, which lists only series
   * holding a tag, cannot stand for it).
   */
  candidates(matchers: readonly SeriesMatcher[]): Int32Array | null {
    let result: Int32Array | null = null;
    for (const m of matchers) {
      if (m.missingMatches) continue;
      const found = this.positionsOf(m);
      result = result === null ? found : intersect(result, found);
      if (result.length === 0) break;
    }
    return result;
  }

  private positionsOf(m: SeriesMatcher): Int32Array {
    const values = this.byTag.get(m.id);
    if (values === undefined) return new Int32Array(0);
    const parts: Postings[] = [];
    if (m.values !== undefined) {
      // A value listed twice must not list its series twice.
      for (const v of m.values.length > 1 ? new Set(m.values) : m.values) {
        const p = values.get(v);
        if (p !== undefined) parts.push(p);
      }
    } else {
      // One test per distinct value, not per series.
      for (const [v, p] of values) if (m.test(v)) parts.push(p);
    }
    return union(parts);
  }
}

function union(parts: readonly Postings[]): Int32Array {
  if (parts.length === 1) {
    const only = parts[0] as Postings;
    return typeof only === 'number' ? Int32Array.of(only) : only;
  }
  let n = 0;
  for (const p of parts) n += typeof p === 'number' ? 1 : p.length;
  const out = new Int32Array(n);
  let at = 0;
  for (const p of parts) {
    if (typeof p === 'number') out[at++] = p;
    else {
      out.set(p, at);
      at += p.length;
    }
  }
  // A series holds one value per tag, so the parts are disjoint: sorting is all that is left.
  return out.sort();
}

function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}
