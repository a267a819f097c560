/**
 * The `greptimedb_v1` JSON output of /v1/sql (reference §4.2). Written by hand rather than with
 * JSON.stringify because values need type-aware rendering (`value-text.ts`): Int64/UInt64/timestamps
 * are BigInts printed as integers, floats keep a fraction (`1.0`) and NaN/±Inf become null, as
 * GreptimeDB's serde encoder does.
 */
import { type Column, type ColumnTable, cellAt } from '../../query/columns.js';
import type { StatementResult } from '../../query/sql/exec/execute.js';
import type { TimeSlice } from '../../shared/time-slice.js';
import type { DataType } from '../../shared/types.js';
import type { BodyChunks } from '../http/context.js';
import { ChunkedBody } from './chunked-body.js';
import { jsonValue } from './value-text.js';

/** Appends a records result to `body`. */
async function recordsJson(
  result: Extract<StatementResult, { kind: 'records' }>,
  limit: number | undefined,
  body: ChunkedBody,
): Promise<void> {
  const types = result.columns.map((c) => c.type);
  // A query's columns are read cell by cell where they are, without building rows first.
  const table = result.table;
  const total = table ? table.rowCount : result.rows.length;
  const rowCount = limit !== undefined ? Math.min(limit, total) : total;
  const schema = JSON.stringify({
    column_schemas: result.columns.map((c) => ({ name: c.name, data_type: c.type })),
  });
  body.write(`{"records":{"schema":${schema},"rows":[`);
  const width = result.columns.length;
  for (let r = 0; r < rowCount; r++) {
    const row = table ? null : (result.rows[r] as unknown[]);
    let line = r === 0 ? '[' : ',[';
    for (let c = 0; c < width; c++) {
      if (c > 0) line += ',';
      const value = row ? row[c] : cellAt((table as ColumnTable).columns[c] as Column, r);
      line += jsonValue(value, types[c] as DataType);
    }
    body.write(`${line}]`);
    const turn = body.rowDone(r);
    if (turn) await turn;
  }
  body.write(`],"total_rows":${rowCount}}}`);
}

/**
 * The whole response body for a list of statement results. With a slice, a long result is
 * encoded in turns of the event loop (a million rows take about a second to write out).
 */
export async function greptimedbV1Body(
  results: StatementResult[],
  executionTimeMs: number,
  limit?: number,
  slice: TimeSlice | null = null,
): Promise<Buffer | BodyChunks> {
  const body = new ChunkedBody(slice);
  if (results.length === 0) {
    body.write(`{"execution_time_ms":${executionTimeMs}}`);
    return body.finish();
  }
  body.write('{"output":[');
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as StatementResult;
    if (i > 0) body.write(',');
    if (r.kind === 'records') await recordsJson(r, limit, body);
    else body.write(`{"affectedrows":${r.rows}}`);
  }
  body.write(`],"execution_time_ms":${executionTimeMs}}`);
  return body.finish();
}
