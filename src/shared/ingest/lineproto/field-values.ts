/** Field values of a line: integers, floats and booleans, parsed from the request bytes in place. */
import { fail } from './line-error.js';

// Byte codes as literals, not imports: see bytes.ts.
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const UPPER_E = 0x45;
const LOWER_E = 0x65;

/** 10^k as exact doubles, for the fast decimal path (exact up to 10^22). */
export const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

export const I64_MIN = -(2n ** 63n);
export const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

export function valueText(buf: Buffer, start: number, end: number): string {
  return buf.toString('utf8', start, Math.min(end, start + 64));
}

/** `-?\d+` (signed) or `\d+` (unsigned) in [start, end), range-checked to i64 / u64. */
export function parseInteger(buf: Buffer, start: number, end: number, unsigned: boolean): bigint {
  let pos = start;
  const negative = buf[pos] === MINUS;
  if (negative) {
    if (unsigned) fail(`negative unsigned integer value '${valueText(buf, start, end + 1)}'`);
    pos++;
  }
  const digitsStart = pos;
  let value = 0;
  while (pos < end) {
    const d = (buf[pos] as number) - DIGIT_0;
    if (d < 0 || d > 9) {
      fail(`Unable to parse ${unsigned ? 'unsigned ' : ''}integer value '${valueText(buf, start, end + 1)}'`);
    }
    value = value * 10 + d;
    pos++;
  }
  const digits = end - digitsStart;
  if (digits === 0)
    fail(`Unable to parse ${unsigned ? 'unsigned ' : ''}integer value '${valueText(buf, start, end + 1)}'`);
  if (digits <= 15) return BigInt(negative ? -value : value);
  const big = BigInt(buf.toString('latin1', start, end));
  if (unsigned ? big > U64_MAX : big < I64_MIN || big > I64_MAX) {
    fail(`${unsigned ? 'unsigned integer' : 'integer'} value '${valueText(buf, start, end + 1)}' out of range`);
  }
  return big;
}

/**
 * `-?\d+(\.\d+)?([eE][+-]?\d+)?` in [start, end). Up to 15 significant digits without exponent
 * take the exact fast path (integer mantissa ÷ exact power of ten: one correctly rounded
 * operation); anything else goes through `Number()`, which accepts exactly this shape too.
 */
export function parseFloatValue(buf: Buffer, start: number, end: number): number {
  let pos = start;
  const negative = buf[pos] === MINUS;
  if (negative) pos++;
  let mantissa = 0;
  const intStart = pos;
  while (pos < end) {
    const d = (buf[pos] as number) - DIGIT_0;
    if (d < 0 || d > 9) break;
    mantissa = mantissa * 10 + d;
    pos++;
  }
  const intDigits = pos - intStart;
  if (intDigits === 0) invalidNumber(buf, start, end);
  let fracDigits = 0;
  if (pos < end && buf[pos] === DOT) {
    pos++;
    const fracStart = pos;
    while (pos < end) {
      const d = (buf[pos] as number) - DIGIT_0;
      if (d < 0 || d > 9) break;
      mantissa = mantissa * 10 + d;
      pos++;
    }
    fracDigits = pos - fracStart;
    if (fracDigits === 0) invalidNumber(buf, start, end);
  }
  let exponent = false;
  if (pos < end && (buf[pos] === LOWER_E || buf[pos] === UPPER_E)) {
    exponent = true;
    pos++;
    if (pos < end && (buf[pos] === PLUS || buf[pos] === MINUS)) pos++;
    const expStart = pos;
    while (pos < end && (buf[pos] as number) >= DIGIT_0 && (buf[pos] as number) <= DIGIT_9) pos++;
    if (pos === expStart) invalidNumber(buf, start, end);
  }
  if (pos !== end) invalidNumber(buf, start, end);
  if (!exponent && intDigits + fracDigits <= 15) {
    const v = fracDigits === 0 ? mantissa : mantissa / (POW10[fracDigits] as number);
    return negative ? -v : v;
  }
  const v = Number(buf.toString('latin1', start, end));
  if (!Number.isFinite(v)) fail(`float value '${valueText(buf, start, end)}' out of range`);
  return v;
}

function invalidNumber(buf: Buffer, start: number, end: number): never {
  fail(`Unable to parse floating-point value '${valueText(buf, start, end)}'`);
}

const TRUE_WORDS = ['t', 'T', 'true', 'True', 'TRUE'];
const FALSE_WORDS = ['f', 'F', 'false', 'False', 'FALSE'];

export function parseBoolean(buf: Buffer, start: number, end: number): boolean | null {
  const length = end - start;
  if (length > 5) return null;
  if (matchesAny(buf, start, length, TRUE_WORDS)) return true;
  if (matchesAny(buf, start, length, FALSE_WORDS)) return false;
  return null;
}

function matchesAny(buf: Buffer, start: number, length: number, words: string[]): boolean {
  for (const w of words) {
    if (w.length !== length) continue;
    let k = 0;
    while (k < length && w.charCodeAt(k) === buf[start + k]) k++;
    if (k === length) return true;
  }
  return false;
}
