/**
 * The `greptimedb_v1` JSON output of /v1/sql (reference §4.2). Written by hand rather than with
 * JSON.stringify because values need type-aware rendering (`value-text.ts`): Int64/UInt64/timestamps
 * are BigInts printed as integers, floats keep a fraction (`1.0`) and NaN/±Inf become null, as
 * GreptimeDB's serde encoder does.
 */
import type { StatementResult } from '../../query/sql/execute.js';
import type { TimeSlice } from '../../shared/time-slice.js';
import type { DataType } from '../../shared/types.js';
import { jsonValue } from './value-text.js';

/** Rows encoded into one UTF-8 chunk, between two checks of the slice. */
const ROWS_PER_CHUNK = 1024;

/**
 * Appends a records result to `out` as UTF-8 chunks of ROWS_PER_CHUNK rows. Chunks rather than
 * one string: joining and converting a body of tens of megabytes at the end would hold the event
 * loop for a hundred milliseconds and more; many small buffers are copied once, by concat.
 */
async function recordsJson(
  result: Extract<StatementResult, { kind: 'records' }>,
  limit: number | undefined,
  slice: TimeSlice | null,
  out: Buffer[],
): Promise<void> {
  const types = result.columns.map((c) => c.type);
  const rowCount = limit !== undefined ? Math.min(limit, result.rows.length) : result.rows.length;
  const schema = JSON.stringify({
    column_schemas: result.columns.map((c) => ({ name: c.name, data_type: c.type })),
  });
  out.push(Buffer.from(`{"records":{"schema":${schema},"rows":[`));
  for (let start = 0; start < rowCount; start += ROWS_PER_CHUNK) {
    const end = Math.min(rowCount, start + ROWS_PER_CHUNK);
    let text = start === 0 ? '' : ',';
    for (let r = start; r < end; r++) {
      const row = result.rows[r] as unknown[];
      if (r > start) text += ',';
      text += '[';
      for (let c = 0; c < row.length; c++) {
        if (c > 0) text += ',';
        text += jsonValue(row[c], types[c] as DataType);
      }
      text += ']';
    }
    out.push(Buffer.from(text));
    if (slice !== null) await slice.next();
  }
  out.push(Buffer.from(`],"total_rows":${rowCount}}}`));
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
): Promise<Buffer> {
  if (results.length === 0) return Buffer.from(`{"execution_time_ms":${executionTimeMs}}`);
  const out: Buffer[] = [Buffer.from('{"output":[')];
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as StatementResult;
    if (i > 0) out.push(Buffer.from(','));
    if (r.kind === 'records') await recordsJson(r, limit, slice, out);
    else out.push(Buffer.from(`{"affectedrows":${r.rows}}`));
  }
  out.push(Buffer.from(`],"execution_time_ms":${executionTimeMs}}`));
  return Buffer.concat(out);
}
