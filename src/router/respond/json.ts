/**
 * The `json` output of /v1/sql (reference §4.2): `{"data":[{column: value, ...}],
 * "execution_time_ms":N}`, written as serde_json writes a `Map`: every object's keys in sorted
 * (UTF-8 byte) order, the outer object and each row alike. A repeated column name keeps one key,
 * holding the last column's value. DDL/DML: `{"affected_rows":N,"data":[],"execution_time_ms":N}`;
 * no statement at all answers an empty body.
 */
import type { StatementResult } from '../../query/sql/execute.js';
import type { DataType } from '../../shared/types.js';
import { compareUtf8, jsonValue } from './value-text.js';

/** The body for at most one statement result. */
export function jsonBody(result: StatementResult | undefined, executionTimeMs: number): string {
  if (result === undefined) return '';
  if (result.kind === 'affected') {
    return `{"affected_rows":${result.rows},"data":[],"execution_time_ms":${executionTimeMs}}`;
  }
  // Last column wins for a repeated name; the key order is the sorted order of distinct names.
  const lastIndex = new Map<string, number>();
  for (const [i, c] of result.columns.entries()) lastIndex.set(c.name, i);
  const keys = [...lastIndex.keys()].sort(compareUtf8);
  const order = keys.map((k) => ({ key: JSON.stringify(k), index: lastIndex.get(k) as number }));
  const types = result.columns.map((c) => c.type);
  const rows = result.rows.map(
    (row) =>
      `{${order.map(({ key, index }) => `${key}:${jsonValue(row[index], types[index] as DataType)}`).join(',')}}`,
  );
  return `{"data":[${rows.join(',')}],"execution_time_ms":${executionTimeMs}}`;
}
