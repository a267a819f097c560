/**
 * Hint headers (reference ingest §0.5): `x-greptime-hints: k1=v1, k2=v2`, or, only when that
 * header is absent, one `x-greptime-hint-<key>` header per key of a fixed list. A write applies
 * them to the tables it auto-creates (`ttl`, `append_mode`, `merge_mode`, `skip_wal`, ...), and
 * `auto_create_table=false` makes a write to a missing table fail instead of creating it.
 */
import { InvalidArgument } from '../../shared/errors.js';
import type { InsertOptions } from '../../shared/insert.js';
import { checkTtlOption } from '../../shared/ttl.js';
import type { RequestContext } from './context.js';

/** Keys read from their own `x-greptime-hint-<key>` header (GreptimeDB reads no others that way). */
const SINGLE_HINT_KEYS = [
  'auto_create_table',
  'ttl',
  'append_mode',
  'merge_mode',
  'physical_table',
  'skip_wal',
  'read_preference',
] as const;

/** Hints that steer the request rather than describe the table it may create. */
const REQUEST_HINTS = new Set(['auto_create_table', 'physical_table', 'read_preference']);

/** The request's hints, keys and values trimmed; empty when it sends none. */
export function hintsOf(headers: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const all = headers.get('x-greptime-hints');
  if (all !== undefined) {
    for (const part of all.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const key = part.slice(0, eq).trim();
      if (key !== '') out.set(key, part.slice(eq + 1).trim());
    }
    return out;
  }
  for (const key of SINGLE_HINT_KEYS) {
    const value = headers.get(`x-greptime-hint-${key}`);
    if (value !== undefined) out.set(key, value.trim());
  }
  return out;
}

function booleanHint(key: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new InvalidArgument(`Invalid value for hint ${key}: ${JSON.stringify(value)}, expected true or false`);
}

/**
 * A write's insert options with the request's hints applied: table options for the tables it
 * creates (merged over `base.createOptions`), the merge mode `append_mode`/`merge_mode` ask for,
 * and `auto_create_table`. Bad values are refused (400) before anything is written.
 */
export function withHints(ctx: RequestContext, base: InsertOptions): InsertOptions {
  const hints = hintsOf(ctx.headers);
  if (hints.size === 0) return base;
  const options: InsertOptions = { ...base, createOptions: { ...(base.createOptions ?? {}) } };
  const table = options.createOptions as Record<string, string>;
  for (const [key, value] of hints) {
    if (key === 'auto_create_table') {
      if (!booleanHint(key, value)) {
        options.autoCreateTable = false;
        options.autoCreateHintDisabled = true;
      }
    } else if (key === 'append_mode') {
      if (booleanHint(key, value)) options.createMergeMode = 'append';
      else if (options.createMergeMode === 'append') options.createMergeMode = 'last_row';
    } else if (key === 'merge_mode') {
      const mode = value.toLowerCase();
      if (mode !== 'last_row' && mode !== 'last_non_null') {
        throw new InvalidArgument(`Invalid value for hint merge_mode: ${JSON.stringify(value)}`);
      }
      options.createMergeMode = mode;
    } else if (!REQUEST_HINTS.has(key)) {
      table[key] = value;
    }
  }
  checkTtlOption(table, 'table');
  return options;
}
