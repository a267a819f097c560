/**
 * Time and duration texts as Prometheus' HTTP API reads them (`parseTime` / `parseDuration` in
 * `web/api/v1/api.go`), shared by the API routes, `/v1/pql` and `TQL EVAL`:
 *
 *   time      float Unix seconds (`1700000000.5`, rounded to the ms) or RFC 3339 (`2024-01-01T00:00:00Z`)
 *   duration  float seconds (`15`, `0.5`) or a Prometheus duration (`1m30s`)
 *
 * Errors are GoSyntaxErrors with Prometheus' texts; callers add the parameter name.
 */
import { GoSyntaxError, parseDurationMs } from './go-format.js';

/** Go's `strconv.ParseFloat` syntax for decimal numbers (hex floats and `_` are not supported). */
const GO_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Go's `math.Round`: halves away from zero. */
function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

function parseRfc3339Ms(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC maps years 0-99 to 1900-1999.
  if (year < 100) ms = new Date(ms).setUTCFullYear(year);
  // Sub-millisecond digits are dropped, as Prometheus' `timestamp.FromTime` truncates.
  if (m[7]) ms += Number(m[7].slice(1, 4).padEnd(3, '0'));
  if (m[9]) {
    const offsetMinutes = Number(m[10]) * 60 + Number(m[11]);
    if (Number(m[10]) > 23 || Number(m[11]) > 59) return null;
    ms -= (m[9] === '+' ? 1 : -1) * offsetMinutes * 60_000;
  }
  return ms;
}

/**
 * Prometheus' `parseTime`: float seconds (rounded to the millisecond) or RFC 3339 with optional
 * fraction. Returns Unix ms; throws the bare detail text (callers add the parameter name).
 */
export function parseTimeMs(text: string): number {
  if (GO_FLOAT.test(text)) {
    const seconds = Number(text);
    if (Number.isFinite(seconds)) {
      const whole = Math.trunc(seconds);
      return whole * 1000 + roundHalfAway((seconds - whole) * 1000);
    }
  }
  const ms = parseRfc3339Ms(text);
  if (ms !== null && Number.isFinite(ms)) return ms;
  throw new GoSyntaxError(`cannot parse ${JSON.stringify(text)} to a valid timestamp`);
}

/**
 * Prometheus' `parseDuration`: float seconds or a duration such as `1m30s`. Returns ms (float
 * seconds may give a fraction of a millisecond, which callers round as they need).
 */
export function parseDurationParamMs(text: string): number {
  if (GO_FLOAT.test(text)) {
    const ms = Number(text) * 1000;
    // Go keeps durations as int64 nanoseconds.
    if (Math.abs(ms) * 1e6 > 2 ** 63) {
      throw new GoSyntaxError(`cannot parse ${JSON.stringify(text)} to a valid duration. It overflows int64`);
    }
    return ms;
  }
  try {
    return parseDurationMs(text);
  } catch {
    throw new GoSyntaxError(`cannot parse ${JSON.stringify(text)} to a valid duration`);
  }
}
