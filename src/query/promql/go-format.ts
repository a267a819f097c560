/**
 * Go text conventions PromQL inherits from Prometheus: string literal unquoting
 * (`strutil.Unquote`), float formatting (`strconv.FormatFloat` with 'f' and 'g'), and
 * Prometheus durations (`model.ParseDuration` / `model.Duration.String`).
 *
 * Go strings are bytes; ours are UTF-16. A `\xHH` escape that does not form valid UTF-8 becomes
 * the lone surrogate U+DC00+HH (Python's "surrogateescape"), so invalid label names stay
 * detectable (labels.ts) and print back as `\xHH`.
 */

import { numberText } from '../../shared/number-text.js';

/** Thrown for a malformed literal; callers turn it into a positioned parse error. */
export class GoSyntaxError extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/** Unquotes a PromQL string literal written with `"`, `'` or a backquote. */
export function unquoteGoString(text: string): string {
  if (text.length < 2) throw new GoSyntaxError('invalid syntax');
  const quote = text[0] as string;
  if (text[text.length - 1] !== quote) throw new GoSyntaxError('invalid syntax');
  const body = text.slice(1, -1);
  if (quote === '`') {
    if (body.includes('`')) throw new GoSyntaxError('invalid syntax');
    return body;
  }
  if (quote !== '"' && quote !== "'") throw new GoSyntaxError('invalid syntax');
  if (body.includes('\n')) throw new GoSyntaxError('invalid syntax');
  if (!body.includes('\\') && !body.includes(quote)) return body;

  let out = '';
  // Raw bytes from \x and octal escapes, decoded together so multi-byte UTF-8 survives.
  let pendingBytes: number[] = [];
  const flushBytes = (): void => {
    if (pendingBytes.length > 0) out += decodeBytes(pendingBytes);
    pendingBytes = [];
  };
  let i = 0;
  while (i < body.length) {
    const c = body[i] as string;
    if (c === quote) throw new GoSyntaxError('invalid syntax');
    if (c !== '\\') {
      flushBytes();
      out += c;
      i++;
      continue;
    }
    if (i + 1 >= body.length) throw new GoSyntaxError('invalid syntax');
    const e = body[i + 1] as string;
    i += 2;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      flushBytes();
      out += simple;
      continue;
    }
    if (e === "'" || e === '"') {
      if (e !== quote) throw new GoSyntaxError('invalid syntax');
      flushBytes();
      out += e;
      continue;
    }
    if (e === 'x' || e === 'u' || e === 'U') {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i, i + width);
      if (hex.length < width || !/^[0-9a-fA-F]+$/.test(hex)) throw new GoSyntaxError('invalid syntax');
      i += width;
      const value = Number.parseInt(hex, 16);
      if (e === 'x') {
        pendingBytes.push(value);
        continue;
      }
      if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) throw new GoSyntaxError('invalid syntax');
      flushBytes();
      out += String.fromCodePoint(value);
      continue;
    }
    if (e >= '0' && e <= '7') {
      const digits = e + body.slice(i, i + 2);
      if (!/^[0-7]{3}$/.test(digits)) throw new GoSyntaxError('invalid syntax');
      i += 2;
      const value = Number.parseInt(digits, 8);
      if (value > 255) throw new GoSyntaxError('invalid syntax');
      pendingBytes.push(value);
      continue;
    }
    throw new GoSyntaxError('invalid syntax');
  }
  flushBytes();
  return out;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function decodeBytes(bytes: number[]): string {
  try {
    return utf8Decoder.decode(Uint8Array.from(bytes));
  } catch {
    let out = '';
    for (const b of bytes) out += b < 0x80 ? String.fromCharCode(b) : String.fromCharCode(0xdc00 + b);
    return out;
  }
}

/**
 * `strconv.FormatFloat(v, 'f', -1, 64)`: the shortest decimal that round-trips, never in
 * exponent form; `NaN`, `+Inf`, `-Inf` for the special values.
 */
export function formatFloatF(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  const text = numberText(v);
  if (!text.includes('e')) return text;
  return expandExponent(text);
}

function expandExponent(text: string): string {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const [mantissa, exponentText] = body.split('e') as [string, string];
  const exponent = Number(exponentText);
  const [intPart, fracPart = ''] = mantissa.split('.') as [string, string?];
  const digits = intPart + fracPart;
  const point = intPart.length + exponent;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}

/**
 * Go's `%g` (shortest digits) or `%.<precision>g`: exponent form when the decimal exponent is
 * below -4 or at least the precision (6 for shortest), with two exponent digits at least
 * (`1e+06`); trailing zeros removed.
 */
export function formatFloatG(v: number, precision = -1): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const exponential = precision > 0 ? v.toExponential(precision - 1) : v.toExponential();
  const [mantissaText, exponentText] = exponential.split('e') as [string, string];
  const exponent = Number(exponentText);
  const limit = precision > 0 ? precision : 6;
  if (exponent < -4 || exponent >= limit) {
    const mantissa = mantissaText.includes('.') ? mantissaText.replace(/0+$/, '').replace(/\.$/, '') : mantissaText;
    const sign = exponent < 0 ? '-' : '+';
    const magnitude = Math.abs(exponent);
    return `${mantissa}e${sign}${magnitude < 10 ? `0${magnitude}` : magnitude}`;
  }
  if (precision <= 0) return formatFloatF(v);
  const fixed = v.toFixed(Math.max(0, precision - 1 - exponent));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/**
 * Go's `labels.FormatOpenMetricsFloat`, the text of a quantile label: shortest `%g`, with ".0"
 * added to integral values ("1.0", "2.0", but "1e+06") and "+Inf"/"-Inf"/"NaN".
 */
export function formatOpenMetricsFloat(v: number): string {
  if (v === 0) return '0.0';
  const text = formatFloatG(v);
  if (!Number.isFinite(v) || /[.e]/.test(text)) return text;
  return `${text}.0`;
}

const DURATION_UNITS_MS: [string, number][] = [
  ['y', 365 * 24 * 3600 * 1000],
  ['w', 7 * 24 * 3600 * 1000],
  ['d', 24 * 3600 * 1000],
  ['h', 3600 * 1000],
  ['m', 60 * 1000],
  ['s', 1000],
  ['ms', 1],
];

const DURATION_UNIT_ORDER = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];

/**
 * `model.ParseDuration`: `1h30m`, `90s`, `0`; units from largest to smallest, each once. Throws
 * GoSyntaxError with Prometheus' wording (`unknown unit "hs" in duration "5y1hs"`).
 */
export function parseDurationMs(text: string): number {
  if (text === '0') return 0;
  if (text === '') throw new GoSyntaxError('empty duration string');
  const invalid = (): GoSyntaxError => new GoSyntaxError(`not a valid duration string: ${JSON.stringify(text)}`);
  let rest = text;
  let total = 0;
  let lastUnit = -1;
  while (rest !== '') {
    const digits = /^\d+/.exec(rest);
    if (!digits) throw invalid();
    rest = rest.slice(digits[0].length);
    const unitText = /^\D*/.exec(rest)?.[0] ?? '';
    if (unitText === '') throw invalid();
    rest = rest.slice(unitText.length);
    const unit = DURATION_UNIT_ORDER.indexOf(unitText);
    if (unit < 0)
      throw new GoSyntaxError(`unknown unit ${JSON.stringify(unitText)} in duration ${JSON.stringify(text)}`);
    if (unit <= lastUnit) throw invalid();
    lastUnit = unit;
    total += Number(digits[0]) * (DURATION_UNITS_MS[unit] as [string, number])[1];
    if (total > 2 ** 63 / 1e6) throw new GoSyntaxError('duration out of range');
  }
  return total;
}

/** `model.Duration.String()`: largest units first; years and weeks only when exact. */
export function formatDurationMs(totalMs: number): string {
  let ms = Math.trunc(totalMs);
  if (ms === 0) return '0s';
  let out = '';
  for (const [unit, size] of DURATION_UNITS_MS) {
    if ((unit === 'y' || unit === 'w') && ms % size !== 0) continue;
    const count = Math.floor(ms / size);
    if (count > 0) {
      out += `${count}${unit}`;
      ms -= count * size;
    }
  }
  return out;
}

/** Go `%f` for the out-of-bounds @ message. */
export function formatGoF(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return v.toFixed(6);
}

/**
 * Go's number parsing for PromQL literals: `strconv.ParseInt(s, 0, 64)` first (so `0x1f`, `0o17`,
 * `010` octal, `0b101`, `1_000`), then `strconv.ParseFloat`. Null when neither accepts it.
 */
export function parseGoNumber(text: string): number | null {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  const digits = body.replace(/_/g, '');
  const underscoresOk = !/(^_|__|_$|\._|_\.|[eE]_|_[eE])/.test(body);
  if (underscoresOk) {
    if (/^0[xX](?:_?[0-9a-fA-F])+$/.test(body)) return sign * Number.parseInt(digits.slice(2), 16);
    if (/^0[oO](?:_?[0-7])+$/.test(body)) return sign * Number.parseInt(digits.slice(2), 8);
    if (/^0[bB](?:_?[01])+$/.test(body)) return sign * Number.parseInt(digits.slice(2), 2);
    if (/^0(?:_?[0-7])+$/.test(body)) return sign * Number.parseInt(digits.slice(1), 8);
    if (/^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(digits)) return sign * Number(digits);
  }
  const lower = body.toLowerCase();
  if (lower === 'inf' || lower === 'infinity') return sign * Number.POSITIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  return null;
}
