/**
 * An in-memory `SampleSource`: series kept as sorted sample arrays, selected by matchers. The
 * conformance runner loads Prometheus' test scripts into it; unit tests use it to drive the
 * engine without a server. Series come back sorted by label set, as Prometheus' TSDB returns
 * them, so results that depend on input order (topk ties, `or`) are deterministic.
 *
 * Values live in Float64Arrays: V8 canonicalises NaN payloads stored in plain number arrays,
 * which would turn staleness markers into ordinary NaNs.
 */

import type { FloatHistogram } from './histogram/float-histogram.js';
import { HINT_CONTEXT_MS, readHints } from './histogram/read-hints.js';
import { compareLabels, getLabel, labelsKey } from './labels.js';
import { compileMatchers, matchesAll } from './matchers.js';
import type { Labels, Matcher, SampleSource, SelectRequest, SeriesSamples } from './types.js';

interface StoredSeries {
  labels: Labels;
  t: Float64Array;
  v: Float64Array;
  /** Native histogram samples by position; only for series that were given one. */
  h: (FloatHistogram | undefined)[] | undefined;
  length: number;
  /** False after an out-of-order append; sorted lazily on the next read. */
  sorted: boolean;
}

export class MemorySource implements SampleSource {
  private readonly byKey = new Map<string, StoredSeries>();
  private ordered: StoredSeries[] | null = null;

  /** Appends one sample; a later sample at the same timestamp replaces the earlier one. */
  add(labels: Labels, timeMs: number, value: number): void {
    const series = this.append(labels, timeMs, value);
    if (series.h) series.h[series.length - 1] = undefined;
  }

  /** Appends one native histogram sample, with the same replacement rule as `add`. */
  addHistogram(labels: Labels, timeMs: number, histogram: FloatHistogram): void {
    const series = this.append(labels, timeMs, 0);
    series.h ??= [];
    series.h[series.length - 1] = histogram;
  }

  private append(labels: Labels, timeMs: number, value: number): StoredSeries {
    const key = labelsKey(labels);
    let series = this.byKey.get(key);
    if (!series) {
      series = { labels, t: new Float64Array(16), v: new Float64Array(16), h: undefined, length: 0, sorted: true };
      this.byKey.set(key, series);
      this.ordered = null;
    }
    if (series.length === series.t.length) {
      const t = new Float64Array(series.length * 2);
      const v = new Float64Array(series.length * 2);
      t.set(series.t);
      v.set(series.v);
      series.t = t;
      series.v = v;
    }
    if (series.length > 0 && (series.t[series.length - 1] as number) >= timeMs) series.sorted = false;
    series.t[series.length] = timeMs;
    series.v[series.length] = value;
    series.length++;
    return series;
  }

  /** Drops every series. */
  clear(): void {
    this.byKey.clear();
    this.ordered = null;
  }

  /** Number of stored series. */
  get seriesCount(): number {
    return this.byKey.size;
  }

  private allSeries(): StoredSeries[] {
    if (this.ordered === null) {
      this.ordered = [...this.byKey.values()].sort((a, b) => compareLabels(a.labels, b.labels));
    }
    for (const series of this.ordered) if (!series.sorted) sortSeries(series);
    return this.ordered;
  }

  async select(request: SelectRequest, signal?: AbortSignal): Promise<SeriesSamples[]> {
    signal?.throwIfAborted();
    const compiled = compileMatchers(request.matchers);
    const out: SeriesSamples[] = [];
    for (const series of this.allSeries()) {
      if (!matchesAll(compiled, series.labels)) continue;
      const lo = upperBound(series.t, series.length, request.startMs);
      const hi = upperBound(series.t, series.length, request.endMs);
      if (hi <= lo) continue;
      // The sample before the window, when near enough, decides the first one's hint.
      const withContext = lo > 0 && (series.t[lo - 1] as number) > request.startMs - HINT_CONTEXT_MS;
      const h = series.h ? readHints(series.h, lo, hi, withContext) : undefined;
      out.push({
        labels: series.labels,
        t: series.t.slice(lo, hi),
        v: series.v.slice(lo, hi),
        ...(h?.some((x) => x !== undefined) ? { h } : {}),
      });
    }
    return out;
  }

  async series(matcherSets: readonly (readonly Matcher[])[], startMs: number, endMs: number): Promise<Labels[]> {
    return this.matching(matcherSets, startMs, endMs).map((s) => s.labels);
  }

  async labelNames(matcherSets: readonly (readonly Matcher[])[], startMs: number, endMs: number): Promise<string[]> {
    const names = new Set<string>();
    for (const series of this.matching(matcherSets, startMs, endMs))
      for (const label of series.labels) names.add(label.name);
    return [...names].sort();
  }

  async labelValues(
    name: string,
    matcherSets: readonly (readonly Matcher[])[],
    startMs: number,
    endMs: number,
  ): Promise<string[]> {
    const values = new Set<string>();
    for (const series of this.matching(matcherSets, startMs, endMs)) {
      const value = getLabel(series.labels, name);
      if (value !== '') values.add(value);
    }
    return [...values].sort();
  }

  /** Series matching any matcher set (all when none given) with a sample in [start, end]. */
  private matching(matcherSets: readonly (readonly Matcher[])[], startMs: number, endMs: number): StoredSeries[] {
    const compiled = matcherSets.map((set) => compileMatchers(set));
    return this.allSeries().filter((series) => {
      if (compiled.length > 0 && !compiled.some((set) => matchesAll(set, series.labels))) return false;
      const lo = upperBound(series.t, series.length, startMs - 1);
      return lo < series.length && (series.t[lo] as number) <= endMs;
    });
  }
}

/** Sorts by time; for equal times the later append wins. */
function sortSeries(series: StoredSeries): void {
  const order = Array.from({ length: series.length }, (_, i) => i).sort(
    (a, b) => (series.t[a] as number) - (series.t[b] as number) || a - b,
  );
  const t = new Float64Array(Math.max(16, series.length));
  const v = new Float64Array(Math.max(16, series.length));
  const h: (FloatHistogram | undefined)[] | undefined = series.h ? [] : undefined;
  let n = 0;
  for (const i of order) {
    const time = series.t[i] as number;
    if (n > 0 && t[n - 1] === time) {
      v[n - 1] = series.v[i] as number;
      if (h) h[n - 1] = series.h?.[i];
      continue;
    }
    t[n] = time;
    v[n] = series.v[i] as number;
    if (h) h[n] = series.h?.[i];
    n++;
  }
  series.t = t;
  series.v = v;
  series.h = h;
  series.length = n;
  series.sorted = true;
}

/** First index below `length` whose time is greater than `time`. */
function upperBound(times: Float64Array, length: number, time: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as number) <= time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
