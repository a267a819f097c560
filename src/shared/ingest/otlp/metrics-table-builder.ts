/**
 * Collects the samples of one metric table while an OTLP request is mapped, then emits them as a
 * `TableInsert` in the remote-write layout (docs/metrics-storage.md): `greptime_timestamp`
 * TimestampMillisecond time index, `greptime_value` Float64, one String tag per label, tags sorted
 * by name. Rows are grouped by series so the ingest pipeline hashes each series once.
 *
 * Values stay in a Float64Array from start to end: Prometheus' stale marker is a NaN with a
 * payload, and a plain JS array would canonicalise it.
 *
 * Native histogram rows (exponential histograms in `native` mode) have a NULL value and their
 * stored histogram in `greptime_histogram`, as remote write writes them (series-inserts.ts).
 */
import { InvalidArgument } from '../../errors.js';
import { TIME_COLUMN, valueColumnOf } from '../../ingest/prom-remote/to-inserts.js';
import { HISTOGRAM_COLUMN } from '../../ingest/series-inserts.js';
import type { InsertColumn, TableInsert } from '../../insert.js';
import type { TableSchema } from '../../types.js';

/** Prometheus' staleness marker, the value of points flagged "no recorded value". */
export const STALE_NAN_BITS = 0x7ff0000000000002n;

const INITIAL_ROWS = 16;

/** The canonical text of a label set (names sorted): equal sets give equal keys. */
export function seriesKeyOf(labels: ReadonlyMap<string, string>): string {
  const names = [...labels.keys()].sort();
  let key = '';
  for (const name of names) key += `${name}\u0000${labels.get(name)}\u0001`;
  return key;
}

export class MetricTableBuilder {
  /** Column names a label must not take in this table (its time index and value column). */
  readonly timeColumn: string;
  readonly valueColumn: string;
  private readonly seriesIndex = new Map<string, number>();
  /** Series that extend a base series by one label (buckets' `le`, `quantile`): base key → value → local. */
  private readonly extendedIndex = new Map<string, Map<string, number>>();
  private readonly seriesLabels: Array<ReadonlyMap<string, string>> = [];
  private timesMs = new Float64Array(INITIAL_ROWS);
  private values = new Float64Array(INITIAL_ROWS);
  private rowSeries = new Uint32Array(INITIAL_ROWS);
  private staleRows: number[] = [];
  /** Stored native histograms by row; null until the first one. */
  private histograms: Array<string | undefined> | null = null;
  rowCount = 0;

  constructor(
    readonly db: string,
    readonly table: string,
    existing: TableSchema | undefined,
  ) {
    // A table that already exists keeps its own column names, as remote write does.
    this.timeColumn = existing?.timeIndex ?? TIME_COLUMN;
    this.valueColumn = valueColumnOf(existing);
  }

  /** The label that would collide with the time index or value column, else null. */
  collidingLabel(labels: ReadonlyMap<string, string>): string | null {
    if (labels.has(this.timeColumn)) return this.timeColumn;
    if (labels.has(this.valueColumn)) return this.valueColumn;
    if (labels.has(HISTOGRAM_COLUMN)) return HISTOGRAM_COLUMN;
    return null;
  }

  /**
   * The local number of the series with these labels; `key` must be `seriesKeyOf(labels)` or
   * another text that is equal exactly when the label sets are. `labels` is kept, not copied.
   */
  series(key: string, labels: ReadonlyMap<string, string>): number {
    let local = this.seriesIndex.get(key);
    if (local === undefined) {
      local = this.seriesLabels.length;
      this.seriesIndex.set(key, local);
      this.seriesLabels.push(labels);
    }
    return local;
  }

  /**
   * The local number of the series with `labels` plus `name=value`, where `key` is the key of
   * `labels` alone (a label set never mixes both kinds: a table's series all carry `name` or none).
   * Spares building a longer key per bucket row.
   */
  extendedSeries(key: string, labels: ReadonlyMap<string, string>, name: string, value: string): number {
    let byValue = this.extendedIndex.get(key);
    if (!byValue) {
      byValue = new Map();
      this.extendedIndex.set(key, byValue);
    }
    let local = byValue.get(value);
    if (local === undefined) {
      local = this.seriesLabels.length;
      byValue.set(value, local);
      this.seriesLabels.push(new Map(labels).set(name, value));
    }
    return local;
  }

  /** Appends one sample; `stale` writes the staleness marker instead of `value`. */
  add(series: number, timeMs: number, value: number, stale = false): void {
    const row = this.rowCount;
    if (row === this.values.length) this.grow();
    this.timesMs[row] = timeMs;
    this.values[row] = value;
    this.rowSeries[row] = series;
    if (stale) this.staleRows.push(row);
    this.rowCount = row + 1;
  }

  /** Appends one native histogram sample in its stored form (stored-histogram.ts). */
  addHistogram(series: number, timeMs: number, stored: string): void {
    const row = this.rowCount;
    this.add(series, timeMs, 0);
    this.histograms ??= [];
    this.histograms[row] = stored;
  }

  private grow(): void {
    const size = this.values.length * 2;
    const times = new Float64Array(size);
    times.set(this.timesMs);
    this.timesMs = times;
    const values = new Float64Array(size);
    values.set(this.values);
    this.values = values;
    const series = new Uint32Array(size);
    series.set(this.rowSeries);
    this.rowSeries = series;
  }

  /** The rows as one insert, ordered by series (then arrival) so each series' rows are adjacent. */
  toInsert(): TableInsert {
    const n = this.rowCount;
    const labelNames = new Set<string>();
    for (const labels of this.seriesLabels) for (const name of labels.keys()) labelNames.add(name);
    for (const name of labelNames) {
      if (name === this.timeColumn || name === this.valueColumn) {
        // Callers reject such points first; reaching here is a programming error, but a 400 is
        // still the right answer for the request.
        throw new InvalidArgument(`Label ${name} of metric ${this.table} collides with a column of the table`);
      }
    }
    const sortedLabels = [...labelNames].sort();

    // Counting sort by series keeps arrival order inside each series.
    const seriesCount = this.seriesLabels.length;
    const starts = new Uint32Array(seriesCount + 1);
    for (let row = 0; row < n; row++) (starts[(this.rowSeries[row] as number) + 1] as number)++;
    for (let s = 0; s < seriesCount; s++) starts[s + 1] = (starts[s + 1] as number) + (starts[s] as number);
    const order = new Uint32Array(n);
    const next = starts.slice(0, seriesCount);
    for (let row = 0; row < n; row++) {
      const s = this.rowSeries[row] as number;
      order[next[s] as number] = row;
      next[s] = (next[s] as number) + 1;
    }

    const stale = new Uint8Array(n);
    for (const row of this.staleRows) stale[row] = 1;
    // Timestamps go into the BigInt64Array through its 32-bit words: no BigInt per row.
    const timestamps = new BigInt64Array(n);
    const words = new Int32Array(timestamps.buffer);
    const values = new Float64Array(n);
    const valueBits = new BigUint64Array(values.buffer);
    const rowSeries = new Uint32Array(n);
    const tagVectors = sortedLabels.map(() => new Array<string | null>(n).fill(null));
    const histograms = this.histograms;
    const storedHistograms = histograms ? new Array<string | null>(n).fill(null) : null;
    const valueValid = histograms ? new Uint8Array(n) : undefined;
    for (let out = 0; out < n; out++) {
      const row = order[out] as number;
      const ms = this.timesMs[row] as number;
      const high = Math.floor(ms / 4294967296);
      words[2 * out] = (ms - high * 4294967296) | 0;
      words[2 * out + 1] = high | 0;
      if (stale[row] === 1) valueBits[out] = STALE_NAN_BITS;
      else values[out] = this.values[row] as number;
      if (storedHistograms !== null && valueValid !== undefined) {
        const stored = (histograms as Array<string | undefined>)[row];
        if (stored === undefined) valueValid[out] = 1;
        else storedHistograms[out] = stored;
      }
      rowSeries[out] = this.rowSeries[row] as number;
    }
    sortedLabels.forEach((name, k) => {
      const vector = tagVectors[k] as Array<string | null>;
      for (let s = 0; s < seriesCount; s++) {
        const value = this.seriesLabels[s]?.get(name);
        if (value !== undefined) vector.fill(value, starts[s] as number, starts[s + 1] as number);
      }
    });

    const columns: InsertColumn[] = [
      {
        name: this.timeColumn,
        semantic: 'TIMESTAMP',
        type: 'TimestampMillisecond',
        vector: { kind: 'i64', values: timestamps },
      },
      {
        name: this.valueColumn,
        semantic: 'FIELD',
        type: 'Float64',
        vector: { kind: 'f64', values, valid: valueValid },
      },
      ...(storedHistograms === null
        ? []
        : [
            {
              name: HISTOGRAM_COLUMN,
              semantic: 'FIELD',
              type: 'Binary',
              vector: { kind: 'str', values: storedHistograms },
            } satisfies InsertColumn,
          ]),
      ...sortedLabels.map(
        (name, k): InsertColumn => ({
          name,
          semantic: 'TAG',
          type: 'String',
          vector: { kind: 'str', values: tagVectors[k] as Array<string | null> },
        }),
      ),
    ];
    return { db: this.db, table: this.table, rowCount: n, columns, rowSeries };
  }
}
