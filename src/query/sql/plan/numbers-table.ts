/**
 * GreptimeDB's built-in `public.numbers`: one non-null UInt32 column `number` holding 0..99.
 * Virtual: it has no storage and is scanned in the router.
 */
import type { ScanSource } from '../../../shared/scan.js';
import type { TableSchema } from '../../../shared/types.js';

/** Rows of `numbers`: 0..99. */
export const NUMBERS_ROWS = 100;

/** Catalog entry of the built-in table (id -1: never stored). */
export const NUMBERS_TABLE: TableSchema = {
  id: -1,
  db: 'public',
  name: 'numbers',
  columns: [{ id: 0, name: 'number', type: 'UInt32', semantic: 'TAG', nullable: false }],
  timeIndex: '',
  primaryKey: ['number'],
  options: {},
  nextColumnId: 1,
  createdAtMs: 0,
};

/** True when `db.table` means the built-in table (a user table of that name wins). */
export function isNumbersTable(db: string, table: string): boolean {
  return db === 'public' && table === 'numbers';
}

/** Scan source of the built-in table: one chunk, every requested column the numbers. */
export const numbersSource: ScanSource = {
  *scan(request) {
    const values = new Float64Array(NUMBERS_ROWS);
    for (let i = 0; i < NUMBERS_ROWS; i++) values[i] = i;
    yield { rowCount: NUMBERS_ROWS, vectors: request.columns.map(() => ({ kind: 'f64' as const, values })) };
  },
};

/** True when `db` lists the built-in table (SHOW TABLES, information_schema). */
export function numbersTableListed(db: string): boolean {
  return db === 'public';
}
