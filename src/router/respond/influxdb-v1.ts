/**
 * The `influxdb_v1` JSON output of /v1/sql (reference §4.2): one `results` element per statement,
 * `{"statement_id":i,"series":[{"name":"","columns":[...],"values":[...]}]}` for rows and
 * `"series":[]` for DDL/DML. An empty result has no columns either (GreptimeDB builds the series
 * from record batches, and an empty result has none). With `epoch`, every timestamp value is
 * converted to that unit: multiplied when the unit is finer (kept as is if that overflows i64),
 * floor-divided when it is coarser, as GreptimeDB's `Timestamp::convert_to` does.
 */
import type { StatementResult } from '../../query/sql/exec/execute.js';
import type { TimeSlice } from '../../shared/time-slice.js';
import { type DataType, NANOS_PER_UNIT, type TimeUnit, timeUnitOf } from '../../shared/types.js';
import type { BodyChunks } from '../http/context.js';
import { ChunkedBody } from './chunked-body.js';
import { jsonValue } from './value-text.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** A timestamp count of `from` units as a count of `to` units. */
export function convertTimestamp(value: bigint, from: TimeUnit, to: TimeUnit): bigint {
  const fromNanos = NANOS_PER_UNIT[from];
  const toNanos = NANOS_PER_UNIT[to];
  if (fromNanos >= toNanos) {
    const scaled = value * (fromNanos / toNanos);
    return scaled < I64_MIN || scaled > I64_MAX ? value : scaled;
  }
  const divisor = toNanos / fromNanos;
  // BigInt division truncates toward zero; timestamps before 1970 must round down instead.
  const quotient = value / divisor;
  return value < 0n && quotient * divisor !== value ? quotient - 1n : quotient;
}

async function seriesJson(
  result: Extract<StatementResult, { kind: 'records' }>,
  epoch: TimeUnit | null,
  body: ChunkedBody,
): Promise<void> {
  if (result.rows.length === 0) {
    body.write('{"name":"","columns":[],"values":[]}');
    return;
  }
  const types = result.columns.map((c) => c.type);
  const units = types.map((t) => (epoch === null ? null : timeUnitOf(t)));
  body.write(`{"name":"","columns":${JSON.stringify(result.columns.map((c) => c.name))},"values":[`);
  for (let r = 0; r < result.rows.length; r++) {
    const cells = (result.rows[r] as unknown[]).map((value, c) => {
      const unit = units[c];
      if (unit && epoch && typeof value === 'bigint') return convertTimestamp(value, unit, epoch).toString();
      return jsonValue(value, types[c] as DataType);
    });
    body.write(`${r === 0 ? '' : ','}[${cells.join(',')}]`);
    const turn = body.rowDone(r);
    if (turn) await turn;
  }
  body.write(']}');
}

/**
 * The whole response body; `epoch` is null when the request gave none (values stay in column
 * units). `slice` lets a long result be written in turns of the loop.
 */
export async function influxdbV1Body(
  results: StatementResult[],
  epoch: TimeUnit | null,
  executionTimeMs: number,
  slice: TimeSlice | null = null,
): Promise<Buffer | BodyChunks> {
  const body = new ChunkedBody(slice);
  body.write('{"results":[');
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as StatementResult;
    body.write(`${i === 0 ? '' : ','}{"statement_id":${i},"series":[`);
    if (r.kind === 'records') await seriesJson(r, epoch, body);
    body.write(']}');
  }
  body.write(`],"execution_time_ms":${executionTimeMs}}`);
  return body.finish();
}
