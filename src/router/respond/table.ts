/**
 * The `table` output of /v1/sql (reference §4.2): a box-drawing table whose cells are the JSON
 * text of each value (strings keep their quotes). GreptimeDB sizes a column by the longest UTF-8
 * byte length of its name and cells, but Rust's `format!` pads by characters, so a cell with
 * non-ASCII text gets one space of padding per extra byte. Both quirks are kept for byte-exact
 * output. DDL/DML answer `N\n`; no statement at all answers an empty body.
 *
 *   ┌─host────┬─cpu─┐
 *   │ "web-1" │ 0.5 │
 *   └─────────┴─────┘
 */
import type { StatementResult } from '../../query/sql/exec/execute.js';
import type { TimeSlice } from '../../shared/time-slice.js';
import type { DataType } from '../../shared/types.js';
import type { BodyChunks } from '../http/context.js';
import { ChunkedBody } from './chunked-body.js';
import { jsonValue } from './value-text.js';

function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function padEnd(text: string, width: number, fill: string): string {
  const missing = width - charCount(text);
  return missing > 0 ? text + fill.repeat(missing) : text;
}

/** The body for at most one statement result; `slice` lets a long one be written in turns of the loop. */
export async function tableBody(
  result: StatementResult | undefined,
  slice: TimeSlice | null = null,
): Promise<Buffer | BodyChunks> {
  const body = new ChunkedBody(slice);
  if (result === undefined) return body.finish();
  if (result.kind === 'affected') {
    body.write(`${result.rows}\n`);
    return body.finish();
  }
  const names = result.columns.map((c) => c.name);
  const types = result.columns.map((c) => c.type);
  // Two passes: the widths need every cell before the first line is written.
  const cells: string[][] = new Array(result.rows.length);
  const widths = names.map((n) => Buffer.byteLength(n, 'utf8'));
  for (let r = 0; r < result.rows.length; r++) {
    const row = (result.rows[r] as unknown[]).map((v, i) => jsonValue(v, types[i] as DataType));
    for (let i = 0; i < row.length; i++) {
      widths[i] = Math.max(widths[i] ?? 0, Buffer.byteLength(row[i] as string, 'utf8'));
    }
    cells[r] = row;
    if (slice?.tick()) await slice.next();
  }
  body.write(`┌${names.map((n, i) => `─${padEnd(n, widths[i] as number, '─')}─`).join('┬')}┐\n`);
  for (let r = 0; r < cells.length; r++) {
    body.write(`│${(cells[r] as string[]).map((c, i) => ` ${padEnd(c, widths[i] as number, ' ')} `).join('│')}│\n`);
    const turn = body.rowDone(r);
    if (turn) await turn;
  }
  body.write(`└${widths.map((w) => '─'.repeat(w + 2)).join('┴')}┘\n`);
  return body.finish();
}
