/**
 * A parser for the subset of Rust GreptimeDB's pipeline tests are written in: items (`fn`,
 * `const`, `lazy_static!`), statements (`let`, `let ... else`, `for`, `if let`, `match`) and
 * expressions (calls, method chains, macros, struct literals, closures, ranges). Types are
 * skipped: the interpreter (rust-eval.ts) is dynamically typed. Macro bodies stay tokens until
 * the interpreter knows which macro it is.
 */
import { type Token, tokenize } from './rust-tokens.js';

export type Pat =
  | { k: 'wild' }
  | { k: 'bind'; name: string }
  | { k: 'tuple'; items: Pat[] }
  | { k: 'variant'; path: string[]; items: Pat[] }
  | { k: 'lit'; v: unknown };

export type Expr =
  | { k: 'lit'; v: string | bigint | number | boolean }
  | { k: 'path'; segs: string[] }
  | { k: 'call'; f: Expr; args: Expr[] }
  | { k: 'method'; obj: Expr; name: string; args: Expr[] }
  | { k: 'field'; obj: Expr; name: string }
  | { k: 'index'; obj: Expr; idx: Expr }
  | { k: 'macro'; name: string; tokens: Token[] }
  | { k: 'unary'; op: string; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'range'; lo: Expr; hi: Expr }
  | { k: 'tuple'; items: Expr[] }
  | { k: 'array'; items: Expr[] }
  | { k: 'struct'; path: string[]; fields: Array<{ name: string; e: Expr }> }
  | { k: 'closure'; params: Pat[]; body: Expr }
  | { k: 'block'; stmts: Stmt[] }
  | { k: 'if'; cond: Expr; letPat?: Pat | undefined; then: Expr; else?: Expr | undefined }
  | { k: 'match'; e: Expr; arms: Array<{ pat: Pat; body: Expr }> }
  | { k: 'for'; pat: Pat; iter: Expr; body: Expr };

export type Stmt =
  | { k: 'let'; pat: Pat; init?: Expr | undefined; else?: Expr | undefined }
  | { k: 'expr'; e: Expr; semi: boolean }
  | { k: 'fn'; fn: FnItem };

export interface FnItem {
  name: string;
  params: Pat[];
  body: Expr;
  attrs: string[];
}

export interface RustFile {
  fns: Map<string, FnItem>;
  /** `const` and `lazy_static!` statics, by name, unevaluated. */
  statics: Map<string, Expr>;
  tests: FnItem[];
}

const BIN_PREC: Record<string, number> = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '>': 3,
  '<=': 3,
  '>=': 3,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  '%': 6,
};

export class Parser {
  private i = 0;
  constructor(private readonly toks: Token[]) {}

  static of(src: string): Parser {
    return new Parser(tokenize(src));
  }

  private peek(o = 0): Token | undefined {
    return this.toks[this.i + o];
  }
  private is(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t !== undefined && (t.t === 'punct' || t.t === 'ident') && t.v === v;
  }
  private eat(v: string): boolean {
    if (!this.is(v)) return false;
    this.i++;
    return true;
  }
  private expect(v: string): void {
    if (!this.eat(v)) throw new Error(`expected ${v}, got ${JSON.stringify(this.peek())} at token ${this.i}`);
  }
  private ident(): string {
    const t = this.peek();
    if (t?.t !== 'ident') throw new Error(`expected an identifier, got ${JSON.stringify(t)}`);
    this.i++;
    return t.v;
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }

  /** Tokens of a balanced group starting at an opening delimiter (the delimiters excluded). */
  private group(): Token[] {
    const open = this.peek();
    if (open?.t !== 'punct' || !'([{'.includes(open.v))
      throw new Error(`expected a group, got ${JSON.stringify(open)}`);
    const start = ++this.i;
    let depth = 1;
    while (depth > 0) {
      const t = this.toks[this.i++];
      if (!t) throw new Error('unbalanced group');
      if (t.t === 'punct' && '([{'.includes(t.v)) depth++;
      if (t.t === 'punct' && ')]}'.includes(t.v)) depth--;
    }
    return this.toks.slice(start, this.i - 1);
  }

  /** Skips a type up to (not including) one of `stops` at bracket depth 0. */
  private skipType(stops: string[]): void {
    let depth = 0;
    while (!this.done()) {
      const t = this.peek() as Token;
      if (depth === 0 && t.t === 'punct' && stops.includes(t.v)) return;
      if (t.t === 'punct' && '<([{'.includes(t.v)) depth++;
      if (t.t === 'punct' && '>)]}'.includes(t.v)) depth--;
      if (t.t === 'punct' && t.v === '->' && depth === 0 && stops.includes('->')) return;
      this.i++;
    }
  }

  private attrs(): string[] {
    const out: string[] = [];
    while (this.is('#')) {
      this.i++;
      const toks = this.group();
      out.push(toks.map((t) => String(t.v)).join(''));
    }
    return out;
  }

  // ---- items ----

  file(): RustFile {
    const file: RustFile = { fns: new Map(), statics: new Map(), tests: [] };
    while (!this.done()) {
      const attrs = this.attrs();
      this.eat('pub');
      if (this.is('fn')) {
        const fn = this.fnItem(attrs);
        file.fns.set(fn.name, fn);
        if (attrs.includes('test')) file.tests.push(fn);
      } else if (this.is('const') || this.is('static')) {
        this.i++;
        this.eat('ref');
        const name = this.ident();
        this.expect(':');
        this.skipType(['=']);
        this.expect('=');
        file.statics.set(name, this.expr());
        this.expect(';');
      } else if (this.is('lazy_static') && this.is('!', 1)) {
        this.i += 2;
        const inner = new Parser(this.group());
        while (!inner.done()) {
          inner.eat('pub');
          inner.expect('static');
          inner.expect('ref');
          const name = inner.ident();
          inner.expect(':');
          inner.skipType(['=']);
          inner.expect('=');
          file.statics.set(name, inner.expr());
          inner.expect(';');
        }
      } else {
        // `use ...;`, `mod common;` and anything else without a body we need.
        while (!this.done() && !this.eat(';')) {
          if (this.is('{')) {
            this.group();
            break;
          }
          this.i++;
        }
      }
    }
    return file;
  }

  private fnItem(attrs: string[]): FnItem {
    this.expect('fn');
    const name = this.ident();
    const params: Pat[] = [];
    const inner = new Parser(this.group());
    while (!inner.done()) {
      params.push(inner.pattern());
      inner.expect(':');
      inner.skipType([',']);
      inner.eat(',');
    }
    if (this.eat('->')) this.skipType(['{']);
    return { name, params, body: this.block(), attrs };
  }

  // ---- statements ----

  block(): Expr {
    const p = new Parser(this.group());
    const stmts: Stmt[] = [];
    while (!p.done()) {
      if (p.eat(';')) continue;
      const attrs = p.attrs();
      if (p.is('fn')) {
        stmts.push({ k: 'fn', fn: p.fnItem(attrs) });
        continue;
      }
      if (p.eat('let')) {
        const pat = p.pattern();
        if (p.eat(':')) p.skipType(['=', ';']);
        let init: Expr | undefined;
        let otherwise: Expr | undefined;
        if (p.eat('=')) init = p.expr();
        if (p.eat('else')) otherwise = p.block();
        p.expect(';');
        stmts.push({ k: 'let', pat, init, else: otherwise });
        continue;
      }
      const e = p.expr();
      stmts.push({ k: 'expr', e, semi: p.eat(';') });
    }
    return { k: 'block', stmts };
  }

  // ---- patterns ----

  pattern(): Pat {
    if (this.eat('&')) return this.pattern();
    if (this.eat('mut')) return { k: 'bind', name: this.ident() };
    if (this.is('(')) {
      const inner = new Parser(this.group());
      const items: Pat[] = [];
      while (!inner.done()) {
        items.push(inner.pattern());
        inner.eat(',');
      }
      return { k: 'tuple', items };
    }
    const t = this.peek();
    if (t && (t.t === 'str' || t.t === 'int' || t.t === 'float')) {
      this.i++;
      return { k: 'lit', v: t.v };
    }
    const path = [this.ident()];
    while (this.eat('::')) path.push(this.ident());
    if (path.length === 1 && path[0] === '_') return { k: 'wild' };
    if (this.is('(')) {
      const inner = new Parser(this.group());
      const items: Pat[] = [];
      while (!inner.done()) {
        items.push(inner.pattern());
        inner.eat(',');
      }
      return { k: 'variant', path, items };
    }
    const last = path[path.length - 1] as string;
    if (path.length === 1 && !/^[A-Z]/.test(last)) return { k: 'bind', name: last };
    return { k: 'variant', path, items: [] };
  }

  // ---- expressions ----

  /** `noStruct`: `for x in e {`, `if e {`, `match e {` take no struct literal. */
  expr(noStruct = false): Expr {
    const lhs = this.binary(0, noStruct);
    if (this.is('..') || this.is('..=')) {
      this.i++;
      return { k: 'range', lo: lhs, hi: this.binary(0, noStruct) };
    }
    return lhs;
  }

  private binary(min: number, noStruct: boolean): Expr {
    let l = this.unary(noStruct);
    for (;;) {
      const t = this.peek();
      const prec = t?.t === 'punct' ? BIN_PREC[t.v] : undefined;
      if (prec === undefined || prec <= min) return l;
      this.i++;
      const r = this.binary(prec, noStruct);
      l = { k: 'bin', op: (t as Token).v as string, l, r };
    }
  }

  private unary(noStruct: boolean): Expr {
    for (const op of ['-', '!', '*', '&']) {
      if (this.eat(op)) {
        if (op === '&') this.eat('mut');
        return { k: 'unary', op, e: this.unary(noStruct) };
      }
    }
    return this.postfix(this.primary(noStruct));
  }

  private args(): Expr[] {
    const inner = new Parser(this.group());
    return inner.commaList();
  }

  /** Comma-separated expressions to the end of the token stream (a macro's or a call's). */
  commaList(): Expr[] {
    const out: Expr[] = [];
    while (!this.done()) {
      out.push(this.expr());
      if (!this.done()) this.expect(',');
    }
    return out;
  }

  private postfix(e: Expr): Expr {
    for (;;) {
      if (this.is('(')) {
        e = { k: 'call', f: e, args: this.args() };
      } else if (this.is('[')) {
        const inner = new Parser(this.group());
        e = { k: 'index', obj: e, idx: inner.expr() };
      } else if (this.is('?')) {
        this.i++;
      } else if (this.is('.') && !this.is('.', 1)) {
        this.i++;
        const t = this.peek() as Token;
        this.i++;
        const name = String(t.v);
        if (this.is('::')) {
          this.i++;
          this.skipTurbofish();
        }
        if (this.is('(')) e = { k: 'method', obj: e, name, args: this.args() };
        else e = { k: 'field', obj: e, name };
      } else {
        return e;
      }
    }
  }

  private skipTurbofish(): void {
    this.expect('<');
    let depth = 1;
    while (depth > 0) {
      const t = this.toks[this.i++] as Token;
      if (t.t === 'punct' && t.v === '<') depth++;
      if (t.t === 'punct' && t.v === '>') depth--;
    }
  }

  private primary(noStruct: boolean): Expr {
    const t = this.peek();
    if (!t) throw new Error('unexpected end of expression');
    if (t.t === 'str' || t.t === 'int' || t.t === 'float') {
      this.i++;
      return { k: 'lit', v: t.v };
    }
    if (t.t === 'char') {
      this.i++;
      return { k: 'lit', v: t.v };
    }
    if (t.t === 'punct') {
      if (t.v === '(') {
        const inner = new Parser(this.group());
        if (inner.done()) return { k: 'tuple', items: [] };
        const first = inner.expr();
        if (inner.done()) return first; // parenthesised, not a 1-tuple
        inner.expect(',');
        return { k: 'tuple', items: [first, ...inner.commaList()] };
      }
      if (t.v === '{') return this.block();
      if (t.v === '[') return { k: 'array', items: new Parser(this.group()).commaList() };
      if (t.v === '|' || t.v === '||') return this.closure();
      throw new Error(`unexpected ${t.v}`);
    }
    if (t.v === 'true' || t.v === 'false') {
      this.i++;
      return { k: 'lit', v: t.v === 'true' };
    }
    if (t.v === 'move') {
      this.i++;
      return this.closure();
    }
    if (t.v === 'if') return this.ifExpr();
    if (t.v === 'match') {
      this.i++;
      const e = this.expr(true);
      const inner = new Parser(this.group());
      const arms: Array<{ pat: Pat; body: Expr }> = [];
      while (!inner.done()) {
        const pat = inner.pattern();
        inner.expect('=>');
        const body = inner.expr();
        inner.eat(',');
        arms.push({ pat, body });
      }
      return { k: 'match', e, arms };
    }
    if (t.v === 'for') {
      this.i++;
      const pat = this.pattern();
      this.expect('in');
      const iter = this.expr(true);
      return { k: 'for', pat, iter, body: this.block() };
    }
    // A path, a macro call or a struct literal.
    const segs = [this.ident()];
    while (this.is('::')) {
      this.i++;
      if (this.is('<')) this.skipTurbofish();
      else segs.push(this.ident());
    }
    if (this.is('!') && (this.is('(', 1) || this.is('[', 1) || this.is('{', 1))) {
      this.i++;
      return { k: 'macro', name: segs.join('::'), tokens: this.group() };
    }
    if (!noStruct && this.is('{') && /^[A-Z]/.test(segs[segs.length - 1] as string)) {
      const inner = new Parser(this.group());
      const fields: Array<{ name: string; e: Expr }> = [];
      while (!inner.done()) {
        if (inner.eat('..')) {
          inner.expr(); // `..Default::default()`: the rest are defaults, unobservable here
          continue;
        }
        const name = inner.ident();
        const e: Expr = inner.eat(':') ? inner.expr() : { k: 'path', segs: [name] };
        fields.push({ name, e });
        inner.eat(',');
      }
      return { k: 'struct', path: segs, fields };
    }
    return { k: 'path', segs };
  }

  private closure(): Expr {
    const params: Pat[] = [];
    if (!this.eat('||')) {
      this.expect('|');
      while (!this.eat('|')) {
        params.push(this.pattern());
        if (this.eat(':')) this.skipType([',', '|']);
        this.eat(',');
      }
    }
    return { k: 'closure', params, body: this.expr() };
  }

  private ifExpr(): Expr {
    this.expect('if');
    let letPat: Pat | undefined;
    if (this.eat('let')) {
      letPat = this.pattern();
      this.expect('=');
    }
    const cond = this.expr(true);
    const then = this.block();
    let otherwise: Expr | undefined;
    if (this.eat('else')) otherwise = this.is('if') ? this.ifExpr() : this.block();
    return { k: 'if', cond, letPat, then, else: otherwise };
  }
}

export function parseRustFile(src: string): RustFile {
  return Parser.of(src).file();
}
