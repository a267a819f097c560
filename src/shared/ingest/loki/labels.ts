/**
 * The label string of a protobuf Loki stream, `{job="api", env="prod"}`: Prometheus' series
 * selector syntax without matchers other than `=`. Promtail and Alloy write it with Go's `%q`
 * quoting, so values use Go's escapes (`\n`, `\"`, `\xHH`, `\u00e9`, octal ...); single-quoted and
 * back-quoted (raw) values are accepted as PromQL accepts them, and so are quoted names (UTF-8 label
 * names of Prometheus 3). A trailing comma is allowed, as in PromQL.
 *
 * Anything else is an error with the position, so a malformed label string rejects the request
 * (GreptimeDB ingests such a stream without labels instead).
 */

/** Why a label string could not be read. */
export class LabelSyntaxError extends Error {}

/** Label names as Prometheus' classic name rule allows them unquoted. */
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;
const SPACE = /[ \t\r\n]/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Go's single-character escapes. */
const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };

class LabelReader {
  pos = 0;

  constructor(private readonly text: string) {}

  fail(reason: string): never {
    throw new LabelSyntaxError(`${reason} at position ${this.pos + 1}`);
  }

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(): string {
    return this.text[this.pos] ?? '';
  }

  skipSpace(): void {
    while (!this.done && SPACE.test(this.peek())) this.pos++;
  }

  expect(c: string): void {
    if (this.peek() !== c) this.fail(`expected \`${c}\``);
    this.pos++;
  }

  name(): string {
    const c = this.peek();
    if (c === '"' || c === "'" || c === '`') {
      const quoted = this.quoted();
      if (quoted === '') this.fail('empty label name');
      return quoted;
    }
    if (!NAME_START.test(c)) this.fail('expected a label name');
    const start = this.pos;
    this.pos++;
    while (!this.done && NAME_PART.test(this.peek())) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** A quoted string; `"` and `'` with Go escapes, backquotes raw. */
  quoted(): string {
    const quote = this.peek();
    if (quote !== '"' && quote !== "'" && quote !== '`') this.fail('expected a quoted value');
    this.pos++;
    if (quote === '`') {
      const end = this.text.indexOf('`', this.pos);
      if (end < 0) this.fail('unterminated raw string');
      const value = this.text.slice(this.pos, end);
      this.pos = end + 1;
      return value;
    }
    // Escapes such as \xff produce single bytes, so the value is assembled as bytes and must be
    // valid UTF-8 at the end, as Go's strconv.Unquote requires of label values.
    const bytes: number[] = [];
    for (;;) {
      if (this.done) this.fail('unterminated quoted string');
      const c = this.peek();
      if (c === quote) {
        this.pos++;
        break;
      }
      if (c === '\n') this.fail('newline in quoted string');
      if (c !== '\\') {
        const code = this.text.codePointAt(this.pos) as number;
        const char = String.fromCodePoint(code);
        for (const b of Buffer.from(char, 'utf8')) bytes.push(b);
        this.pos += char.length;
        continue;
      }
      this.pos++;
      this.escape(quote, bytes);
    }
    try {
      return utf8.decode(Uint8Array.from(bytes));
    } catch {
      return this.fail('quoted string is not valid UTF-8');
    }
  }

  private escape(quote: string, bytes: number[]): void {
    const c = this.peek();
    this.pos++;
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      bytes.push(simple);
      return;
    }
    if (c === quote) {
      bytes.push(quote.charCodeAt(0));
      return;
    }
    if (c === 'x') {
      bytes.push(this.hex(2));
      return;
    }
    if (c === 'u' || c === 'U') {
      const code = this.hex(c === 'u' ? 4 : 8);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail('escape is not a valid Unicode code point');
      for (const b of Buffer.from(String.fromCodePoint(code), 'utf8')) bytes.push(b);
      return;
    }
    if (c >= '0' && c <= '7') {
      const digits = this.text.slice(this.pos - 1, this.pos + 2);
      if (!/^[0-7]{3}$/.test(digits)) this.fail('octal escape needs three digits');
      const value = Number.parseInt(digits, 8);
      if (value > 255) this.fail('octal escape above \\377');
      this.pos += 2;
      bytes.push(value);
      return;
    }
    this.pos--;
    this.fail(`unknown escape \\${c}`);
  }

  private hex(count: number): number {
    const digits = this.text.slice(this.pos, this.pos + count);
    if (digits.length !== count || !/^[0-9A-Fa-f]+$/.test(digits)) this.fail(`expected ${count} hex digits`);
    this.pos += count;
    return Number.parseInt(digits, 16);
  }
}

/**
 * Reads `{name="value", ...}` into name/value pairs in the order written. Throws
 * `LabelSyntaxError` on bad syntax and on a repeated name (Loki refuses both).
 */
export function parseLokiLabels(text: string): Array<[string, string]> {
  const r = new LabelReader(text);
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  r.skipSpace();
  r.expect('{');
  r.skipSpace();
  while (r.peek() !== '}') {
    if (r.done) r.fail('missing `}`');
    const name = r.name();
    r.skipSpace();
    r.expect('=');
    r.skipSpace();
    const value = r.quoted();
    if (seen.has(name)) r.fail(`duplicate label name ${JSON.stringify(name)}`);
    seen.add(name);
    out.push([name, value]);
    r.skipSpace();
    if (r.peek() === ',') {
      r.pos++;
      r.skipSpace();
      continue;
    }
    if (r.peek() !== '}') r.fail('expected `,` or `}`');
  }
  r.pos++;
  r.skipSpace();
  if (!r.done) r.fail('unexpected text after `}`');
  return out;
}
