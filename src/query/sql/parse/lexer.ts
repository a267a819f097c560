/**
 * SQL tokenizer. Mirrors sqlparser-rs (which GreptimeDB uses) closely enough that error texts and
 * positions read the same: lines and columns count from 1, in characters.
 *
 * Double quotes and backquotes delimit identifiers (GreptimeDB's dialect), single quotes delimit
 * strings with `''` as the only escape. Comments (`-- ...`, nested `/* ... *\/`) are skipped.
 */
import { SqlSyntaxError } from '../../../shared/errors.js';

/** Kinds of tokens; keywords are bare words (checked case-insensitively by the parser). */
export type TokenKind = 'word' | 'number' | 'string' | 'op' | 'eof';

/** One token with its 1-based position (`line` 0 for the end of input). */
export interface Token {
  kind: TokenKind;
  /** Words and strings: the unescaped content. Numbers and operators: the text as written. */
  value: string;
  /** For words: the quote character (`"` or `` ` ``), or null for a bare word. */
  quote: '"' | '`' | null;
  line: number;
  column: number;
}

const MULTI_CHAR_OPS = ['<=>', '!~*', '::', '<=', '>=', '<>', '!=', '==', '||', '=>', '->', '!~', '~*'];
const SINGLE_CHAR_OPS = new Set('=<>+-*/%(),;.:[]|&^~!@?$#{}'.split(''));

function isWordStart(ch: string): boolean {
  return /[A-Za-z_\u0080-\uffff]/.test(ch);
}

function isWordPart(ch: string): boolean {
  return /[A-Za-z0-9_$\u0080-\uffff]/.test(ch);
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

/** ` at Line: L, Column: C`, the suffix sqlparser appends to located errors. */
export function locationSuffix(line: number, column: number): string {
  return line > 0 ? ` at Line: ${line}, Column: ${column}` : '';
}

/** How sqlparser prints a token in `found: ...`. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'EOF';
    case 'string':
      return `'${token.value.replaceAll("'", "''")}'`;
    case 'word':
      return token.quote ? `${token.quote}${token.value}${token.quote === '"' ? '"' : '`'}` : token.value;
    default:
      return token.value;
  }
}

/** Splits SQL text into tokens, ending with one `eof` token. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let column = 1;

  const advance = (n: number): void => {
    for (let k = 0; k < n; k++) {
      if (sql[i] === '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
      i++;
    }
  };
  const fail = (message: string, atLine: number, atColumn: number): never => {
    throw new SqlSyntaxError(`${message}${locationSuffix(atLine, atColumn)}`);
  };

  while (i < sql.length) {
    const ch = sql[i] as string;
    const startLine = line;
    const startColumn = column;
    if (/\s/.test(ch)) {
      advance(1);
      continue;
    }
    if (ch === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') advance(1);
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      advance(2);
      let depth = 1;
      while (depth > 0) {
        if (i >= sql.length) fail('Unexpected EOF while in a multi-line comment', startLine, startColumn);
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          advance(2);
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          advance(2);
        } else {
          advance(1);
        }
      }
      continue;
    }
    if (ch === "'") {
      advance(1);
      let value = '';
      for (;;) {
        if (i >= sql.length) fail('Unterminated string literal', startLine, startColumn);
        const c = sql[i] as string;
        if (c === "'") {
          if (sql[i + 1] === "'") {
            value += "'";
            advance(2);
            continue;
          }
          advance(1);
          break;
        }
        value += c;
        advance(1);
      }
      tokens.push({ kind: 'string', value, quote: null, line: startLine, column: startColumn });
      continue;
    }
    if (ch === '"' || ch === '`') {
      advance(1);
      let value = '';
      for (;;) {
        if (i >= sql.length) fail(`Expected close delimiter '${ch}' before EOF.`, startLine, startColumn);
        const c = sql[i] as string;
        if (c === ch) {
          if (sql[i + 1] === ch) {
            value += ch;
            advance(2);
            continue;
          }
          advance(1);
          break;
        }
        value += c;
        advance(1);
      }
      tokens.push({ kind: 'word', value, quote: ch, line: startLine, column: startColumn });
      continue;
    }
    if (isDigit(ch) || (ch === '.' && isDigit(sql[i + 1]))) {
      let j = i;
      while (isDigit(sql[j])) j++;
      if (sql[j] === '.') {
        j++;
        while (isDigit(sql[j])) j++;
      }
      if (
        (sql[j] === 'e' || sql[j] === 'E') &&
        (isDigit(sql[j + 1]) || ((sql[j + 1] === '+' || sql[j + 1] === '-') && isDigit(sql[j + 2])))
      ) {
        j += 2;
        while (isDigit(sql[j])) j++;
      }
      const text = sql.slice(i, j);
      advance(j - i);
      tokens.push({ kind: 'number', value: text, quote: null, line: startLine, column: startColumn });
      continue;
    }
    if (isWordStart(ch)) {
      let j = i + 1;
      while (j < sql.length && isWordPart(sql[j] as string)) j++;
      const text = sql.slice(i, j);
      advance(j - i);
      tokens.push({ kind: 'word', value: text, quote: null, line: startLine, column: startColumn });
      continue;
    }
    const multi = MULTI_CHAR_OPS.find((op) => sql.startsWith(op, i));
    if (multi) {
      advance(multi.length);
      tokens.push({ kind: 'op', value: multi, quote: null, line: startLine, column: startColumn });
      continue;
    }
    if (SINGLE_CHAR_OPS.has(ch)) {
      advance(1);
      tokens.push({ kind: 'op', value: ch, quote: null, line: startLine, column: startColumn });
      continue;
    }
    fail(`Unexpected character '${ch}'`, startLine, startColumn);
  }
  tokens.push({ kind: 'eof', value: '', quote: null, line: 0, column: 0 });
  return tokens;
}
