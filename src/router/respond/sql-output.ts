/**
 * Picks the output format of a /v1/sql answer (reference §4.1, §4.2) and applies the rules shared
 * by all formats: `limit` truncation (greptimedb_v1, csv*, table, json only), the refusal of
 * several results in single-result formats, and the `x-greptime-format` /
 * `x-greptime-execution-time` headers every success carries.
 *
 *   format param → parseSqlOutputFormat → sqlOutputResponse → one of greptimedb-v1 | influxdb-v1
 *                                                             | csv | table | json | null | arrow
 */
import { columnarRecords, withRows } from '../../query/result.js';
import type { StatementResult } from '../../query/sql/exec/execute.js';
import { DbError, ErrorCode, InvalidArgument } from '../../shared/errors.js';
import type { TimeSlice } from '../../shared/time-slice.js';
import type { TimeUnit } from '../../shared/types.js';
import type { HttpResponse } from '../http/context.js';
import type { ArrowCompression } from './arrow-compression.js';
import { csvBody } from './csv.js';
import { greptimedbV1Body } from './greptimedb-v1.js';
import { influxdbV1Body } from './influxdb-v1.js';
import { jsonBody } from './json.js';
import { nullBody } from './null.js';
import { tableBody } from './table.js';

/** Every output format of /v1/sql. */
export type SqlOutputFormat =
  | 'greptimedb_v1'
  | 'influxdb_v1'
  | 'csv'
  | 'csvWithNames'
  | 'csvWithNamesAndTypes'
  | 'table'
  | 'json'
  | 'null'
  | 'arrow';

const FORMATS_BY_LOWER_NAME: ReadonlyMap<string, SqlOutputFormat> = new Map(
  (
    [
      'greptimedb_v1',
      'influxdb_v1',
      'csv',
      'csvWithNames',
      'csvWithNamesAndTypes',
      'table',
      'json',
      'null',
      'arrow',
    ] as const
  ).map((f) => [f.toLowerCase(), f]),
);

/** The `format` parameter, case-insensitive; absent or unknown means `greptimedb_v1`. */
export function parseSqlOutputFormat(text: string | null | undefined): SqlOutputFormat {
  return FORMATS_BY_LOWER_NAME.get((text ?? '').toLowerCase()) ?? 'greptimedb_v1';
}

/**
 * The `epoch` parameter: `ns`, `u` or `µ`, `ms`, `s`, case-insensitive. Absent means no conversion
 * (null); any other value means milliseconds, as in GreptimeDB.
 */
export function parseEpoch(text: string | null | undefined): TimeUnit | null {
  if (text === null || text === undefined) return null;
  switch (text.toLowerCase()) {
    case 'ns':
      return 'ns';
    case 'u':
    case 'µ':
      return 'us';
    case 's':
      return 's';
    default:
      return 'ms';
  }
}

/** Everything besides the results that shapes the answer. */
export interface SqlOutputOptions {
  format: SqlOutputFormat;
  /** influxdb_v1 only. */
  epoch: TimeUnit | null;
  /** From the URL only; ignored by influxdb_v1, arrow and null. */
  limit: number | undefined;
  /** arrow only. */
  compression: ArrowCompression;
  executionTimeMs: number;
}

/** The value of `x-greptime-format`: the three csv variants all say `csv`. */
function formatHeader(format: SqlOutputFormat): string {
  return format.startsWith('csv') ? 'csv' : format;
}

/** Each records result cut to `limit` rows, as GreptimeDB's `process_with_limit` does. */
function applyLimit(results: StatementResult[], limit: number | undefined): StatementResult[] {
  if (limit === undefined) return results;
  return results.map((r) => {
    if (r.kind !== 'records') return r;
    if (r.table !== undefined) {
      // Columns are only read up to rowCount: cutting needs no copy (nor building rows).
      const rowCount = Math.min(limit, r.table.rowCount);
      return columnarRecords(r.columns, { rowCount, columns: r.table.columns });
    }
    return r.rows.length > limit ? { ...r, rows: r.rows.slice(0, limit) } : r;
  });
}

/** The single result of a single-result format; refuses several. */
function single(results: StatementResult[], format: SqlOutputFormat): StatementResult | undefined {
  if (results.length > 1) {
    throw new InvalidArgument(`cannot output multi-statements result in ${formatHeader(format)} format`);
  }
  return results[0];
}

/**
 * The whole HTTP answer for successfully executed statements. `slice` lets the text formats
 * build and encode a long result's rows in turns of the router's event loop (arrow is still built
 * in one go, from typed columns where the query kept them).
 */
export async function sqlOutputResponse(
  given: StatementResult[],
  options: SqlOutputOptions,
  slice: TimeSlice | null = null,
): Promise<HttpResponse> {
  const { format, executionTimeMs } = options;
  // Arrow, greptimedb_v1 and csv read a query's columns as they are; the other formats write
  // rows, built here in slices.
  const columnar = format === 'arrow' || format === 'greptimedb_v1' || format.startsWith('csv');
  const results: StatementResult[] = [];
  for (const r of given) results.push(columnar ? r : await withRows(r, slice));
  const respond = (contentType: string, body: HttpResponse['body']): HttpResponse => ({
    status: 200,
    headers: {
      'content-type': contentType,
      'x-greptime-format': formatHeader(format),
      'x-greptime-execution-time': String(executionTimeMs),
    },
    body,
  });
  switch (format) {
    case 'greptimedb_v1':
      return respond(
        'application/json',
        await greptimedbV1Body(applyLimit(results, options.limit), executionTimeMs, undefined, slice),
      );
    case 'influxdb_v1':
      return respond('application/json', await influxdbV1Body(results, options.epoch, executionTimeMs, slice));
    case 'csv':
    case 'csvWithNames':
    case 'csvWithNamesAndTypes': {
      const result = single(applyLimit(results, options.limit), format);
      const headers = { names: format !== 'csv', types: format === 'csvWithNamesAndTypes' };
      return respond('text/csv; charset=utf-8', await csvBody(result, headers, slice));
    }
    case 'table':
      return respond(
        'text/plain; charset=utf-8',
        await tableBody(single(applyLimit(results, options.limit), format), slice),
      );
    case 'json':
      return respond(
        'application/json',
        await jsonBody(single(applyLimit(results, options.limit), format), executionTimeMs, slice),
      );
    case 'null': {
      const result = single(results, format);
      // GreptimeDB has no null-format answer for an empty statement list.
      if (result === undefined) throw new DbError(ErrorCode.Unexpected, 'unexpected output type');
      return respond('text/plain; charset=utf-8', nullBody(result, executionTimeMs));
    }
    case 'arrow': {
      // apache-arrow loads on the first arrow answer (arrow-compression.ts says why).
      const { arrowBody } = await import('./arrow.js');
      return respond('application/arrow', arrowBody(single(results, format), options.compression));
    }
  }
}
