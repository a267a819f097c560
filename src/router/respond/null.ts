/**
 * The `null` output of /v1/sql (reference §4.2): the data is discarded and only counts remain,
 *
 *   3 rows in set.
 *   Elapsed: 0.004 sec.
 *
 * or `N rows affected.` for DDL/DML (always "rows"). Elapsed is execution_time_ms / 1000 with
 * three decimals.
 */
import type { StatementResult } from '../../query/sql/exec/execute.js';

/** The body for exactly one statement result. */
export function nullBody(result: StatementResult, executionTimeMs: number): string {
  const first = result.kind === 'affected' ? `${result.rows} rows affected.` : `${result.rows.length} rows in set.`;
  return `${first}\nElapsed: ${(executionTimeMs / 1000).toFixed(3)} sec.\n`;
}
