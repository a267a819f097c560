/**
 * The `json` output of /v1/sql (reference §4.2): `{"data":[{column: value, ...}],
 * "execution_time_ms":N}`, written as serde_json writes a `Map`: every object's keys in sorted
 * (UTF-8 byte) order, the outer object and each row alike. A repeated column name keeps one key,
 * holding the last column's value. DDL/DML: `{"affected_rows":N,"data":[],"execution_time_ms":N}`;
 * no statement at all answers an empty body.
 */
import type { StatementResult } from '../../query/sql/exec/execute.js';
import type { TimeSlice } from '../../shared/time-slice.js';
import type { DataType } from '../../shared/types.js';
import type { BodyChunks } from '../http/context.js';
import { ChunkedBody } from './chunked-body.js';
import { compareUtf8, jsonValue } from './value-text.js';

/** The body for at most one statement result; `slice` lets a long one be written in turns of the loop. */
export async function jsonBody(
  result: StatementResult | undefined,
  executionTimeMs: number,
  slice: TimeSlice | null = null,
): Promise<Buffer | BodyChunks> {
  const body = new ChunkedBody(slice);
  if (result === undefined) return body.finish();
  if (result.kind === 'affected') {
    body.write(`{"affected_rows":${result.rows},"data":[],"execution_time_ms":${executionTimeMs}}`);
    return body.finish();
  }
  // Last column wins for a repeated name; the key order is the sorted order of distinct names.
  const lastIndex = new Map<string, number>();
  for (const [i, c] of result.columns.entries()) lastIndex.set(c.name, i);
  const keys = [...lastIndex.keys()].sort(compareUtf8);
  const order = keys.map((k) => ({ key: JSON.stringify(k), index: lastIndex.get(k) as number }));
  const types = result.columns.map((c) => c.type);
  body.write('{"data":[');
  for (let r = 0; r < result.rows.length; r++) {
    const row = result.rows[r] as unknown[];
    const fields = order.map(({ key, index }) => `${key}:${jsonValue(row[index], types[index] as DataType)}`);
    body.write(`${r === 0 ? '' : ','}{${fields.join(',')}}`);
    const turn = body.rowDone(r);
    if (turn) await turn;
  }
  body.write(`],"execution_time_ms":${executionTimeMs}}`);
  return body.finish();
}
