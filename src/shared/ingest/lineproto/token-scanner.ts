/**
 * The tokens of a line-protocol body: names (measurement, tag and field keys, tag values), field
 * values and timestamps. Methods advance `pos`; token results come back as return values
 * (strings, numbers) so nothing is allocated per token beyond the values themselves.
 */
import { KEY_BYTE_CLASS, VALUE_BYTE_CLASS } from './bytes.js';
import { I64_MAX, I64_MIN, POW10, parseBoolean, parseFloatValue, parseInteger, valueText } from './field-values.js';
import { INTERN_LENGTH_MAX, type LineCaches } from './line-caches.js';
import { fail, tooLong } from './line-error.js';
import type { FieldKind, FieldValue } from './types.js';

// Byte codes and classes as literals, not imports: see bytes.ts.
const NEWLINE = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const EQUALS = 0x3d;
const UPPER_F = 0x46;
const UPPER_T = 0x54;
const BACKSLASH = 0x5c;
const LOWER_F = 0x66;
const LOWER_I = 0x69;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
/** Byte classes of the tables in bytes.ts. */
const BYTE_PLAIN = 0;
const BYTE_STOP = 1;

/** Which escapes a name position honours: measurements do not unescape `\=`. */
export const NAME_MEASUREMENT = 0;
export const NAME_KEY = 1;
export const NAME_TAG_VALUE = 2;

export class TokenScanner {
  protected readonly len: number;
  protected pos = 0;
  /** Physical line number of `pos`. */
  protected line = 1;
  /** Byte offset at which the current point starts (for the length limit). */
  protected pointStart = 0;
  /**
   * Kind of the value `scanFieldValue` returned last: a register instead of a returned pair, so
   * the hot loop allocates nothing for it. Read it right after the call.
   */
  protected valueKind: FieldKind = 'float';
  /** Scratch for names and strings with escapes, grown on demand. */
  private scratch: Buffer = Buffer.allocUnsafe(256);
  /** Last timestamp token, reused when the next line carries the same bytes (common in batches). */
  private lastTsStart = 0;
  private lastTsLength = -1;
  private lastTs = 0n;

  constructor(
    protected readonly buf: Buffer,
    protected readonly maxLineBytes: number,
    protected readonly caches: LineCaches,
  ) {
    this.len = buf.length;
  }

  /** True when `pos` is at the end of the line: end of body, LF, or CR LF. */
  protected atLineEnd(): boolean {
    const pos = this.pos;
    if (pos >= this.len) return true;
    const c = this.buf[pos];
    return c === NEWLINE || (c === CR && pos + 1 < this.len && this.buf[pos + 1] === NEWLINE);
  }

  protected skipSpaces(): void {
    const buf = this.buf;
    let pos = this.pos;
    while (pos < this.len && buf[pos] === SPACE) pos++;
    this.pos = pos;
  }

  /** Up to 20 bytes from `pos` for error messages. */
  protected preview(): string {
    let end = this.pos;
    while (end < this.len && end - this.pos < 20 && this.buf[end] !== NEWLINE) end++;
    return this.buf.toString('utf8', this.pos, end);
  }

  /**
   * Scans a measurement, tag key, tag value or field key, leaving `pos` on the byte that ended it
   * (`,`, ` `, `=` for keys, a newline, or the end of the body). Backslash escapes `\,` `\ ` `\\`
   * (and `\=` outside measurements) become the escaped byte; any other `\x` stays two bytes.
   */
  protected scanName(mode: number): string {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos;
    const classes = mode === NAME_KEY ? KEY_BYTE_CLASS : VALUE_BYTE_CLASS;
    let pos = start;
    let hash = 0x811c9dc5 | 0;
    let high = 0;
    let escaped = false;
    while (pos < len) {
      const c = buf[pos] as number;
      const byteClass = classes[c];
      if (byteClass !== BYTE_PLAIN) {
        if (byteClass === BYTE_STOP) break;
        // A backslash: the next byte is taken as is (unescaped later), unless there is none.
        if (pos + 1 >= len || buf[pos + 1] === NEWLINE) {
          fail('Measurements, tag keys and values, and field keys may not end with a backslash');
        }
        escaped = true;
        pos += 2;
        continue;
      }
      high |= c;
      hash = Math.imul(hash ^ c, 0x01000193);
      pos++;
    }
    this.pos = pos;
    if (escaped) return this.unescapeName(start, pos, mode);
    const length = pos - start;
    if (length === 0) return '';
    if (high >= 0x80 || length > INTERN_LENGTH_MAX) return buf.toString('utf8', start, pos);
    return this.caches.intern(buf, start, pos, hash);
  }

  /** Slow path of scanName: copies [start, end) into scratch without the escaping backslashes. */
  protected unescapeName(start: number, end: number, mode: number): string {
    const buf = this.buf;
    const out = this.scratchOf(end - start);
    let n = 0;
    for (let pos = start; pos < end; pos++) {
      const c = buf[pos] as number;
      if (c === BACKSLASH) {
        const next = buf[pos + 1] as number;
        if (next === COMMA || next === SPACE || next === BACKSLASH || (next === EQUALS && mode !== NAME_MEASUREMENT)) {
          out[n++] = next;
          pos++;
          continue;
        }
        // Unknown escape: keep the backslash and the byte after it, which is never a separator.
        out[n++] = c;
        out[n++] = next;
        pos++;
        continue;
      }
      out[n++] = c;
    }
    return out.toString('utf8', 0, n);
  }

  protected scratchOf(size: number): Buffer {
    if (this.scratch.length < size) this.scratch = Buffer.allocUnsafe(Math.max(size, this.scratch.length * 2));
    return this.scratch;
  }

  /**
   * Scans one field value at `pos` and returns it; its kind is left in `valueKind`. Leaves `pos`
   * on the byte after the value.
   */
  protected scanFieldValue(key: string): FieldValue {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos;
    if (start < len && buf[start] === QUOTE) {
      this.valueKind = 'string';
      return this.scanString();
    }
    // Fast path: a plain decimal `-?\d+(\.\d+)?` of at most 15 digits, ending at a separator,
    // is a float computed in the same pass. Everything else takes the general path below.
    let pos = start;
    const negative = pos < len && buf[pos] === MINUS;
    if (negative) pos++;
    let mantissa = 0;
    const intStart = pos;
    while (pos < len) {
      const d = (buf[pos] as number) - DIGIT_0;
      if (d < 0 || d > 9) break;
      mantissa = mantissa * 10 + d;
      pos++;
    }
    if (pos > intStart) {
      let fracDigits = 0;
      let fractionOk = true;
      if (pos < len && buf[pos] === DOT) {
        pos++;
        const fracStart = pos;
        while (pos < len) {
          const d = (buf[pos] as number) - DIGIT_0;
          if (d < 0 || d > 9) break;
          mantissa = mantissa * 10 + d;
          pos++;
        }
        fracDigits = pos - fracStart;
        fractionOk = fracDigits > 0;
      }
      const c = pos < len ? (buf[pos] as number) : NEWLINE;
      if (
        fractionOk &&
        pos - intStart - (fracDigits > 0 ? 1 : 0) <= 15 &&
        (c === COMMA || c === SPACE || c === NEWLINE || c === CR)
      ) {
        this.pos = pos;
        this.valueKind = 'float';
        const v = fracDigits === 0 ? mantissa : mantissa / (POW10[fracDigits] as number);
        return negative ? -v : v;
      }
    }
    let end = start;
    while (end < len) {
      const c = buf[end];
      if (c === COMMA || c === SPACE || c === NEWLINE || c === CR) break;
      end++;
    }
    this.pos = end;
    if (end === start) fail(`empty field value for field key '${key}'`);
    const first = buf[start] as number;
    const last = buf[end - 1] as number;
    if (last === LOWER_I) {
      this.valueKind = 'integer';
      return parseInteger(buf, start, end - 1, false);
    }
    if (last === LOWER_U) {
      this.valueKind = 'uinteger';
      return parseInteger(buf, start, end - 1, true);
    }
    if ((first >= DIGIT_0 && first <= DIGIT_9) || first === MINUS || first === DOT || first === PLUS) {
      this.valueKind = 'float';
      return parseFloatValue(buf, start, end);
    }
    if (first === LOWER_T || first === UPPER_T || first === LOWER_F || first === UPPER_F) {
      const b = parseBoolean(buf, start, end);
      if (b !== null) {
        this.valueKind = 'boolean';
        return b;
      }
      fail(
        `invalid boolean value '${valueText(this.buf, start, end)}' (accepted: t T true True TRUE f F false False FALSE)`,
      );
    }
    fail(`invalid field value '${valueText(this.buf, start, end)}': strings must be double-quoted`);
  }

  /**
   * A double-quoted string at `pos`. Only `\"` and `\\` are escapes; every other backslash is
   * literal. Newlines inside the quotes belong to the value (and advance the line count).
   */
  protected scanString(): string {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos + 1;
    let pos = start;
    let high = 0;
    let escaped = false;
    let newlines = 0;
    for (;;) {
      if (pos >= len) fail('unterminated string field value');
      const c = buf[pos] as number;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const next = buf[pos + 1];
        if (next === QUOTE || next === BACKSLASH) {
          escaped = true;
          pos += 2;
          continue;
        }
      } else if (c === NEWLINE) {
        newlines++;
      }
      high |= c;
      pos++;
    }
    this.pos = pos + 1;
    this.line += newlines;
    if (pos - this.pointStart > this.maxLineBytes) tooLong(this.maxLineBytes);
    if (escaped) {
      const out = this.scratchOf(pos - start);
      let n = 0;
      for (let i = start; i < pos; i++) {
        const c = buf[i] as number;
        if (c === BACKSLASH) {
          const next = buf[i + 1] as number;
          if (next === QUOTE || next === BACKSLASH) {
            out[n++] = next;
            i++;
            continue;
          }
        }
        out[n++] = c;
      }
      return out.toString('utf8', 0, n);
    }
    return buf.toString(high < 0x80 ? 'latin1' : 'utf8', start, pos);
  }

  /** `-?\d+` up to the next space or line end, range-checked to i64. */
  protected scanTimestamp(): bigint {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos;
    let pos = start;
    const negative = buf[pos] === MINUS;
    if (negative) pos++;
    const digitsStart = pos;
    while (pos < len) {
      const c = buf[pos] as number;
      if (c < DIGIT_0 || c > DIGIT_9) break;
      pos++;
    }
    const digits = pos - digitsStart;
    if (pos < len) {
      const c = buf[pos];
      if (c !== SPACE && c !== NEWLINE && c !== CR) {
        let end = pos;
        while (end < len && buf[end] !== SPACE && buf[end] !== NEWLINE) end++;
        fail(`Unable to parse timestamp value '${valueText(this.buf, start, end)}': a timestamp is a whole number`);
      }
    }
    if (digits === 0) fail(`Unable to parse timestamp value '${valueText(this.buf, start, pos)}'`);
    this.pos = pos;
    const length = pos - start;
    if (length === this.lastTsLength) {
      const last = this.lastTsStart;
      let k = 0;
      while (k < length && buf[last + k] === buf[start + k]) k++;
      if (k === length) return this.lastTs;
    }
    let ts: bigint;
    if (digits <= 15) {
      let v = 0;
      for (let i = digitsStart; i < pos; i++) v = v * 10 + ((buf[i] as number) - DIGIT_0);
      ts = BigInt(negative ? -v : v);
    } else {
      ts = BigInt(buf.toString('latin1', start, pos));
      if (ts < I64_MIN || ts > I64_MAX) fail(`timestamp '${valueText(this.buf, start, pos)}' out of the int64 range`);
    }
    this.lastTsStart = start;
    this.lastTsLength = length;
    this.lastTs = ts;
    return ts;
  }
}
