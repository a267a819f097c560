/**
 * HEC's `time`: epoch seconds as a JSON number or a numeric string, fractions allowed
 * (`1700000000.123`, which Splunk's own loggers send as a string). Values of 1e12 and more are
 * taken as milliseconds (what GreptimeDB does; no real seconds value is that large). The decimal
 * text is scaled exactly to nanoseconds (digits past the ninth are dropped), never through a float
 * multiplication, so `1426279439.123` is exactly ...439_123_000_000 ns.
 */

const DECIMAL = /^\+?([0-9]+)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;
const MILLISECONDS_FROM = 10n ** 12n;
const INT64_MAX = 2n ** 63n - 1n;
/** Beyond this exponent the value cannot fit int64 nanoseconds anyway. */
const EXPONENT_ABS_MAX = 40;

/** `digits` × 10^`shift` truncated toward zero, for non-negative decimal digit strings. */
function scaled(integer: string, fraction: string, shift: number): bigint {
  const digits = integer + fraction;
  const point = integer.length + shift;
  if (point <= 0) return 0n;
  if (point >= digits.length) return BigInt(digits) * 10n ** BigInt(point - digits.length);
  return BigInt(digits.slice(0, point));
}

/**
 * Nanoseconds since the epoch for a `time` value, or null when it is not a non-negative number
 * (or numeric string) that fits int64 nanoseconds.
 */
export function hecTimeToNs(value: unknown): bigint | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    // The shortest round-trip text of the double: the digits the client wrote in almost every case.
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return null;
  }
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const integer = m[1] as string;
  const fraction = m[2] ?? '';
  const exponent = m[3] === undefined ? 0 : Number(m[3]);
  if (Math.abs(exponent) > EXPONENT_ABS_MAX) return null;
  const wholeSeconds = scaled(integer, fraction, exponent);
  const ns =
    wholeSeconds >= MILLISECONDS_FROM
      ? scaled(integer, fraction, exponent + 6)
      : scaled(integer, fraction, exponent + 9);
  return ns > INT64_MAX ? null : ns;
}
