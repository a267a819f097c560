/**
 * Floats as Rust's `ryu` prints them, which is how GreptimeDB writes them in query results, JSON
 * values and its JSON encoders. In src/shared because stored JSON text (written by ingest) uses it
 * as well as the SQL engine and the router's output formats.
 */
import { numberText } from './number-text.js';

/**
 * A finite float as Rust's `ryu` prints it: the shortest round-trip digits, plain notation while
 * the value has at most 16 integer digits and at most 4 zeros after the point, otherwise
 * `d.ddde<exp>` with no `+`. JavaScript finds the same shortest digits; only the layout differs
 * (JS switches to exponents at 1e21 and 1e-7 and writes `e+`).
 */
export function ryuFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(value);
  // Where both write plain digits (JS from 1e-6 to 1e21), JS's own text is ryu's, less the `.0`
  // of an integer: no exponential text to take apart, the costly part of a large result's floats.
  if (abs >= 1e-5 && abs < 1e16) {
    const text = numberText(value);
    return Number.isInteger(value) ? `${text}.0` : text;
  }
  return ryuFloatByLayout(value);
}

/** Where `ryu` stops writing plain digits: 10^max and 10^min (f64 and f32 differ). */
interface PlainRange {
  max: number;
  min: number;
}

const F64_PLAIN: PlainRange = { max: 16, min: -5 };
const F32_PLAIN: PlainRange = { max: 13, min: -6 };

/** Lays out `d.ddde±x` (shortest digits) the way `ryu` does. */
function ryuLayout(exponential: string, plain: PlainRange): string {
  const at = exponential.indexOf('e');
  const digits = exponential.slice(0, at).replace('.', '');
  const kk = Number(exponential.slice(at + 1)) + 1; // 10^(kk-1) <= |value| < 10^kk
  const length = digits.length;
  const k = kk - length;
  if (k >= 0 && kk <= plain.max) return `${digits}${'0'.repeat(k)}.0`;
  if (kk > 0 && kk <= plain.max) return `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  if (kk > plain.min && kk <= 0) return `0.${'0'.repeat(-kk)}${digits}`;
  return `${digits[0]}${length > 1 ? `.${digits.slice(1)}` : ''}e${kk - 1}`;
}

/**
 * `d.ddde±x` with the fewest digits that read back as the positive finite Float32 `abs` (held as
 * the double it widens to): the digits every f32 printer starts from.
 */
export function float32Exponential(abs: number): string {
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = abs.toExponential(digits - 1);
    if (Math.fround(Number(candidate)) === Math.fround(abs)) return candidate;
  }
  return abs.toExponential();
}

/** A Float32 value (held as the double it widens to) with the shortest digits that read back as it. */
export function ryuFloat32(value: number): string {
  if (value === 0 || !Number.isFinite(value)) return ryuFloat(value);
  return (value < 0 ? '-' : '') + ryuLayout(float32Exponential(Math.abs(value)), F32_PLAIN);
}

/** A finite non-zero float laid out from its exponential text: `ryuFloat` past its shortcut (and tests of it). */
export function ryuFloatByLayout(value: number): string {
  // toExponential() with no argument yields the shortest digits that read back to `value`.
  return (value < 0 ? '-' : '') + ryuLayout(Math.abs(value).toExponential(), F64_PLAIN);
}
