/**
 * What executing one statement produces. Row values are `null`, `boolean`, `number` (physical
 * kind f64: Float32/64, Int8..Int32, UInt8..UInt32, Date as days), `bigint` (Int64, UInt64 and every
 * Timestamp type as a count of its unit) or `string`. Formatting (floats, timestamps) is the
 * router's job, per output format.
 *
 * Beside both languages rather than in sql/: PromQL answers in this shape too (TQL, /v1/pql), and
 * it must not import SQL to do so.
 */
import type { TimeSlice } from '../shared/time-slice.js';
import type { DataType } from '../shared/types.js';
import { type ColumnTable, tableRows, tableRowsNow } from './columns.js';

/** Name and type of one result column. */
export interface ResultColumn {
  name: string;
  type: DataType;
}

/**
 * The result of one statement: records, or a count of affected rows. Records a query computed
 * column by column also carry `table`, which formats that write columns (Arrow) read without
 * boxing a value per cell; their `rows` are then made on first read (see `columnarRecords`).
 */
export type StatementResult =
  | { kind: 'records'; columns: ResultColumn[]; rows: unknown[][]; table?: ColumnTable | undefined }
  | { kind: 'affected'; rows: number };

/** A row-returning result. */
export function records(columns: ResultColumn[], rows: unknown[][]): StatementResult {
  return { kind: 'records', columns, rows };
}

/**
 * Records held column by column. `rows` is computed on first read, in one go: a writer that
 * needs rows of a large result calls `withRows` first, which builds them in slices of the
 * event loop. `table` is not enumerable, so spreading the result keeps only its rows.
 */
export function columnarRecords(columns: ResultColumn[], table: ColumnTable): StatementResult {
  let rows: unknown[][] | null = null;
  const result = {
    kind: 'records' as const,
    columns,
    get rows(): unknown[][] {
      rows ??= tableRowsNow(table);
      return rows;
    },
  };
  // The same records in another layout, not more content: hidden from comparisons and copies.
  Object.defineProperty(result, 'table', { value: table, enumerable: false });
  return result;
}

/** The result with its rows built (checking `slice` as they are) and no columnar form. */
export async function withRows(result: StatementResult, slice: TimeSlice | null): Promise<StatementResult> {
  if (result.kind !== 'records' || result.table === undefined) return result;
  return records(result.columns, await tableRows(result.table, slice));
}

/** A DDL/DML result. */
export function affected(rows: number): StatementResult {
  return { kind: 'affected', rows };
}

/** A result whose columns are all strings (SHOW, DESCRIBE). */
export function stringRecords(names: string[], rows: Array<Array<string | null>>): StatementResult {
  return records(
    names.map((name) => ({ name, type: 'String' as const })),
    rows,
  );
}
