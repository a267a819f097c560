/**
 * The scanner's byte-class tables, and its byte copy.
 *
 * Each module defines the byte codes it dispatches on itself, as literal constants: an imported
 * binding is read through its module cell on every use: with the codes (and the field scratch)
 * imported, `bench/ingest/lineproto-parse.bench.ts` parsed 5-10% fewer lines a second.
 */

const NEWLINE = 0x0a;
const SPACE = 0x20;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const BACKSLASH = 0x5c;

/**
 * Byte classes for name scanning, one table per position so the loop does a single lookup per
 * byte. Keys (tag and field keys) also stop at `=`; measurements and tag values do not. Classes:
 * 0 plain, 1 stop, 2 escape (the scanning loops define the first two as literals of their own).
 */
const BYTE_STOP = 1;
const BYTE_ESCAPE = 2;
export const VALUE_BYTE_CLASS = byteClasses([COMMA, SPACE, NEWLINE]);
export const KEY_BYTE_CLASS = byteClasses([COMMA, SPACE, NEWLINE, EQUALS]);

/** Series scanning stops at the first unescaped space (or a newline). */
export const SERIES_BYTE_CLASS = byteClasses([SPACE, NEWLINE]);

function byteClasses(stops: number[]): Uint8Array {
  const classes = new Uint8Array(256);
  for (const b of stops) classes[b] = BYTE_STOP;
  classes[BACKSLASH] = BYTE_ESCAPE;
  return classes;
}

/**
 * Copies source[from, to) to target[at...]. A plain loop: the names copied here are short, and
 * Buffer#copy's per-call overhead dominates at these sizes.
 */
export function copyBytes(source: Uint8Array, from: number, to: number, target: Uint8Array, at: number): void {
  for (let i = from; i < to; i++) target[at++] = source[i] as number;
}
