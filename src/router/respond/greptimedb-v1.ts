/**
 * The `greptimedb_v1` JSON output of /v1/sql (reference §4.2). Written by hand rather than with
 * JSON.stringify because values need type-aware rendering (`value-text.ts`): Int64/UInt64/timestamps
 * are BigInts printed as integers, floats keep a fraction (`1.0`) and NaN/±Inf become null, as
 * GreptimeDB's serde encoder does.
 */
import type { StatementResult } from '../../query/sql/execute.js';
import type { DataType } from '../../shared/types.js';
import { jsonValue } from './value-text.js';

function recordsJson(result: Extract<StatementResult, { kind: 'records' }>, limit: number | undefined): string {
  const types = result.columns.map((c) => c.type);
  const rows = limit !== undefined && result.rows.length > limit ? result.rows.slice(0, limit) : result.rows;
  const parts: string[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as unknown[];
    let line = '[';
    for (let c = 0; c < row.length; c++) {
      if (c > 0) line += ',';
      line += jsonValue(row[c], types[c] as DataType);
    }
    parts[r] = `${line}]`;
  }
  const schema = JSON.stringify({
    column_schemas: result.columns.map((c) => ({ name: c.name, data_type: c.type })),
  });
  return `{"records":{"schema":${schema},"rows":[${parts.join(',')}],"total_rows":${rows.length}}}`;
}

/** The whole response body for a list of statement results. */
export function greptimedbV1Body(results: StatementResult[], executionTimeMs: number, limit?: number): string {
  if (results.length === 0) return `{"execution_time_ms":${executionTimeMs}}`;
  const outputs = results.map((r) => (r.kind === 'records' ? recordsJson(r, limit) : `{"affectedrows":${r.rows}}`));
  return `{"output":[${outputs.join(',')}],"execution_time_ms":${executionTimeMs}}`;
}
