/**
 * The `csv`, `csvWithNames` and `csvWithNamesAndTypes` outputs of /v1/sql (reference §4.2), as
 * GreptimeDB writes them with Rust's `csv` crate: records end with CRLF; a field is quoted only
 * when it holds a comma, a double quote, CR or LF, and quotes inside are doubled; a record whose
 * only field is empty is written as `""` so that it is not an empty line. Values print as their
 * JSON form (`value-text.ts`) except that strings (and decimals, which JSON holds as strings)
 * are bare and null is an empty field; lists and JSON documents are JSON text. DDL/DML answer
 * `N\n`; no statement at all answers an empty body.
 */
import { type Column, type ColumnTable, cellAt } from '../../query/columns.js';
import type { StatementResult } from '../../query/sql/exec/execute.js';
import type { TimeSlice } from '../../shared/time-slice.js';
import type { DataType } from '../../shared/types.js';
import type { BodyChunks } from '../http/context.js';
import { ChunkedBody } from './chunked-body.js';
import { jsonValue } from './value-text.js';

/** Which header rows precede the data. */
export interface CsvHeaders {
  names: boolean;
  types: boolean;
}

const NEEDS_QUOTES = /[,"\r\n]/;

function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvRecord(fields: string[]): string {
  const line = fields.map(csvField).join(',');
  return `${line === '' ? '""' : line}\r\n`;
}

/** A value as the text of its CSV field (before quoting). */
function fieldText(value: unknown, type: DataType): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' && type !== 'Json') return value;
  const text = jsonValue(value, type);
  // NaN and ±Inf are JSON null, hence empty fields like SQL NULL.
  if (text === 'null') return '';
  // A JSON string (a decimal, a JSON document that is a string) is written bare, like strings.
  return text.startsWith('"') ? (JSON.parse(text) as string) : text;
}

/** The body for at most one statement result; `slice` lets a long one be written in turns of the loop. */
export async function csvBody(
  result: StatementResult | undefined,
  headers: CsvHeaders,
  slice: TimeSlice | null = null,
): Promise<Buffer | BodyChunks> {
  const body = new ChunkedBody(slice);
  if (result === undefined) return body.finish();
  if (result.kind === 'affected') {
    body.write(`${result.rows}\n`);
    return body.finish();
  }
  // As in GreptimeDB, asking for the types row implies the names row.
  if (headers.names || headers.types) body.write(csvRecord(result.columns.map((c) => c.name)));
  if (headers.types) body.write(csvRecord(result.columns.map((c) => c.type)));
  const types = result.columns.map((c) => c.type);
  // A query's columns are read cell by cell where they are, without building rows first.
  const table = result.table;
  const rowCount = table ? table.rowCount : result.rows.length;
  const fields = new Array<string>(types.length);
  for (let r = 0; r < rowCount; r++) {
    const row = table ? null : (result.rows[r] as unknown[]);
    for (let c = 0; c < types.length; c++) {
      const value = row ? row[c] : cellAt((table as ColumnTable).columns[c] as Column, r);
      fields[c] = fieldText(value, types[c] as DataType);
    }
    body.write(csvRecord(fields));
    const turn = body.rowDone(r);
    if (turn) await turn;
  }
  return body.finish();
}
