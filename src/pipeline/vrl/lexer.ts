/**
 * Tokens of the VRL subset. Paths are lexed whole (`.a.b[0]."x y"`, and `x.a[1]` after a
 * variable) because whitespace matters there: `.` alone is the record, `. a` is not a path.
 * An identifier directly followed by `(` or `!(` is a function call.
 */
import { VrlCompileError } from './values.js';

export type Segment = { key: string } | { index: number };

export type Token = { pos: number } & (
  | { t: 'nl' }
  | { t: 'eof' }
  | { t: 'int'; v: number | bigint }
  | { t: 'float'; v: number }
  | { t: 'str'; v: string }
  | { t: 'regex'; v: string }
  | { t: 'kw'; v: 'if' | 'else' | 'true' | 'false' | 'null' }
  | { t: 'call'; name: string; bang: boolean }
  | { t: 'var'; name: string; segs: Segment[] }
  | { t: 'path'; segs: Segment[] }
  | { t: 'op'; v: string }
);

const KEYWORDS = new Set(['if', 'else', 'true', 'false', 'null']);
const UNSUPPORTED_KEYWORDS = new Set(['abort', 'return', 'for', 'while', 'loop', 'break', 'continue']);
const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '??', '|=', '->', '(', ')', '[', ']', '{', '}'];
const SINGLE = ',:;=<>+-*/%!|';
const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;
const FIELD = /[A-Za-z0-9_@$]/;

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (msg: string, at = i): never => {
    throw new VrlCompileError(`${msg} at ${lineCol(src, at)}`);
  };

  const readQuoted = (start: number): [string, number] => {
    let s = '';
    let j = start + 1;
    for (; j < src.length && src[j] !== '"'; j++) {
      if (src[j] !== '\\') {
        s += src[j];
        continue;
      }
      j++;
      const e = src[j];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '0': '\0' };
      if (e !== undefined && simple[e] !== undefined) s += simple[e];
      else if (e === '{' || e === '}') s += e;
      else if (e === 'u' && src[j + 1] === '{') {
        const close = src.indexOf('}', j);
        const cp = Number.parseInt(src.slice(j + 2, close), 16);
        if (close < 0 || Number.isNaN(cp)) fail('invalid unicode escape', j);
        s += String.fromCodePoint(cp);
        j = close;
      } else fail(`invalid escape \\${e ?? ''}`, j);
    }
    if (j >= src.length) fail('unterminated string', start);
    return [s, j + 1];
  };

  const readRaw = (start: number): [string, number] => {
    let s = '';
    let j = start + 2;
    for (; j < src.length && src[j] !== "'"; j++) {
      if (src[j] === '\\' && src[j + 1] === "'") j++;
      s += src[j];
    }
    if (j >= src.length) fail('unterminated string', start);
    return [s, j + 1];
  };

  // Path segments after a leading `.` (or a variable name), starting at `j`.
  const readSegments = (j: number, afterDot: boolean): [Segment[], number] => {
    const segs: Segment[] = [];
    let expectField = afterDot;
    for (;;) {
      if (expectField && FIELD.test(src[j] ?? '')) {
        const start = j;
        while (FIELD.test(src[j] ?? '')) j++;
        segs.push({ key: src.slice(start, j) });
      } else if (expectField && src[j] === '"') {
        const [s, end] = readQuoted(j);
        segs.push({ key: s });
        j = end;
      } else if (expectField && src[j] === '(') {
        fail('unsupported VRL construct: path coalescing', j);
      } else if (expectField && segs.length > 0) {
        fail('a field name must follow "."', j);
      }
      expectField = false;
      if (src[j] === '[') {
        const m = /^\[\s*(-?\d+)\s*\]/.exec(src.slice(j));
        if (m === null) fail('only integer indexes are supported in paths', j);
        segs.push({ index: Number((m as RegExpExecArray)[1]) });
        j += (m as RegExpExecArray)[0].length;
      } else if (src[j] === '.' && (FIELD.test(src[j + 1] ?? '') || src[j + 1] === '"')) {
        j++;
        expectField = true;
      } else {
        return [segs, j];
      }
    }
  };

  while (i < src.length) {
    const c = src[i] as string;
    const pos = i;
    if (c === '\n' || c === ';') {
      if (out.at(-1)?.t !== 'nl') out.push({ t: 'nl', pos });
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '"') {
      const [v, end] = readQuoted(i);
      out.push({ t: 'str', v, pos });
      i = end;
    } else if ((c === 's' || c === 'r' || c === 't') && src[i + 1] === "'") {
      if (c === 't') fail('unsupported VRL construct: timestamp literal');
      const [v, end] = readRaw(i);
      out.push(c === 's' ? { t: 'str', v, pos } : { t: 'regex', v, pos });
      i = end;
    } else if (/\d/.test(c)) {
      const m = /^\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?/.exec(src.slice(i)) as RegExpExecArray;
      const text = m[0].replaceAll('_', '');
      if (m[1] === undefined && m[2] === undefined) {
        const n = BigInt(text);
        out.push({ t: 'int', v: n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n, pos });
      } else out.push({ t: 'float', v: Number(text), pos });
      i += m[0].length;
    } else if (c === '.') {
      const [segs, end] = readSegments(i + 1, true);
      out.push({ t: 'path', segs, pos });
      i = end;
    } else if (IDENT_START.test(c)) {
      let j = i;
      while (IDENT.test(src[j] ?? '')) j++;
      const name = src.slice(i, j);
      if (UNSUPPORTED_KEYWORDS.has(name)) fail(`unsupported VRL construct: ${name}`);
      if (src[j] === '(' || (src[j] === '!' && src[j + 1] === '(')) {
        const bang = src[j] === '!';
        out.push({ t: 'call', name, bang, pos });
        i = bang ? j + 1 : j;
      } else if (KEYWORDS.has(name)) {
        out.push({ t: 'kw', v: name as 'if', pos });
        i = j;
      } else {
        const [segs, end] = readSegments(j, false);
        out.push({ t: 'var', name, segs, pos });
        i = end;
      }
    } else {
      const op = OPERATORS.find((o) => src.startsWith(o, i)) ?? (SINGLE.includes(c) ? c : undefined);
      if (op === undefined) fail(`unexpected character ${JSON.stringify(c)}`);
      out.push({ t: 'op', v: op as string, pos });
      i += (op as string).length;
    }
  }
  out.push({ t: 'eof', pos: src.length });
  return out;
}

/** `line L, column C` (1-based) of an offset, for error messages. */
export function lineCol(src: string, pos: number): string {
  const before = src.slice(0, pos);
  const line = before.split('\n').length;
  return `line ${line}, column ${pos - before.lastIndexOf('\n')}`;
}
