/**
 * The contract between a shard's storage engine and the query code that runs inside the shard.
 * Storage yields deduplicated rows; query code (SQL today, PromQL later) filters, projects and
 * aggregates them. Nothing here crosses a thread boundary.
 */
import type { PhysicalKind, Vector } from './types.js';

/** Which stored column to read. The time index is asked for with role `time` (its id is ignored). */
export interface ScanColumn {
  id: number;
  kind: PhysicalKind;
  role: 'tag' | 'field' | 'time';
  /**
   * A field's value for rows whose write did not carry it (written before the column was added,
   * or by a client that left it out): the column's DEFAULT, in the column's physical kind (a
   * bigint for i64/u64, 1/0 for bool). Unset: such rows read NULL. Explicit NULLs stay NULL.
   */
  absentValue?: number | bigint | string | undefined;
}

/**
 * A condition the query requires of every row it keeps, which segment indexes can check per
 * block: `term` is `matches_term(column, text)`, `equals` is `column = text`.
 */
export interface BlockFilter {
  /** A String field column (its `str` values). */
  columnId: number;
  op: 'term' | 'equals';
  text: string;
}

/**
 * A condition on one tag that every series the caller keeps meets (a PromQL matcher, a SQL
 * `tag = 'x'` or `tag IN (...)`), which storage may answer from its series index. A hint only:
 * storage may return series that fail it, so `seriesFilter` must check it too.
 */
export interface SeriesMatcher {
  /** The tag column. */
  id: number;
  /** Whether a value passes. */
  test: (value: string) => boolean;
  /** The values that pass, when they are a known list (equality, IN): looked up, not tested. */
  values?: readonly string[] | undefined;
  /** Whether a series without the tag passes (PromQL reads a missing label as ''). */
  missingMatches: boolean;
}

export interface ScanRequest {
  tableId: number;
  /** Columns to return, in this order, in every chunk. */
  columns: ScanColumn[];
  /** Inclusive lower bound on the time index, in the table's unit. */
  timeMin?: bigint | undefined;
  /** Exclusive upper bound on the time index, in the table's unit. */
  timeMax?: bigint | undefined;
  /**
   * Optional series pruning: called once per series with its tag values keyed by column id; a
   * series for which it returns false is skipped without reading its fields.
   */
  seriesFilter?: ((tags: ReadonlyMap<number, string>) => boolean) | undefined;
  /** `seriesFilter`'s conditions that a series index can answer: only candidates are visited. */
  seriesMatchers?: SeriesMatcher[] | undefined;
  /**
   * Optional block pruning: conditions every row the caller keeps meets. Storage may leave out
   * blocks whose column index shows no row can meet them all; it never leaves out a row that
   * does, and it may return rows that do not (the caller still filters).
   */
  blockFilters?: BlockFilter[] | undefined;
  /**
   * Asked now and then while the scan skips series without producing rows; when it answers true
   * the scan yields an empty chunk, a point where its consumer can pause (see QueryTurn).
   */
  pauseWanted?: (() => boolean) | undefined;
  /**
   * The consumer takes series summaries (`ScanChunk.summaries`) in place of rows: storage may
   * answer a series' rows in one segment by their statistics when they lie wholly inside the time
   * range and no other source holds rows of the series in their span (so nothing merges with
   * them). Only honoured when every column is a tag, the time index (a summary has no time) or
   * a Float64 field without `absentValue`, there are no block filters and the table has no
   * tombstones; otherwise rows come as usual.
   */
  summaries?: boolean | undefined;
}

/** Rows of one series in one segment, by their statistics (see `ScanRequest.summaries`). */
export interface SeriesSummary {
  /** Rows it stands for. */
  rows: number;
  /** Per requested column: a tag's value (null when the series lacks it); null for other columns. */
  tags: Array<string | null>;
  /** Per requested column c, at 4c: a Float64 field's present rows, sum, min and max (NaN when none). */
  stats: Float64Array;
}

/**
 * A run of rows. Rows come in (series, time) order with duplicates (same series and timestamp)
 * already merged by the table's merge mode. `vectors[i]` answers `request.columns[i]`; a column the
 * stored data does not have (added later by schema evolution) comes back all NULL.
 */
export interface ScanChunk {
  rowCount: number;
  vectors: Vector[];
  /**
   * Rows where a series may begin, ascending, starting at 0: every other row continues the series
   * of the row before it (the first may continue the previous chunk's). Lets readers that group by
   * series skip comparing tags row by row. Absent: any row may start a series.
   */
  seriesStarts?: readonly number[] | undefined;
  /** Series given by their statistics, beside (not among) the rows (see `ScanRequest.summaries`). */
  summaries?: SeriesSummary[] | undefined;
}

/** A store scans synchronously; the query code in a shard sees the sliced, asynchronous form. */
export interface ScanSource {
  scan(request: ScanRequest): Iterable<ScanChunk> | AsyncIterable<ScanChunk>;
}
