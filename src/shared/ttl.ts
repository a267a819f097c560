/**
 * The `ttl` option of tables and databases, read as GreptimeDB reads it (`TimeToLive` in its
 * common-time crate): `forever`, `instant` or a humantime duration, case-insensitive; empty or a
 * zero duration means forever. A table without its own `ttl` takes its database's. A database may
 * not be `instant` (GreptimeDB refuses it too: a database default that stores nothing is a trap).
 */
import { DbError, ErrorCode, InvalidArgument } from './errors.js';
import { tryDurationMs } from './size-duration.js';
import type { DatabaseSchema, DataType, TableSchema } from './types.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Rows live this many milliseconds past their time index; `null` is forever, `0` is instant. */
export type TtlMs = number | null;

/** The retention a `ttl` text asks for, or undefined when it is not one. */
export function tryTtlMs(text: string): TtlMs | undefined {
  const lower = text.trim().toLowerCase();
  if (lower === '' || lower === 'forever') return null;
  if (lower === 'instant') return 0;
  const ms = tryDurationMs(lower);
  if (ms === undefined) return undefined;
  // A duration below a millisecond is not zero: round it up so it does not read as instant.
  return ms === 0 ? null : Math.max(1, Math.ceil(ms));
}

/** `tryTtlMs`, throwing the 400 a CREATE or ALTER with a bad value gets. */
export function parseTtlMs(text: string, owner: 'table' | 'database'): TtlMs {
  const ttl = tryTtlMs(text);
  if (ttl === undefined) {
    throw new InvalidArgument(
      `Invalid ttl ${JSON.stringify(text)}: expected 'forever', 'instant' or a duration such as '7d' or '1h30m'`,
    );
  }
  // GreptimeDB's own answer (its sqlness show_ttl case): an unexpected error, not a bad argument.
  if (ttl === 0 && owner === 'database') {
    throw new DbError(ErrorCode.Unexpected, `Failed to parse value ${text} into key ttl`);
  }
  return ttl;
}

/** Checks the `ttl` entry of CREATE or ALTER options, if there is one. */
export function checkTtlOption(options: Readonly<Record<string, string>>, owner: 'table' | 'database'): void {
  const text = options.ttl;
  if (text !== undefined) parseTtlMs(text, owner);
}

const SECOND_MS = 1000;
const DAY_MS = 86_400 * SECOND_MS;
/** humantime's calendar units: a year of 365.25 days, a month of 30.44 days. */
const YEAR_MS = 31_557_600 * SECOND_MS;
const MONTH_MS = 2_630_016 * SECOND_MS;

/**
 * A ttl as GreptimeDB prints it back (SHOW CREATE TABLE / DATABASE, SHOW FULL DATABASES): `forever`,
 * `instant`, or the duration in humantime's format (`1s`, `6h`, `1day`, `7days`, `1h 30m`);
 * text that is not a ttl is returned as it is.
 */
export function displayTtl(text: string): string {
  const ttl = tryTtlMs(text);
  if (ttl === undefined) return text;
  if (ttl === null) return 'forever';
  if (ttl === 0) return 'instant';
  const parts: string[] = [];
  let rest = ttl;
  const take = (unitMs: number): number => {
    const n = Math.floor(rest / unitMs);
    rest -= n * unitMs;
    return n;
  };
  const plural = (n: number, name: string) => n > 0 && parts.push(`${n}${name}${n > 1 ? 's' : ''}`);
  const item = (n: number, name: string) => n > 0 && parts.push(`${n}${name}`);
  plural(take(YEAR_MS), 'year');
  plural(take(MONTH_MS), 'month');
  plural(take(DAY_MS), 'day');
  item(take(3_600_000), 'h');
  item(take(60_000), 'm');
  item(take(SECOND_MS), 's');
  item(rest, 'ms');
  return parts.length === 0 ? '0s' : parts.join(' ');
}

/** A table's effective retention: its own `ttl`, else its database's, else forever. */
export function effectiveTtlMs(table: TableSchema, db: DatabaseSchema | undefined): TtlMs {
  const own = table.options.ttl;
  if (own !== undefined && own.trim() !== '') return tryTtlMs(own) ?? null;
  const inherited = db?.options.ttl;
  return inherited === undefined ? null : (tryTtlMs(inherited) ?? null);
}

/** Time index units per second for a timestamp type (the unit segments store times in). */
export function unitsPerSecondOf(type: DataType): number {
  switch (type) {
    case 'TimestampSecond':
      return 1;
    case 'TimestampMicrosecond':
      return 1_000_000;
    case 'TimestampNanosecond':
      return 1_000_000_000;
    default:
      return 1000;
  }
}

/**
 * The first time (in the table's time index unit) still inside the ttl at `nowMs`: rows before it
 * are expired. `instant` expires every row.
 */
export function expiryCutoff(retention: { ttlMs: number; unitsPerSecond: number }, nowMs: number): bigint {
  if (retention.ttlMs === 0) return I64_MAX;
  const edgeMs = BigInt(Math.floor(nowMs - retention.ttlMs));
  const scaled = edgeMs * BigInt(retention.unitsPerSecond);
  // Round up: a second-unit row at 10.5 s − ttl is not expired before 11 s − ttl in milliseconds.
  const cutoff = scaled >= 0n ? (scaled + 999n) / 1000n : scaled / 1000n;
  return cutoff < I64_MIN ? I64_MIN : cutoff;
}
