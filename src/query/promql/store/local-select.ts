/**
 * The shard side of a PromQL selector: scan each planned table over the time range, keep the
 * series whose tags pass the matchers, and turn rows into `SeriesSamples` (times in ms, values as
 * float64). Pure code over `ScanSource`; it runs in the shard worker.
 *
 *   TableSelect → ScanRequest (time bounds in the table's unit, matchers as series filter)
 *     → chunks in (series, time) order → series boundaries by tag values → t/v typed arrays
 *
 * Samples of all series are packed into two Float64Arrays and each series gets `subarray` views,
 * so a reply crosses the thread boundary as two transferred buffers whatever the series count.
 * Values stay in typed arrays all the way: NaN payloads such as the stale marker keep their bits.
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import type { ScanColumn, ScanRequest, ScanSource, SeriesMatcher } from '../../../shared/scan.js';
import type { TimeUnit, Vector } from '../../../shared/types.js';
import type { FloatHistogram } from '../histogram/float-histogram.js';
import { HINT_CONTEXT_MS, withReadHint } from '../histogram/read-hints.js';
import { decodeStoredHistogram, toFloatHistogram } from '../histogram/stored-histogram.js';
import { seriesOverLimit, tooManySamples, tooManySeries } from '../limits.js';
import { isStaleNaN, type Label, type Labels, type SeriesSamples } from '../types.js';
import { compileLabelTest } from './matchers.js';
import type { LocalSelect, TableSelect } from './plan.js';

const TWO_POW_32 = 4294967296;
/** Units of each time unit per millisecond, and milliseconds per unit for the coarser `s`. */
const UNITS_PER_MS: Record<TimeUnit, bigint> = { s: 0n, ms: 1n, us: 1_000n, ns: 1_000_000n };
const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

function clampI64(v: bigint): bigint {
  return v > I64_MAX ? I64_MAX : v < I64_MIN ? I64_MIN : v;
}

/**
 * Scan bounds in the table's unit for samples whose ms time (floored) lies in [minMs, maxMs]:
 * `timeMin` inclusive, `timeMax` exclusive, as ScanRequest wants them.
 */
export function scanBounds(
  unit: TimeUnit,
  minMs: number | null,
  maxMs: number | null,
): { timeMin: bigint | undefined; timeMax: bigint | undefined } {
  const lo = minMs === null || !Number.isFinite(minMs) ? null : BigInt(Math.ceil(minMs));
  const hi = maxMs === null || !Number.isFinite(maxMs) ? null : BigInt(Math.floor(maxMs));
  if (unit === 's') {
    // A second t covers ms t*1000: t*1000 >= lo ⇔ t >= ceil(lo/1000); t*1000 <= hi ⇔ t <= floor(hi/1000).
    return {
      timeMin: lo === null ? undefined : clampI64(-floorDiv(-lo, 1000n)),
      timeMax: hi === null ? undefined : clampI64(floorDiv(hi, 1000n) + 1n),
    };
  }
  const per = UNITS_PER_MS[unit];
  return {
    timeMin: lo === null ? undefined : clampI64(lo * per),
    timeMax: hi === null ? undefined : clampI64((hi + 1n) * per),
  };
}

/**
 * Growable sample storage shared by every series of one select. It starts small: one series'
 * hour is a few hundred samples, and zeroing 64 KB up front was a tenth of such a select.
 */
class SampleArena {
  t = new Float64Array(512);
  v = new Float64Array(512);
  /** Native histogram samples by position; null until the first one. */
  h: Array<FloatHistogram | undefined> | null = null;
  /** Per histogram sample: written as an integer histogram. */
  hInteger: boolean[] = [];
  count = 0;

  constructor(private readonly max: number) {}

  reserve(extra: number): void {
    const need = this.count + extra;
    if (need > this.max) throw tooManySamples();
    if (need <= this.t.length) return;
    let size = this.t.length * 2;
    while (size < need) size *= 2;
    const t = new Float64Array(size);
    t.set(this.t.subarray(0, this.count));
    this.t = t;
    const v = new Float64Array(size);
    v.set(this.v.subarray(0, this.count));
    this.v = v;
  }
}

interface OpenSeries {
  labels: Labels;
  start: number;
}

/** Reads the ms time of row i of a chunk's time vector. */
type TimeReader = (i: number) => number;

export function timeReader(vector: Vector, unit: TimeUnit, n: number): TimeReader {
  const values = vector.values as BigInt64Array;
  if (unit === 'ms') {
    // Exact through the 32-bit words while |t| < 2^53 ms (year 285,000): no BigInt per row.
    const words = new Int32Array(values.buffer, values.byteOffset, n * 2);
    return (i) => (words[2 * i + 1] as number) * TWO_POW_32 + ((words[2 * i] as number) >>> 0);
  }
  if (unit === 's') {
    const words = new Int32Array(values.buffer, values.byteOffset, n * 2);
    return (i) => ((words[2 * i + 1] as number) * TWO_POW_32 + ((words[2 * i] as number) >>> 0)) * 1000;
  }
  // µs and ns: a BigInt division per row costs more than the rest of the select. The remainder
  // modulo `per` is exact from the two 32-bit words; the rest of the value is then a multiple of
  // `per`, which the float quotient rounds to exactly while that quotient is below 2^50 (the
  // float error is quotient × 2^-53). Negative or farther times, rare, take the BigInt path.
  const per = UNITS_PER_MS[unit];
  const perNum = Number(per);
  const wordRem = TWO_POW_32 % perNum;
  const hiMax = Math.min(2 ** 31, (2 ** 50 * perNum) / TWO_POW_32);
  const words = new Int32Array(values.buffer, values.byteOffset, n * 2);
  return (i) => {
    const hi = words[2 * i + 1] as number;
    if (hi < 0 || hi >= hiMax) return Number(floorDiv(values[i] as bigint, per));
    const lo = (words[2 * i] as number) >>> 0;
    const rem = ((((hi % perNum) * wordRem) % perNum) + (lo % perNum)) % perNum;
    return Math.round((hi * TWO_POW_32 + lo - rem) / perNum);
  };
}

/** Reads row i of the value vector as a float64 (64-bit integers round as Prometheus would). */
function valueReader(vector: Vector): (i: number) => number {
  if (vector.kind === 'f64') {
    const values = vector.values as Float64Array;
    return (i) => values[i] as number;
  }
  const values = vector.values as BigInt64Array | BigUint64Array;
  return (i) => Number(values[i] as bigint);
}

function labelsOf(table: TableSelect, tagVectors: Array<Array<string | null>>, row: number): Labels {
  const labels: Label[] = [{ name: '__name__', value: table.metric }];
  table.tags.forEach((tag, k) => {
    const value = (tagVectors[k] as Array<string | null>)[row];
    if (value !== null && value !== undefined && value !== '') labels.push({ name: tag.name, value });
  });
  labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return labels;
}

/**
 * The scan's series predicate for a table's matchers, and the same matchers as series-index
 * lookups (an absent label reads '' in both); undefined when there are none.
 */
function seriesConditionsOf(table: TableSelect): Pick<ScanRequest, 'seriesFilter' | 'seriesMatchers'> {
  if (table.matchers.length === 0) return {};
  const matchers = table.matchers.map((m): SeriesMatcher => {
    const name = table.tags.find((t) => t.id === m.columnId)?.name ?? String(m.columnId);
    const test = compileLabelTest(name, m.op, m.value);
    const matcher: SeriesMatcher = { id: m.columnId, test, missingMatches: test('') };
    if (m.op === '=') matcher.values = [m.value];
    return matcher;
  });
  return {
    seriesFilter: (tags) => matchers.every((m) => m.test(tags.get(m.id) ?? '')),
    seriesMatchers: matchers,
  };
}

/**
 * Series of one table with samples in range, appended to `out`. With `withSamples` false only the
 * label sets matter (series API), but a series still needs one non-null sample in range.
 */
async function selectTable(
  source: ScanSource,
  table: TableSelect,
  select: LocalSelect,
  arena: SampleArena,
  withSamples: boolean,
  out: Array<{ labels: Labels; start: number; end: number }>,
): Promise<void> {
  const histogramColumn = table.histogram;
  const columns: ScanColumn[] = [
    { id: 0, kind: 'i64', role: 'time' },
    { id: table.value.id, kind: table.value.kind, role: 'field' },
    ...(histogramColumn ? [{ id: histogramColumn.id, kind: 'str', role: 'field' } as ScanColumn] : []),
    ...table.tags.map((t): ScanColumn => ({ id: t.id, kind: 'str', role: 'tag' })),
  ];
  const firstTag = histogramColumn ? 3 : 2;
  // Histogram tables are read from a little earlier: each series' sample before the window
  // decides the hint its first sample reads with (read-hints.ts), and is then dropped.
  const contextBefore = histogramColumn && withSamples && select.minMs !== null ? select.minMs : null;
  const scanFrom = contextBefore === null ? select.minMs : contextBefore - HINT_CONTEXT_MS;
  const { timeMin, timeMax } = scanBounds(table.timeUnit, scanFrom, select.maxMs);
  if (timeMin !== undefined && timeMax !== undefined && timeMin >= timeMax) return;
  const request: ScanRequest = {
    tableId: table.tableId,
    columns,
    timeMin,
    timeMax,
    ...seriesConditionsOf(table),
  };
  let open: OpenSeries | null = null;
  let openHasSample = false;
  let previousTags: Array<string | null> | null = null;
  // The open series' previous sample: a histogram, or undefined after a float, stale or nothing.
  let previous: FloatHistogram | undefined;
  // A context sample's stored histogram, decoded only if it is the last before the window.
  let previousContext: string | null = null;
  const close = (): void => {
    if (open && openHasSample) out.push({ labels: open.labels, start: open.start, end: arena.count });
    open = null;
    openHasSample = false;
  };
  for await (const chunk of source.scan(request)) {
    const n = chunk.rowCount;
    if (n === 0) continue;
    const readTime = timeReader(chunk.vectors[0] as Vector, table.timeUnit, n);
    const valueVector = chunk.vectors[1] as Vector;
    const readValue = valueReader(valueVector);
    const valid = valueVector.valid;
    const histograms = histogramColumn ? histogramValues(chunk.vectors[2] as Vector) : null;
    const tagVectors = chunk.vectors.slice(firstTag).map((v) => v.values as Array<string | null>);
    if (withSamples) arena.reserve(n);
    // Series change only where the scan says one may start (else at any row: check them all).
    const starts = chunk.seriesStarts;
    const segments = starts !== undefined && starts[0] === 0 ? starts : null;
    const segmentCount = segments ? segments.length : n;
    for (let s = 0; s < segmentCount; s++) {
      const from = segments ? (segments[s] as number) : s;
      const to = segments ? (s + 1 < segments.length ? (segments[s + 1] as number) : n) : s + 1;
      // Two series never share every tag value, so equal tags mean the same series goes on.
      let changed = previousTags === null;
      if (!changed) {
        for (let k = 0; k < tagVectors.length; k++) {
          if ((tagVectors[k] as Array<string | null>)[from] !== (previousTags as Array<string | null>)[k]) {
            changed = true;
            break;
          }
        }
      }
      if (changed) {
        close();
        open = { labels: labelsOf(table, tagVectors, from), start: arena.count };
        previousTags = tagVectors.map((v) => v[from] ?? null);
        previous = undefined;
        previousContext = null;
      }
      for (let i = from; i < to; i++) {
        // A NULL value with a histogram is a histogram sample (series-inserts.ts).
        const stored = valid && valid[i] === 0 ? (histograms?.[i] ?? null) : null;
        if (valid && valid[i] === 0 && stored === null) continue;
        if (contextBefore !== null && readTime(i) < contextBefore) {
          previousContext = stored;
          continue;
        }
        if (previousContext !== null) {
          previous = contextHistogram(previousContext);
          previousContext = null;
        }
        // A series counts once it has a sample; one past the bound fails before its samples
        // are copied, so a shard holds at most `seriesMax` series of samples.
        if (!openHasSample && seriesOverLimit(out.length + 1, select.seriesMax)) throw tooManySeries(select.seriesMax);
        openHasSample = true;
        if (!withSamples) break;
        arena.t[arena.count] = readTime(i);
        if (stored === null) arena.v[arena.count] = readValue(i);
        else {
          const wire = decodeStoredHistogram(stored);
          // Prometheus marks a vanished histogram series with a histogram whose sum is the stale
          // NaN: it becomes a float stale marker, which the engine already drops.
          if (isStaleNaN(wire.sum)) {
            arena.v[arena.count] = wire.sum;
            previous = undefined;
          } else {
            const h = toFloatHistogram(wire);
            arena.v[arena.count] = 0;
            arena.h ??= [];
            arena.h[arena.count] = withReadHint(h, previous);
            arena.hInteger[arena.count] = !wire.float;
            previous = h;
          }
        }
        if (stored === null) previous = undefined;
        arena.count++;
      }
    }
  }
  close();
}

/**
 * Reads the series a `LocalSelect` asks for from this shard's storage. Series come back in scan
 * order (table by table, series-key order within a table); the router sorts the merged answer.
 */
export async function selectLocal(source: ScanSource, select: LocalSelect): Promise<SeriesSamples[]> {
  const arena = new SampleArena(select.samplesMax);
  const ranges: Array<{ labels: Labels; start: number; end: number }> = [];
  for (const table of select.tables) await selectTable(source, table, select, arena, true, ranges);
  // One exact-size buffer each for times and values; series are views into them.
  const t = arena.t.slice(0, arena.count);
  const v = arena.v.slice(0, arena.count);
  const h = arena.h;
  return ranges.map((r) => {
    const samples = { labels: r.labels, t: t.subarray(r.start, r.end), v: v.subarray(r.start, r.end) };
    if (h === null) return samples;
    const part = h.slice(r.start, r.end);
    part.length = r.end - r.start;
    if (!part.some((x) => x !== undefined)) return samples;
    const hInteger = Array.from({ length: r.end - r.start }, (_, k) => arena.hInteger[r.start + k] === true);
    return { ...samples, h: part, hInteger };
  });
}

/** A context sample's histogram; undefined when it is a stale marker (which ends a chunk). */
function contextHistogram(stored: string): FloatHistogram | undefined {
  const wire = decodeStoredHistogram(stored);
  return isStaleNaN(wire.sum) ? undefined : toFloatHistogram(wire);
}

/** A histogram column's values (str vector, NULLs as null or by `valid`). */
function histogramValues(vector: Vector): ReadonlyArray<string | null | undefined> {
  const values = vector.values as Array<string | null>;
  const valid = vector.valid;
  if (!valid) return values;
  return values.map((x, i) => (valid[i] === 0 ? null : x));
}

/** Label sets of the series a `LocalSelect` matches that have at least one sample in range. */
export async function selectLocalSeries(source: ScanSource, select: LocalSelect): Promise<Labels[]> {
  const arena = new SampleArena(select.samplesMax);
  const ranges: Array<{ labels: Labels; start: number; end: number }> = [];
  for (const table of select.tables) await selectTable(source, table, select, arena, false, ranges);
  return ranges.map((r) => r.labels);
}
