/**
 * Time for VRL: parsing (`parse_timestamp`) reuses ../strftime.ts, the chrono-compatible parser
 * of the `date` processor, with IANA zones or fixed offsets; formatting (`format_timestamp`,
 * `to_string`) is here, with the chrono directives
 * `%Y %m %d %e %H %M %S %f %.f %.3f %.6f %.9f %3f %6f %9f %z %:z %Z %s %F %T %b %h %B %a %A %%`
 * and UTC or fixed offsets only. Times are nanoseconds since the epoch (bigint); offsets are
 * minutes east of UTC.
 */

import { formatWithPattern } from '../../query/sql/functions/time-convert.js';
import { compileStrftime, type LocalOffset, parseStrftime, type StrftimeFormat, timeZoneOffset } from '../strftime.js';
import { VrlRuntimeError } from './values.js';

// Formats usually are literals: keep the last few compiled rather than compiling per record.
const parseFormats = new Map<string, StrftimeFormat>();

function parseFormat(format: string): StrftimeFormat {
  let compiled = parseFormats.get(format);
  if (compiled === undefined) {
    try {
      compiled = compileStrftime(format);
    } catch (err) {
      throw new VrlRuntimeError(`invalid format ${JSON.stringify(format)}: ${(err as Error).message}`);
    }
    if (parseFormats.size >= 64) parseFormats.clear();
    parseFormats.set(format, compiled);
  }
  return compiled;
}

function zoneOf(name: string | undefined): LocalOffset | undefined {
  if (name === undefined) return undefined;
  // A fixed offset is a zone too; IANA names go through Intl.
  if (/^[+-]\d{2}:?\d{2}$/.test(name)) {
    const seconds = parseTimezone(name) * 60;
    return () => seconds;
  }
  try {
    return timeZoneOffset(name);
  } catch {
    throw new VrlRuntimeError(`unknown timezone: ${name}`);
  }
}

/** Nanoseconds since the epoch of `text` read with `format`, wall time in `tz` (default UTC). */
export function parseTime(text: string, format: string, tz: string | undefined): bigint {
  const nanos = parseStrftime(parseFormat(format), text, zoneOf(tz));
  if (nanos === undefined) {
    throw new VrlRuntimeError(`unable to parse ${JSON.stringify(text)} with format ${JSON.stringify(format)}`);
  }
  return nanos;
}

/** Compile-time check of a literal parse format and timezone. */
export function checkParseArgs(format: string | undefined, tz: string | undefined): void {
  if (format !== undefined) parseFormat(format);
  zoneOf(tz);
}

const DIRECTIVES = new Set(['Y', 'm', 'd', 'e', 'H', 'M', 'S', 'f', '.f', '.3f', '.6f', '.9f', '3f', '6f', '9f']);
for (const d of ['z', ':z', 'Z', 's', 'F', 'T', 'b', 'h', 'B', 'a', 'A', '%']) DIRECTIVES.add(d);

type Item = { lit: string } | { dir: string };

/** Splits a format into literals and directives; throws on directives outside the subset. */
export function compileFormat(format: string): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') {
      items.push({ lit: format[i] as string });
      continue;
    }
    const m = /^(\.?[369]?f|:z|.)/s.exec(format.slice(i + 1));
    const dir = m?.[0] ?? '';
    if (!DIRECTIVES.has(dir)) {
      throw new VrlRuntimeError(`unsupported strftime directive %${dir} in ${JSON.stringify(format)}`);
    }
    items.push({ dir });
    i += dir.length;
  }
  return items;
}

/** Formats nanoseconds since the epoch with `format` (checked by `compileFormat`), shifted by `offset` minutes. */
export function formatTime(nanos: bigint, format: string, offset: number): string {
  compileFormat(format);
  return formatWithPattern(nanos, format, offset * 60);
}

/** `UTC`/`Z` or a fixed offset `+08:00` / `-0530`; named zones other than UTC are not supported. */
export function parseTimezone(tz: string): number {
  if (/^(utc|z|gmt|etc\/utc)$/i.test(tz)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
  if (m === null) throw new VrlRuntimeError(`unsupported timezone: ${tz} (only UTC and fixed offsets like +08:00)`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** RFC 3339 in UTC with the shortest exact fraction, as VRL prints timestamps. */
export function rfc3339(nanos: bigint): string {
  return formatTime(nanos, '%Y-%m-%dT%H:%M:%S%.fZ', 0);
}
