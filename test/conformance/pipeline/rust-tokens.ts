/**
 * A tokenizer for the Rust of GreptimeDB's pipeline tests: enough of the lexical grammar (raw and
 * escaped strings, integers with `_`, floats, paths, multi-character operators, comments) for
 * rust-syntax.ts to read them as data.
 */

export type Token =
  | { t: 'ident'; v: string }
  | { t: 'str'; v: string }
  | { t: 'int'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'char'; v: string }
  | { t: 'lifetime'; v: string }
  | { t: 'punct'; v: string };

const PUNCT = ['..=', '::', '->', '=>', '..', '==', '!=', '<=', '>=', '&&', '||', '+=', '-='];

/** `\n`, `\"`, `\u{1b}` ... as Rust reads them inside a non-raw string. */
function unescapeRust(body: string): string {
  return body.replace(
    /\\(u\{([0-9a-fA-F]+)\}|x([0-9a-fA-F]{2})|\n\s*|.)/g,
    (_m, esc: string, u?: string, x?: string) => {
      if (u) return String.fromCodePoint(Number.parseInt(u, 16));
      if (x) return String.fromCharCode(Number.parseInt(x, 16));
      if (esc.startsWith('\n')) return ''; // a line continuation
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', '"': '"', "'": "'" };
      const out = simple[esc];
      if (out === undefined) throw new Error(`unknown escape \\${esc}`);
      return out;
    },
  );
}

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end;
      continue;
    }
    if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 2;
      continue;
    }
    // Raw strings: r"..." / r#"..."# (any number of #).
    const raw = /^r(#*)"/.exec(src.slice(i, i + 40));
    if (raw) {
      const hashes = raw[1] as string;
      const start = i + raw[0].length;
      const end = src.indexOf(`"${hashes}`, start);
      if (end < 0) throw new Error('unterminated raw string');
      out.push({ t: 'str', v: src.slice(start, end) });
      i = end + 1 + hashes.length;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      out.push({ t: 'str', v: unescapeRust(src.slice(i + 1, j)) });
      i = j + 1;
      continue;
    }
    if (c === "'") {
      const ch = /^'(\\.|[^\\'])'/.exec(src.slice(i, i + 6));
      if (ch) {
        out.push({ t: 'char', v: unescapeRust(ch[1] as string) });
        i += ch[0].length;
        continue;
      }
      const life = /^'[A-Za-z_]\w*/.exec(src.slice(i)) as RegExpExecArray;
      out.push({ t: 'lifetime', v: life[0] });
      i += life[0].length;
      continue;
    }
    if (/[0-9]/.test(c)) {
      // A float needs a digit after the dot, so `0..2` stays a range.
      const m = /^[0-9][0-9_]*(\.[0-9][0-9_]*)?([eE][+-]?[0-9]+)?([iuf](8|16|32|64|size))?/.exec(
        src.slice(i),
      ) as RegExpExecArray;
      const text = m[0].replace(/_/g, '').replace(/[iuf](8|16|32|64|size)$/, '');
      if (m[1] || m[2] || /f(32|64)$/.test(m[0])) out.push({ t: 'float', v: Number(text) });
      else out.push({ t: 'int', v: BigInt(text) });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_]\w*/.exec(src.slice(i)) as RegExpExecArray;
      out.push({ t: 'ident', v: m[0] });
      i += m[0].length;
      continue;
    }
    const p = PUNCT.find((op) => src.startsWith(op, i)) ?? c;
    out.push({ t: 'punct', v: p });
    i += p.length;
  }
  return out;
}
