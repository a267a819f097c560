/**
 * The `ttl` option of tables and databases, read as GreptimeDB reads it (`TimeToLive` in its
 * common-time crate): `forever`, `instant` or a humantime duration, case-insensitive; empty or a
 * zero duration means forever. A table without its own `ttl` takes its database's. A database may
 * not be `instant` (GreptimeDB refuses it too: a database default that stores nothing is a trap).
 */
import { InvalidArgument } from './errors.js';
import { tryDurationMs } from './size-duration.js';
import type { DatabaseSchema, DataType, TableSchema } from './types.js';

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
  if (ttl === 0 && owner === 'database')
    throw new InvalidArgument("Invalid database ttl: 'instant' is for tables only");
  return ttl;
}

/** Checks the `ttl` entry of CREATE or ALTER options, if there is one. */
export function checkTtlOption(options: Readonly<Record<string, string>>, owner: 'table' | 'database'): void {
  const text = options.ttl;
  if (text !== undefined) parseTtlMs(text, owner);
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
