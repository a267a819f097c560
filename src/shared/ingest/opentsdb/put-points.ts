/**
 * The body of an OpenTSDB `/api/put`: one data point object or an array of them,
 *
 *   {"metric": "sys.cpu.nice", "timestamp": 1346846400, "value": 18, "tags": {"host": "web01"}}
 *
 * Each point is checked on its own, so the route can store the good ones and report the bad ones
 * (`?details`). The checks and their messages follow OpenTSDB's put RPC:
 *
 * - metric, tag names and tag values: non-empty, only letters, digits and `-_./`;
 * - timestamp: a positive integer (number or digit string); up to 4294967295 it is seconds, above
 *   it milliseconds (OpenTSDB's rule: a value that does not fit 32 bits is milliseconds), at most
 *   13 digits;
 * - value: a number or a numeric string, finite;
 * - tags: an object (may be empty, as GreptimeDB allows); no tag may be named like the value or
 *   time column.
 */
import { InvalidArgument } from '../../errors.js';

export const TIME_COLUMN = 'greptime_timestamp';
export const VALUE_COLUMN = 'greptime_value';

/** Largest seconds timestamp; larger ones are milliseconds. */
const SECONDS_MAX = 0xffffffff;
/** Largest milliseconds timestamp OpenTSDB accepts (13 digits, year 2286). */
const MILLISECONDS_MAX = 9_999_999_999_999;
const NUMBER_TEXT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const INTEGER_TEXT = /^[0-9]+$/;
const ALLOWED_CHAR = /^[\p{L}0-9\-_./]$/u;
const ALLOWED_TEXT = /^[\p{L}0-9\-_./]*$/u;

/** A point that passed every check. */
export interface PutPoint {
  /** Position in the request (0-based). */
  index: number;
  /** The point as sent, echoed back in `?details` answers. */
  datapoint: unknown;
  metric: string;
  timestampMs: number;
  value: number;
  /** Tag name/value pairs, names unique. */
  tags: Array<[string, string]>;
}

/** A point that failed a check, with OpenTSDB's kind of message. */
export interface PointError {
  index: number;
  datapoint: unknown;
  error: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The data points of a body. Throws `InvalidArgument` when it is not JSON or not points. */
export function parsePutBody(body: Buffer): unknown[] {
  let payload: unknown;
  try {
    payload = JSON.parse(utf8.decode(body));
  } catch (err) {
    const reason = err instanceof SyntaxError ? err.message : 'the body is not valid UTF-8';
    throw new InvalidArgument(`Invalid OpenTSDB Json request: ${reason}`);
  }
  if (Array.isArray(payload)) return payload;
  if (typeof payload === 'object' && payload !== null) return [payload];
  throw new InvalidArgument('Invalid OpenTSDB Json request: expected a data point object or an array of them');
}

/** The first character OpenTSDB would refuse in a metric or tag string, or null. */
function illegalCharacter(text: string): string | null {
  if (ALLOWED_TEXT.test(text)) return null;
  for (const c of text) if (!ALLOWED_CHAR.test(c)) return c;
  return null;
}

/** Checks a metric or tag string; returns the error message or null. */
function checkName(kind: string, text: string): string | null {
  if (text === '') return `Invalid ${kind}: empty string`;
  const bad = illegalCharacter(text);
  return bad === null ? null : `Invalid ${kind} (${JSON.stringify(text)}): illegal character: ${JSON.stringify(bad)}`;
}

/** A point's timestamp in ms, or the reason it is refused. */
export function timestampMsOf(raw: unknown): number | string {
  if (raw === undefined || raw === null) return 'Missing timestamp';
  let seconds: number;
  if (typeof raw === 'number') seconds = raw;
  else if (typeof raw === 'string' && INTEGER_TEXT.test(raw.trim())) seconds = Number(raw.trim());
  else return `Invalid timestamp: ${JSON.stringify(raw)}`;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) return `Invalid timestamp: ${JSON.stringify(raw)}`;
  if (seconds <= SECONDS_MAX) return seconds * 1000;
  if (seconds > MILLISECONDS_MAX) return `Timestamp is too large: ${raw} (at most 13 digits of milliseconds)`;
  return seconds;
}

/** A point's value, or the reason it is refused. */
export function numericValueOf(raw: unknown): number | string {
  if (raw === undefined || raw === null || raw === '') return 'Empty value';
  let value: number;
  if (typeof raw === 'number') value = raw;
  else if (typeof raw === 'string' && NUMBER_TEXT.test(raw.trim())) value = Number(raw.trim());
  else return `Unable to parse value to a number: ${JSON.stringify(raw)}`;
  if (!Number.isFinite(value)) return `Value is NaN or Infinite: ${JSON.stringify(raw)}`;
  return value;
}

function tagsOf(raw: unknown): Array<[string, string]> | string {
  if (raw === undefined || raw === null) return 'Missing tags';
  if (typeof raw !== 'object' || Array.isArray(raw)) return 'Invalid tags: expected an object of strings';
  const tags: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const nameError = checkName('tag name', name);
    if (nameError) return nameError;
    if (name === VALUE_COLUMN || name === TIME_COLUMN) return `Invalid tag name (${JSON.stringify(name)}): reserved`;
    if (typeof value !== 'string') return `Invalid tag value for ${JSON.stringify(name)}: expected a string`;
    const valueError = checkName('tag value', value);
    if (valueError) return valueError;
    tags.push([name, value]);
  }
  return tags;
}

/** Checks one data point of the request. */
export function checkPoint(datapoint: unknown, index: number): PutPoint | PointError {
  const fail = (error: string): PointError => ({ index, datapoint, error });
  if (typeof datapoint !== 'object' || datapoint === null || Array.isArray(datapoint)) {
    return fail('Invalid data point: expected a JSON object');
  }
  const p = datapoint as Record<string, unknown>;
  if (typeof p.metric !== 'string' || p.metric === '') return fail('Metric name was empty');
  const metricError = checkName('metric name', p.metric);
  if (metricError) return fail(metricError);
  const timestampMs = timestampMsOf(p.timestamp);
  if (typeof timestampMs === 'string') return fail(timestampMs);
  const value = numericValueOf(p.value);
  if (typeof value === 'string') return fail(value);
  const tags = tagsOf(p.tags);
  if (typeof tags === 'string') return fail(tags);
  return { index, datapoint, metric: p.metric, timestampMs, value, tags };
}

/** Whether a check result is an error. */
export function isPointError(result: PutPoint | PointError): result is PointError {
  return 'error' in result;
}

/** The point as messages name it: its position and metric. */
export function describePoint(error: PointError): string {
  const metric = (error.datapoint as { metric?: unknown } | null)?.metric;
  return typeof metric === 'string' && metric !== ''
    ? `data point ${error.index} (metric ${JSON.stringify(metric)})`
    : `data point ${error.index}`;
}
