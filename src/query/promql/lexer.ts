/**
 * A scanner that follows Prometheus' PromQL lexer (`promql/parser/lex.go`) closely enough to
 * reproduce its error messages. The lezer grammar does the real parsing; this runs first to
 * catch lexical errors ("unclosed left parenthesis", "unterminated quoted string", ...) and,
 * when lezer rejects a query, to name the token it stopped at as Prometheus would
 * (`unexpected <op:*>`, `unexpected identifier "foo"`, `unexpected end of input`).
 */
import { isAggregateOp } from './ast.js';

/** Token kinds, named after Prometheus' item categories that decide how a token is described. */
export type TokenKind =
  | 'identifier'
  | 'metric identifier'
  | 'string'
  | 'number'
  | 'duration'
  | 'operator'
  | 'keyword'
  | 'aggregator'
  | 'punctuation'
  | 'eof';

export interface Token {
  kind: TokenKind;
  text: string;
  /** UTF-16 offset of the first character. */
  pos: number;
  /** Set while scanning inside `{...}` or `[...]` (for error context). */
  inBraces: boolean;
  inBrackets: boolean;
}

/** A lexical error at `pos` with Prometheus' message. */
export interface LexError {
  message: string;
  pos: number;
}

const WORD_OPERATORS = new Set(['and', 'or', 'unless', 'atan2']);
const KEYWORDS = new Set([
  'offset',
  'smoothed',
  'anchored',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'fill',
  'fill_left',
  'fill_right',
  'bool',
  'start',
  'end',
  'step',
  'range',
  'max_of',
  'min_of',
]);

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isAlpha = (c: string | undefined): boolean =>
  c !== undefined && (c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
const isAlphaNumeric = (c: string | undefined): boolean => isAlpha(c) || isDigit(c);

/** Go's `%q` of a single character, as lexer errors quote them. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '\\') return "'\\\\'";
  if (c === '\n') return "'\\n'";
  if (c === '\t') return "'\\t'";
  return `'${c}'`;
}

/** Scans the whole query; returns the tokens, or the first lexical error. */
export function scanPromql(input: string): { tokens: Token[]; error: LexError | null } {
  const tokens: Token[] = [];
  let pos = 0;
  let parenDepth = 0;
  let braceOpen = false;
  let bracketOpen = false;
  let gotColon = false;
  let durationState = false;
  const fail = (message: string, at: number) => ({ tokens, error: { message, pos: at } });
  const emit = (kind: TokenKind, start: number, end: number): void => {
    tokens.push({ kind, text: input.slice(start, end), pos: start, inBraces: braceOpen, inBrackets: bracketOpen });
  };

  while (true) {
    const start = pos;
    const c = input[pos];
    if (c === undefined) {
      if (braceOpen) return fail('unexpected end of input inside braces', start);
      if (bracketOpen) return fail('unexpected end of input in duration expression', start);
      if (parenDepth !== 0) return fail('unclosed left parenthesis', start);
      tokens.push({ kind: 'eof', text: '', pos, inBraces: false, inBrackets: false });
      return { tokens, error: null };
    }
    if (c === '#') {
      while (pos < input.length && input[pos] !== '\n' && input[pos] !== '\r') pos++;
      continue;
    }
    if (isSpace(c)) {
      pos++;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      pos++;
      while (true) {
        const d = input[pos];
        if (d === undefined || (d === '\n' && c !== '`')) {
          return fail(c === '`' ? 'unterminated raw string' : 'unterminated quoted string', start);
        }
        pos++;
        if (d === '\\' && c !== '`') {
          const escaped = scanEscape(input, pos, c);
          if (typeof escaped === 'string') return fail(escaped, start);
          pos = escaped;
          continue;
        }
        if (d === c) break;
      }
      emit('string', start, pos);
      continue;
    }
    if (braceOpen) {
      pos++;
      if (isAlpha(c)) {
        while (isAlphaNumeric(input[pos])) pos++;
        emit('identifier', start, pos);
      } else if (c === ',') emit('punctuation', start, pos);
      else if (c === '=') {
        if (input[pos] === '~') pos++;
        emit(input[pos - 1] === '~' ? 'operator' : 'punctuation', start, pos);
      } else if (c === '!') {
        const d = input[pos];
        if (d !== '~' && d !== '=')
          return fail(`unexpected character after '!' inside braces: ${quoteChar(d ?? '')}`, start);
        pos++;
        emit('operator', start, pos);
      } else if (c === '{') return fail(`unexpected left brace ${quoteChar(c)}`, start);
      else if (c === '}') {
        braceOpen = false;
        tokens.push({ kind: 'punctuation', text: '}', pos: start, inBraces: true, inBrackets: false });
      } else return fail(`unexpected character inside braces: ${quoteChar(c)}`, start);
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(input[pos + 1]))) {
      const scanned = scanNumberOrDuration(input, pos);
      if (scanned.kind === null) {
        return fail(`bad number or duration syntax: "${input.slice(start, scanned.end)}"`, start);
      }
      pos = scanned.end;
      emit(scanned.kind, start, pos);
      durationState = false;
      continue;
    }
    if (isAlpha(c) || c === ':') {
      if (bracketOpen) {
        if (c === ':') {
          if (gotColon) return fail(`unexpected colon ${quoteChar(c)}`, start);
          gotColon = true;
          pos++;
          emit('punctuation', start, pos);
          continue;
        }
        while (isAlpha(input[pos])) pos++;
        const word = input.slice(start, pos).toLowerCase();
        if (word === 'step' || word === 'range' || word === 'max_of' || word === 'min_of') {
          emit('keyword', start, pos);
          continue;
        }
        // Prometheus' lexer is in its duration state only until the first number of the range.
        if (durationState) return fail(`unexpected character in duration expression: ${quoteChar(c)}`, start);
        return fail(`unexpected character: ${quoteChar(c)}, expected ':'`, start);
      }
      while (isAlphaNumeric(input[pos]) || input[pos] === ':') pos++;
      const word = input.slice(start, pos);
      const lower = word.toLowerCase();
      if (isAggregateOp(lower)) emit('aggregator', start, pos);
      else if (WORD_OPERATORS.has(lower)) emit('operator', start, pos);
      else if (KEYWORDS.has(lower)) emit('keyword', start, pos);
      else emit(word.includes(':') ? 'metric identifier' : 'identifier', start, pos);
      continue;
    }
    if (durationState && !'()[]:+-*/%^,'.includes(c))
      return fail(`unexpected character in duration expression: ${quoteChar(c)}`, start);
    pos++;
    switch (c) {
      case ',':
        emit('punctuation', start, pos);
        continue;
      case '(':
        parenDepth++;
        emit('punctuation', start, pos);
        continue;
      case ')':
        parenDepth--;
        emit('punctuation', start, pos);
        // Prometheus reports this after the parenthesis (its lexer already emitted it).
        if (parenDepth < 0) return fail(`unexpected right parenthesis ${quoteChar(c)}`, pos);
        continue;
      case '{':
        emit('punctuation', start, pos);
        braceOpen = true;
        continue;
      case '}':
        return fail(`unexpected character: ${quoteChar(c)}`, start);
      case '[':
        if (bracketOpen) return fail(`unexpected left bracket ${quoteChar(c)}`, start);
        gotColon = false;
        emit('punctuation', start, pos);
        bracketOpen = true;
        durationState = true;
        continue;
      case ']':
        if (!bracketOpen) return fail(`unexpected right bracket ${quoteChar(c)}`, start);
        tokens.push({ kind: 'punctuation', text: ']', pos: start, inBraces: false, inBrackets: true });
        bracketOpen = false;
        continue;
      case '*':
      case '/':
      case '%':
      case '+':
      case '-':
      case '^':
      case '@':
        emit('operator', start, pos);
        continue;
      case '=':
        if (input[pos] === '=') {
          pos++;
          emit('operator', start, pos);
        } else if (input[pos] === '~') {
          return fail(`unexpected character after '=': ${quoteChar('~')}`, start);
        } else emit('punctuation', start, pos);
        continue;
      case '!':
        if (input[pos] !== '=') return fail(`unexpected character after '!': ${quoteChar(input[pos] ?? '')}`, start);
        pos++;
        emit('operator', start, pos);
        continue;
      case '<':
      case '>':
        if (input[pos] === '=' || input[pos] === '/') pos++;
        emit('operator', start, pos);
        continue;
      default:
        return fail(`unexpected character: ${quoteChar(c)}`, start);
    }
  }
}

/**
 * Scans a number (decimal, hex, exponent, underscores) or a duration at `pos`, as loosely as
 * Prometheus' lexer (`5y1hs` is one duration token; the parser then reports the bad unit).
 * A null kind means malformed, `end` then is where scanning stopped.
 */
function scanNumberOrDuration(input: string, pos: number): { kind: 'number' | 'duration' | null; end: number } {
  const number =
    /^(?:0[xX]_?[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*|(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?)/.exec(
      input.slice(pos),
    );
  if (!number) return { kind: null, end: pos + 1 };
  let end = pos + number[0].length;
  // A second point is consumed into the bad token, as Prometheus' scanNumber does.
  if (input[end] === '.') return { kind: null, end: end + 1 };
  if (!isAlphaNumeric(input[end])) return { kind: 'number', end };
  // acceptRemainingDuration: a unit, then more digit+unit pairs.
  const accept = (chars: string): boolean => {
    const c = input[end];
    if (c !== undefined && chars.includes(c)) {
      end++;
      return true;
    }
    return false;
  };
  if (!accept('smhdwy')) return { kind: null, end };
  accept('s');
  while (isDigit(input[end])) {
    while (isDigit(input[end])) end++;
    if (!accept('smhdw')) return { kind: null, end };
    accept('s');
  }
  if (isAlphaNumeric(input[end])) return { kind: null, end: end + 1 };
  return { kind: 'duration', end };
}

/** After a backslash in a quoted string: the offset past the escape, or the lexer's error. */
function scanEscape(input: string, pos: number, quote: string): number | string {
  const c = input[pos];
  if (c === undefined) return 'escape sequence not terminated';
  if ('abfnrtv\\'.includes(c) || c === quote) return pos + 1;
  let digits: number;
  let base: number;
  let start = pos + 1;
  if (c >= '0' && c <= '7') {
    digits = 3;
    base = 8;
    start = pos;
  } else if (c === 'x' || c === 'u' || c === 'U') {
    digits = c === 'x' ? 2 : c === 'u' ? 4 : 8;
    base = 16;
  } else return `unknown escape sequence ${goUnicode(c)}`;
  let value = 0;
  for (let i = 0; i < digits; i++) {
    const d = input[start + i];
    if (d === undefined) return 'escape sequence not terminated';
    const digit = Number.parseInt(d, base);
    if (Number.isNaN(digit)) return `illegal character ${goUnicode(d)} in escape sequence`;
    value = value * base + digit;
  }
  const max = c === 'u' || c === 'U' ? 0x10ffff : 255;
  if (value > max || (value >= 0xd800 && value < 0xe000)) return 'escape sequence is an invalid Unicode code point';
  return start + digits;
}

/** Go's `%#U`: `U+0063 'c'`. */
function goUnicode(c: string): string {
  const code = c.codePointAt(0) as number;
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  return code >= 0x20 && code !== 0x7f ? `U+${hex} '${c}'` : `U+${hex}`;
}

/** Go's `%q` with Prometheus' `%.10q...` truncation for long items. */
function quoteItem(text: string): string {
  if (text.length > 10) return `${JSON.stringify(text.slice(0, 10))}...`;
  return JSON.stringify(text);
}

/** How Prometheus' parser names a token in "unexpected ..." messages. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'end of input';
    case 'identifier':
      return `identifier ${JSON.stringify(token.text)}`;
    case 'metric identifier':
      return `metric identifier ${JSON.stringify(token.text)}`;
    case 'string':
      return `string ${quoteItem(token.text)}`;
    case 'number':
      return `number ${quoteItem(token.text)}`;
    case 'duration':
      return `duration ${quoteItem(token.text)}`;
    case 'operator':
      return `<op:${token.text}>`;
    case 'keyword':
      return `<${token.text}>`;
    case 'aggregator':
      return `<aggr:${token.text}>`;
    case 'punctuation':
      return JSON.stringify(token.text);
  }
}
