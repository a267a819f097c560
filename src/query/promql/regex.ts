/**
 * Go RE2 regular expressions, as PromQL matchers and label_replace use them, translated to
 * JavaScript RegExp source. RE2 and JS agree on most syntax; the translation covers where they
 * differ: inline flags scoped to groups (`(?i)`, `(?i:...)`, `(?s)`, `(?m)`), `\A`/`\z`, `\Q..\E`,
 * `\pL` without braces, POSIX classes (`[[:alpha:]]`), `(?P<name>...)`, literal `{`/`}` that are
 * not repetitions, and escapes of arbitrary punctuation (an error in JS's `u` mode). Scoped
 * case-insensitivity is expanded into character classes because JS flags are global.
 *
 * Prometheus anchors matcher regexes as `^(?s:<re>)$`; `compileAnchoredRegex` does the same.
 */

/** A regex RE2 would reject; the message follows Go's `error parsing regexp: ...` wording. */
export class GoRegexError extends Error {}

interface Flags {
  caseInsensitive: boolean;
  dotAll: boolean;
  multiLine: boolean;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const PERL_CLASSES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
const JS_SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

class Translator {
  private pos = 0;
  private groupDepth = 0;

  constructor(private readonly source: string) {}

  translate(flags: Flags): string {
    const out = this.alternation({ ...flags });
    if (this.pos < this.source.length) throw this.error(`unexpected ): \`${this.source}\``);
    return out;
  }

  private error(message: string): GoRegexError {
    return new GoRegexError(`error parsing regexp: ${message}`);
  }

  private peek(offset = 0): string | undefined {
    return this.source[this.pos + offset];
  }

  /** A sequence of branches up to an unmatched `)` or the end; flags may change mid-branch. */
  private alternation(flags: Flags): string {
    let out = '';
    let lastWasAtom = false;
    let lastWasQuantifier = false;
    while (this.pos < this.source.length) {
      const c = this.source[this.pos] as string;
      if (c === ')') {
        if (this.groupDepth === 0) throw this.error(`unexpected ): \`${this.source}\``);
        break;
      }
      if (c === '|') {
        out += '|';
        this.pos++;
        lastWasAtom = false;
        lastWasQuantifier = false;
        continue;
      }
      const quantifier = this.quantifier();
      if (quantifier !== null) {
        if (!lastWasAtom) {
          if (lastWasQuantifier) throw this.error(`invalid nested repetition operator: \`${quantifier}\``);
          throw this.error(`missing argument to repetition operator: \`${quantifier}\``);
        }
        out += quantifier;
        lastWasAtom = false;
        lastWasQuantifier = true;
        continue;
      }
      const atom = this.atom(flags);
      lastWasQuantifier = false;
      if (atom === null) {
        lastWasAtom = false;
        continue;
      }
      out += atom.text;
      lastWasAtom = atom.quantifiable;
    }
    return out;
  }

  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` with an optional lazy `?`; null when not one. */
  private quantifier(): string | null {
    const c = this.peek();
    let text: string | null = null;
    if (c === '*' || c === '+' || c === '?') {
      text = c;
      this.pos++;
    } else if (c === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.pos));
      if (!match) return null;
      const min = Number(match[1]);
      const max = match[3] === undefined || match[3] === '' ? min : Number(match[3]);
      if (min > 1000 || max > 1000 || (match[3] !== undefined && match[3] !== '' && max < min)) {
        throw this.error(`invalid repeat count: \`${match[0]}\``);
      }
      text = match[0];
      this.pos += match[0].length;
    }
    if (text !== null && this.peek() === '?') {
      text += '?';
      this.pos++;
    }
    return text;
  }

  private atom(flags: Flags): { text: string; quantifiable: boolean } | null {
    const c = this.source[this.pos] as string;
    switch (c) {
      case '(':
        return this.group(flags);
      case '[':
        return { text: this.charClass(flags), quantifiable: true };
      case '\\':
        return this.escape(flags);
      case '.':
        this.pos++;
        return { text: flags.dotAll ? '[\\s\\S]' : '[^\\n]', quantifiable: true };
      case '^':
        this.pos++;
        return { text: flags.multiLine ? '(?<![^\\n])' : '(?<![\\s\\S])', quantifiable: false };
      case '$':
        this.pos++;
        return { text: flags.multiLine ? '(?![^\\n])' : '(?![\\s\\S])', quantifiable: false };
      default: {
        const char = String.fromCodePoint(this.source.codePointAt(this.pos) as number);
        this.pos += char.length;
        return { text: literal(char, flags.caseInsensitive), quantifiable: true };
      }
    }
  }

  private group(flags: Flags): { text: string; quantifiable: boolean } | null {
    this.pos++;
    let prefix = '(';
    let inner = flags;
    if (this.peek() === '?') {
      const rest = this.source.slice(this.pos + 1);
      const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      const flagGroup = /^([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
      if (named) {
        prefix = `(?<${named[1]}>`;
        this.pos += 1 + named[0].length;
      } else if (flagGroup && (flagGroup[1] !== '' || flagGroup[2] !== undefined)) {
        const next = applyFlags(flags, flagGroup[1] ?? '', flagGroup[2] ?? '', () =>
          this.error(`invalid or unsupported Perl syntax: \`(?${flagGroup[0]}\``),
        );
        this.pos += 1 + flagGroup[0].length;
        if (flagGroup[3] === ')') {
          // `(?i)` changes the flags of the enclosing group from here on.
          Object.assign(flags, next);
          return null;
        }
        prefix = '(?:';
        inner = next;
      } else if (rest.startsWith(':')) {
        prefix = '(?:';
        this.pos += 2;
      } else {
        throw this.error(`invalid or unsupported Perl syntax: \`(?${rest.slice(0, 1)}\``);
      }
    }
    this.groupDepth++;
    const body = this.alternation({ ...inner });
    this.groupDepth--;
    if (this.peek() !== ')') throw this.error(`missing closing ): \`${this.source}\``);
    this.pos++;
    return { text: `${prefix}${body})`, quantifiable: true };
  }

  private escape(flags: Flags): { text: string; quantifiable: boolean } {
    const e = this.peek(1);
    if (e === undefined) throw this.error('trailing backslash at end of expression: ``');
    this.pos += 2;
    if (PERL_CLASSES.has(e)) return { text: `\\${e}`, quantifiable: true };
    switch (e) {
      case 'b':
      case 'B':
        return { text: `\\${e}`, quantifiable: false };
      case 'A':
        return { text: '(?<![\\s\\S])', quantifiable: false };
      case 'z':
        return { text: '(?![\\s\\S])', quantifiable: false };
      case 'Q': {
        const end = this.source.indexOf('\\E', this.pos);
        const text = end < 0 ? this.source.slice(this.pos) : this.source.slice(this.pos, end);
        this.pos = end < 0 ? this.source.length : end + 2;
        let out = '';
        for (const char of text) out += literal(char, flags.caseInsensitive);
        return { text: out === '' ? '(?:)' : `(?:${out})`, quantifiable: true };
      }
      case 'p':
      case 'P':
        return { text: this.unicodeClass(e), quantifiable: true };
    }
    const single = this.singleCharEscape(e);
    return { text: literal(single, flags.caseInsensitive), quantifiable: true };
  }

  /** After `\p` / `\P`: `\pL` or `\p{Greek}`, as JS `\p{...}`. */
  private unicodeClass(kind: string): string {
    let name: string;
    if (this.peek() === '{') {
      const end = this.source.indexOf('}', this.pos);
      if (end < 0) throw this.error(`invalid character class range: \`\\${kind}{\``);
      name = this.source.slice(this.pos + 1, end);
      this.pos = end + 1;
    } else {
      name = this.peek() ?? '';
      this.pos++;
    }
    let negate = kind === 'P';
    if (name.startsWith('^')) {
      negate = !negate;
      name = name.slice(1);
    }
    if (name === 'Any') return negate ? '[^\\s\\S]' : '[\\s\\S]';
    // RE2 names general categories and scripts alike; JS wants `Script=` for scripts.
    for (const property of [name, `Script=${name}`]) {
      try {
        new RegExp(`\\p{${property}}`, 'u');
        return `\\${negate ? 'P' : 'p'}{${property}}`;
      } catch {}
    }
    throw this.error(`invalid character class range: \`\\${kind}{${name}}\``);
  }

  /** Escapes that stand for one character: `\n`, `\x41`, `\x{263a}`, `\123`, `\.`. */
  private singleCharEscape(e: string): string {
    switch (e) {
      case 'a':
        return '\x07';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'v':
        return '\v';
      case 'x': {
        if (this.peek() === '{') {
          const end = this.source.indexOf('}', this.pos);
          const hex = end < 0 ? '' : this.source.slice(this.pos + 1, end);
          if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff) {
            throw this.error('invalid escape sequence: `\\x{`');
          }
          this.pos = end + 1;
          return String.fromCodePoint(Number.parseInt(hex, 16));
        }
        const hex = this.source.slice(this.pos, this.pos + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw this.error(`invalid escape sequence: \`\\x${hex}\``);
        this.pos += 2;
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
    }
    if (e >= '0' && e <= '7') {
      // RE2 accepts \0 and three-digit octal; \1-\9 alone would be backreferences, which it lacks.
      const match = /^[0-7]{0,2}/.exec(this.source.slice(this.pos)) as RegExpExecArray;
      if (e !== '0' && match[0].length < 2) throw this.error(`invalid escape sequence: \`\\${e}\``);
      this.pos += match[0].length;
      return String.fromCharCode(Number.parseInt(e + match[0], 8));
    }
    if (/[0-9A-Za-z]/.test(e)) throw this.error(`invalid escape sequence: \`\\${e}\``);
    return e;
  }

  /** A bracket expression, returned as a JS class with case variants added under (?i). */
  private charClass(flags: Flags): string {
    this.pos++;
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.pos++;
    }
    const parts: string[] = [];
    let first = true;
    while (true) {
      const c = this.peek();
      if (c === undefined) throw this.error(`missing closing ]: \`${this.source}\``);
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === '[' && this.peek(1) === ':') {
        const match = /^\[:(\^?)([a-z]+):\]/.exec(this.source.slice(this.pos));
        const ranges = match ? POSIX_CLASSES[match[2] as string] : undefined;
        if (match && ranges !== undefined) {
          this.pos += match[0].length;
          parts.push(match[1] === '^' ? `${negatedAsciiClass(ranges)}` : ranges);
          continue;
        }
      }
      if (c === '\\') {
        const e = this.peek(1);
        if (e !== undefined && PERL_CLASSES.has(e)) {
          this.pos += 2;
          parts.push(`\\${e}`);
          continue;
        }
        if (e === 'p' || e === 'P') {
          this.pos += 2;
          parts.push(this.unicodeClass(e));
          continue;
        }
      }
      const low = this.classChar();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.pos++;
        const high = this.classChar();
        if ((high.codePointAt(0) as number) < (low.codePointAt(0) as number)) {
          throw this.error(`invalid character class range: \`${low}-${high}\``);
        }
        parts.push(`${classEscape(low)}-${classEscape(high)}`);
        if (flags.caseInsensitive) parts.push(...caseFoldRange(low, high));
      } else {
        parts.push(classEscape(low));
        if (flags.caseInsensitive) {
          const other = swapCase(low);
          if (other !== low) parts.push(classEscape(other));
        }
      }
    }
    return `[${negate ? '^' : ''}${parts.join('')}]`;
  }

  private classChar(): string {
    const c = this.peek() as string;
    if (c === '\\') {
      const e = this.peek(1);
      if (e === undefined) throw this.error('trailing backslash at end of expression: ``');
      this.pos += 2;
      return this.singleCharEscape(e);
    }
    const char = String.fromCodePoint(this.source.codePointAt(this.pos) as number);
    this.pos += char.length;
    return char;
  }
}

function applyFlags(flags: Flags, on: string, off: string, fail: () => GoRegexError): Flags {
  const next = { ...flags };
  for (const [letters, value] of [
    [on, true],
    [off, false],
  ] as const) {
    for (const letter of letters) {
      if (letter === 'i') next.caseInsensitive = value;
      else if (letter === 's') next.dotAll = value;
      else if (letter === 'm') next.multiLine = value;
      else throw fail();
    }
  }
  return next;
}

function swapCase(char: string): string {
  const lower = char.toLowerCase();
  return lower === char ? char.toUpperCase() : lower;
}

function literal(char: string, caseInsensitive: boolean): string {
  if (caseInsensitive) {
    const other = swapCase(char);
    if (other !== char && other.length === char.length) return `[${classEscape(char)}${classEscape(other)}]`;
  }
  if (JS_SYNTAX.has(char)) return `\\${char}`;
  return escapeControl(char);
}

function classEscape(char: string): string {
  if (char === '\\' || char === ']' || char === '[' || char === '^' || char === '-') return `\\${char}`;
  return escapeControl(char);
}

function escapeControl(char: string): string {
  const code = char.codePointAt(0) as number;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return char;
}

/** The ASCII letters inside [low, high] in the other case, as extra class ranges. */
function caseFoldRange(low: string, high: string): string[] {
  const out: string[] = [];
  const lo = low.codePointAt(0) as number;
  const hi = high.codePointAt(0) as number;
  const overlap = (from: number, to: number, shift: number): void => {
    const a = Math.max(lo, from);
    const b = Math.min(hi, to);
    if (a <= b) out.push(`${String.fromCharCode(a + shift)}-${String.fromCharCode(b + shift)}`);
  };
  overlap(0x41, 0x5a, 0x20);
  overlap(0x61, 0x7a, -0x20);
  return out;
}

/** `[:^alpha:]` inside a bracket: everything but the ASCII ranges, as a nested-free class body. */
function negatedAsciiClass(ranges: string): string {
  const inRange = (code: number): boolean => new RegExp(`[${ranges}]`, 'u').test(String.fromCharCode(code));
  let out = '';
  let start = -1;
  for (let code = 0; code <= 0x80; code++) {
    const included = code < 0x80 && !inRange(code);
    if (included && start < 0) start = code;
    if (!included && start >= 0) {
      out += `\\x${start.toString(16).padStart(2, '0')}-\\x${(code - 1).toString(16).padStart(2, '0')}`;
      start = -1;
    }
  }
  return `${out}\\u0080-\\u{10FFFF}`;
}

/** The JS source for an RE2 pattern (unanchored), with `(?s)` in effect as Prometheus sets it. */
export function translateGoRegex(source: string): string {
  return new Translator(source).translate({ caseInsensitive: false, dotAll: true, multiLine: false });
}

/** `^(?s:<source>)$` as a JS RegExp; throws GoRegexError for patterns RE2 rejects. */
export function compileAnchoredRegex(source: string): RegExp {
  const body = translateGoRegex(source);
  try {
    return new RegExp(`^(?:${body})$`, 'u');
  } catch (error) {
    throw new GoRegexError(`error parsing regexp: ${(error as Error).message}`);
  }
}

/**
 * Go's `Regexp.Expand` template syntax for label_replace: `$1`, `${1}`, `$name`, `${name}`,
 * `$$`. A `$name` takes the longest run of letters, digits and `_`, so `$1x` means `${1x}`,
 * which names no group and expands to nothing, as in Go.
 */
export function expandGoTemplate(template: string, match: RegExpExecArray): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i] as string;
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    const next = template[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
      continue;
    }
    let name: string | null = null;
    let end = i + 1;
    if (next === '{') {
      const close = template.indexOf('}', i + 2);
      const inner = close < 0 ? '' : template.slice(i + 2, close);
      if (close >= 0 && /^[A-Za-z0-9_]+$/.test(inner)) {
        name = inner;
        end = close + 1;
      }
    } else {
      const run = /^[A-Za-z0-9_]+/.exec(template.slice(i + 1));
      if (run) {
        name = run[0];
        end = i + 1 + run[0].length;
      }
    }
    if (name === null) {
      // Go treats a `$` that starts no valid reference as raw text.
      out += c;
      i++;
      continue;
    }
    out += groupValue(match, name);
    i = end;
  }
  return out;
}

function groupValue(match: RegExpExecArray, name: string): string {
  if (/^[0-9]+$/.test(name)) {
    const index = Number(name);
    return index < match.length ? (match[index] ?? '') : '';
  }
  return match.groups?.[name] ?? '';
}
