/**
 * What executing one statement produces. Row values are `null`, `boolean`, `number` (physical
 * kind f64: Float32/64, Int8..Int32, UInt8..UInt32, Date as days), `bigint` (Int64, UInt64 and every
 * Timestamp type as a count of its unit) or `string`. Formatting (floats, timestamps) is the
 * router's job, per output format.
 *
 * Beside both languages rather than in sql/: PromQL answers in this shape too (TQL, /v1/pql), and
 * it must not import SQL to do so.
 */
import type { DataType } from '../shared/types.js';

/** Name and type of one result column. */
export interface ResultColumn {
  name: string;
  type: DataType;
}

/** The result of one statement: records, or a count of affected rows. */
export type StatementResult =
  | { kind: 'records'; columns: ResultColumn[]; rows: unknown[][] }
  | { kind: 'affected'; rows: number };

/** A row-returning result. */
export function records(columns: ResultColumn[], rows: unknown[][]): StatementResult {
  return { kind: 'records', columns, rows };
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
