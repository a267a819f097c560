/**
 * JSON values of the `Json` type. GreptimeDB keeps JSON as JSONB, so what it gives back is the
 * JSONB rendering, not the text that was written: object keys sorted (byte order), duplicate keys
 * collapsed to the last, no whitespace, integers kept exact (i64/u64), other numbers as f64 in
 * their shortest form (`1.0`, `1e100`). A `Json` SQL value here is that canonical text, so equal
 * documents compare and group equal and storage keeps a plain string.
 *
 *   text → parseJson (JsonNode tree, JSONB's error texts with a position) → jsonText (canonical)
 */
import { DbError, ErrorCode } from './errors.js';
import { ryuFloat } from './ryu.js';

/** A parsed JSON document. Object entries are sorted by key and unique. */
export type JsonNode =
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'int'; value: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'object'; entries: Array<[string, JsonNode]> };

/** A syntax error: the JSONB parser's wording and the 1-based position where reading stopped. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(`${reason}, pos ${position}`);
  }
}

const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;
const NESTING_DEPTH_MAX = 128;

class JsonReader {
  private pos = 0;

  constructor(private readonly text: string) {}

  private fail(reason: string, at = this.pos + 1): never {
    throw new JsonSyntaxError(reason, Math.min(at, this.text.length));
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos] as string)) this.pos++;
  }

  document(): JsonNode {
    const node = this.value(0);
    this.skipSpace();
    if (this.pos < this.text.length) this.fail('trailing characters');
    return node;
  }

  private value(depth: number): JsonNode {
    this.skipSpace();
    if (this.pos >= this.text.length) this.fail('EOF while parsing a value', this.text.length);
    if (depth > NESTING_DEPTH_MAX) this.fail('recursion limit exceeded');
    const c = this.text[this.pos] as string;
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return { kind: 'string', value: this.string() };
      case 't':
        return this.word('true', { kind: 'bool', value: true });
      case 'f':
        return this.word('false', { kind: 'bool', value: false });
      case 'n':
        return this.word('null', { kind: 'null' });
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.number();
        return this.fail('expected value');
    }
  }

  private word(word: string, node: JsonNode): JsonNode {
    for (let i = 0; i < word.length; i++) {
      if (this.pos >= this.text.length) this.fail('EOF while parsing a value', this.text.length);
      if (this.text[this.pos] !== word[i]) this.fail('expected ident');
      this.pos++;
    }
    return node;
  }

  private number(): JsonNode {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos));
    if (!m) this.fail('invalid number');
    const text = m[0];
    this.pos += text.length;
    if (m[1] === undefined && m[2] === undefined) {
      const n = BigInt(text);
      if (n >= I64_MIN && n <= U64_MAX) return { kind: 'int', value: n };
    }
    return { kind: 'float', value: Number(text) };
  }

  private string(): string {
    this.pos++;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('EOF while parsing a value', this.text.length);
      const c = this.text[this.pos] as string;
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === '\\') {
        out += this.escape();
        continue;
      }
      if (c < ' ') this.fail('control character (\\u0000-\\u001F) found while parsing a string');
      out += c;
      this.pos++;
    }
  }

  private escape(): string {
    const c = this.text[this.pos + 1];
    this.pos += 2;
    switch (c) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = this.text.slice(this.pos, this.pos + 4);
        if (hex.length < 4) this.fail('unexpected end of hex escape', this.text.length);
        const bad = [...hex].find((h) => !/[0-9a-fA-F]/.test(h));
        if (bad !== undefined) this.fail(`invalid hex '${(bad.codePointAt(0) as number).toString(16).toUpperCase()}'`);
        this.pos += 4;
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
      case undefined:
        return this.fail('EOF while parsing a value', this.text.length);
      default:
        return this.fail(`invalid escaped '${(c.codePointAt(0) as number).toString(16).toUpperCase()}'`, this.pos);
    }
  }

  private array(depth: number): JsonNode {
    this.pos++;
    const items: JsonNode[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.skipSpace();
      if (this.pos >= this.text.length) this.fail('EOF while parsing a value', this.text.length);
      const c = this.text[this.pos];
      this.pos++;
      if (c === ']') return { kind: 'array', items };
      if (c !== ',') this.fail('expected `,` or `]`', this.pos);
    }
  }

  private object(depth: number): JsonNode {
    this.pos++;
    const entries = new Map<string, JsonNode>();
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', entries: [] };
    }
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.text.length) this.fail('EOF while parsing a value', this.text.length);
      if (this.text[this.pos] !== '"') this.fail('key must be a string');
      const key = this.string();
      this.skipSpace();
      if (this.pos >= this.text.length) this.fail('EOF while parsing a value', this.text.length);
      if (this.text[this.pos] !== ':') this.fail('expected `:`');
      this.pos++;
      entries.set(key, this.value(depth + 1));
      this.skipSpace();
      if (this.pos >= this.text.length) this.fail('EOF while parsing a value', this.text.length);
      const c = this.text[this.pos];
      this.pos++;
      if (c === '}') return objectNode(entries);
      if (c !== ',') this.fail('expected `,` or `}`', this.pos);
    }
  }
}

function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** An object node from key/value pairs (sorted; a repeated key keeps its last value). */
export function objectNode(entries: Map<string, JsonNode>): JsonNode {
  return { kind: 'object', entries: [...entries].sort((x, y) => compareKeys(x[0], y[0])) };
}

/** Parses JSON text; throws `JsonSyntaxError`. */
export function parseJson(text: string): JsonNode {
  return new JsonReader(text).document();
}

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** A string as a JSON string literal, escaped the way JSONB prints strings. */
export function jsonString(value: string): string {
  // Other control characters must be escaped too, or the text would not parse back as JSON.
  return `"${value.replace(/["\\\u0000-\u001f\u2028\u2029]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/** The canonical text of a node. */
export function jsonText(node: JsonNode): string {
  switch (node.kind) {
    case 'null':
      return 'null';
    case 'bool':
      return node.value ? 'true' : 'false';
    case 'int':
      return node.value.toString();
    case 'float':
      return Number.isFinite(node.value) ? ryuFloat(node.value) : 'null';
    case 'string':
      return jsonString(node.value);
    case 'array':
      return `[${node.items.map(jsonText).join(',')}]`;
    case 'object':
      return `{${node.entries.map(([k, v]) => `${jsonString(k)}:${jsonText(v)}`).join(',')}}`;
  }
}

const parsedCache = new Map<string, JsonNode>();
const PARSED_CACHE_ENTRIES_MAX = 256;

/** The node of a stored (canonical, hence valid) JSON value; recent ones are cached. */
export function jsonNodeOf(text: string): JsonNode {
  let node = parsedCache.get(text);
  if (node) return node;
  node = parseJson(text);
  if (parsedCache.size >= PARSED_CACHE_ENTRIES_MAX) parsedCache.clear();
  parsedCache.set(text, node);
  return node;
}

/** Text as a `Json` value (canonical text), or GreptimeDB's error for text that is not JSON. */
export function jsonValueOfText(text: string): string {
  try {
    return jsonText(parseJson(text));
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new DbError(ErrorCode.InvalidArguments, `Invalid JSON: ${text}`);
    throw err;
  }
}
