/**
 * Parser of the VRL subset into an expression tree. Checks at compile time what VRL checks
 * there and the subset can: unknown or unsupported functions, argument names and counts,
 * variables read before any assignment, literal regexes and formats. Newlines end statements
 * except inside brackets and after a binary operator, a comma or `=`.
 */
import { RE2JS, RE2JSException } from 're2js';
import { FUNCTIONS, type FunctionDef } from './functions.js';
import { ITERATION, type IterationDef } from './iteration.js';
import { lineCol, type Segment, type Token, tokenize } from './lexer.js';
import { VrlCompileError, VrlRegex, VrlRuntimeError, type VrlValue } from './values.js';

export type Target = { k: 'event'; segs: Segment[] } | { k: 'var'; name: string; segs: Segment[] } | { k: 'discard' };

export type Expr =
  | { k: 'lit'; v: VrlValue }
  | { k: 'event'; segs: Segment[] }
  | { k: 'var'; name: string; segs: Segment[] }
  | { k: 'array'; items: Expr[] }
  | { k: 'object'; entries: [string, Expr][] }
  | { k: 'not' | 'neg'; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'assign'; target: Target; err: Target | undefined; merge: boolean; value: Expr }
  | { k: 'if'; cond: Expr; then: Expr[]; else: Expr[] | undefined }
  | { k: 'call'; name: string; def: FunctionDef; args: (Expr | undefined)[] }
  | { k: 'del' | 'exists'; target: Target }
  | { k: 'block'; body: Expr[] }
  | { k: 'iterate'; name: string; def: IterationDef; args: (Expr | undefined)[]; params: string[]; body: Expr[] };

const LEVELS: string[][] = [['??'], ['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];

export function parseProgram(src: string): Expr[] {
  return new Parser(src).program();
}

class Parser {
  private readonly toks: Token[];
  private i = 0;
  private readonly defined = new Set<string>();

  constructor(private readonly src: string) {
    this.toks = tokenize(src);
  }

  program(): Expr[] {
    return this.statements('eof');
  }

  private get tok(): Token {
    return this.toks[this.i] as Token;
  }

  private peek(n = 1): Token {
    return this.toks[Math.min(this.i + n, this.toks.length - 1)] as Token;
  }

  private isOp(v: string, tok = this.tok): boolean {
    return tok.t === 'op' && tok.v === v;
  }

  private fail(msg: string, tok = this.tok): never {
    throw new VrlCompileError(`${msg} at ${lineCol(this.src, tok.pos)}`);
  }

  private expectOp(v: string): void {
    if (!this.isOp(v)) this.fail(`expected "${v}", found ${describe(this.tok)}`);
    this.i++;
  }

  private isEof(): boolean {
    return this.tok.t === 'eof';
  }

  private isKw(v: string): boolean {
    const t = this.tok;
    return t.t === 'kw' && t.v === v;
  }

  private skipNl(): void {
    while (this.tok.t === 'nl') this.i++;
  }

  /** Statements up to `}` (not consumed) or the end of the program. */
  private statements(end: '}' | 'eof'): Expr[] {
    const body: Expr[] = [];
    for (;;) {
      this.skipNl();
      if (end === 'eof' ? this.tok.t === 'eof' : this.isOp('}')) return body;
      if (this.isEof()) this.fail('unexpected end of program, expected "}"');
      body.push(this.statement());
      if (this.tok.t !== 'nl' && this.tok.t !== 'eof' && !this.isOp('}')) {
        this.fail(`expected a new line or ";", found ${describe(this.tok)}`);
      }
    }
  }

  private statement(): Expr {
    const t = this.tok;
    const next = this.peek();
    if ((t.t === 'path' || t.t === 'var') && (this.isOp('=', next) || this.isOp('|=', next))) {
      this.i += 2;
      this.skipNl();
      const value = this.expr();
      return { k: 'assign', target: this.target(t), err: undefined, merge: next.t === 'op' && next.v === '|=', value };
    }
    if ((t.t === 'path' || t.t === 'var') && this.isOp(',', next)) {
      const second = this.peek(2);
      if ((second.t === 'path' || second.t === 'var') && this.isOp('=', this.peek(3))) {
        this.i += 4;
        this.skipNl();
        const value = this.expr();
        return { k: 'assign', target: this.target(t), err: this.target(second), merge: false, value };
      }
    }
    return this.expr();
  }

  private target(t: Token): Target {
    if (t.t === 'path') return { k: 'event', segs: t.segs };
    if (t.t !== 'var') return this.fail('expected a path or a variable', t);
    if (t.name === '_' && t.segs.length === 0) return { k: 'discard' };
    if (t.segs.length > 0 && !this.defined.has(t.name)) this.fail(`undefined variable: ${t.name}`, t);
    this.defined.add(t.name);
    return { k: 'var', name: t.name, segs: t.segs };
  }

  expr(level = 0): Expr {
    const ops = LEVELS[level];
    if (ops === undefined) return this.unary();
    let l = this.expr(level + 1);
    while (this.tok.t === 'op' && ops.includes(this.tok.v)) {
      const op = this.tok.v;
      this.i++;
      this.skipNl();
      l = { k: 'bin', op, l, r: this.expr(level + 1) };
    }
    return l;
  }

  private unary(): Expr {
    if (this.isOp('!')) {
      this.i++;
      return { k: 'not', e: this.unary() };
    }
    if (this.isOp('-')) {
      this.i++;
      const e = this.unary();
      if (e.k === 'lit' && typeof e.v === 'number') return { k: 'lit', v: -e.v };
      if (e.k === 'lit' && typeof e.v === 'bigint') return { k: 'lit', v: -e.v };
      return { k: 'neg', e };
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.tok;
    switch (t.t) {
      case 'int':
      case 'float':
      case 'str':
        this.i++;
        return { k: 'lit', v: t.v };
      case 'regex':
        this.i++;
        try {
          return { k: 'lit', v: new VrlRegex(t.v, RE2JS.compile(t.v)) };
        } catch (err) {
          if (err instanceof RE2JSException) this.fail(`invalid regex r'${t.v}': ${err.message}`, t);
          throw err;
        }
      case 'kw':
        if (t.v === 'if') return this.ifExpr();
        if (t.v === 'else') this.fail('"else" without "if"');
        this.i++;
        return { k: 'lit', v: t.v === 'null' ? null : t.v === 'true' };
      case 'path':
        this.i++;
        return { k: 'event', segs: t.segs };
      case 'var':
        this.i++;
        if (!this.defined.has(t.name)) this.fail(`undefined variable: ${t.name}`, t);
        return { k: 'var', name: t.name, segs: t.segs };
      case 'call':
        return this.call();
      case 'op':
        if (t.v === '(') {
          this.i++;
          this.skipNl();
          const e = this.expr();
          this.skipNl();
          this.expectOp(')');
          return e;
        }
        if (t.v === '[') return this.array();
        if (t.v === '{') return this.isObjectLiteral() ? this.object() : this.block();
        if (t.v === '%') this.fail('unsupported VRL construct: metadata path');
        if (t.v === '|' || t.v === '->')
          this.fail('unsupported VRL construct: closure outside for_each, map_values, map_keys or filter');
        return this.fail(`unexpected ${describe(t)}`);
      default:
        return this.fail(`unexpected ${describe(t)}`);
    }
  }

  private ifExpr(): Expr {
    this.i++; // if
    const cond = this.expr();
    const then = this.block().body;
    let otherwise: Expr[] | undefined;
    // A statement cannot start with `else`, so one on a later line still belongs to this `if`.
    let j = this.i;
    while (this.toks[j]?.t === 'nl') j++;
    const after = this.toks[j];
    if (after?.t === 'kw' && after.v === 'else') {
      this.i = j + 1;
      if (this.isKw('if')) otherwise = [this.ifExpr()];
      else otherwise = this.block().body;
    }
    return { k: 'if', cond, then, else: otherwise };
  }

  private block(): { k: 'block'; body: Expr[] } {
    this.expectOp('{');
    const body = this.statements('}');
    this.expectOp('}');
    return { k: 'block', body };
  }

  private isObjectLiteral(): boolean {
    let j = this.i + 1;
    while (this.toks[j]?.t === 'nl') j++;
    const first = this.toks[j] as Token;
    if (first.t === 'op' && first.v === '}') return true;
    const second = this.toks[j + 1];
    return first.t === 'str' && second !== undefined && this.isOp(':', second);
  }

  private object(): Expr {
    this.expectOp('{');
    const entries: [string, Expr][] = [];
    for (this.skipNl(); !this.isOp('}'); this.skipNl()) {
      const key = this.tok;
      if (key.t !== 'str') this.fail(`expected a quoted object key, found ${describe(key)}`);
      this.i++;
      this.expectOp(':');
      this.skipNl();
      entries.push([key.v, this.expr()]);
      this.skipNl();
      if (!this.isOp(',')) break;
      this.i++;
    }
    this.skipNl();
    this.expectOp('}');
    return { k: 'object', entries };
  }

  private array(): Expr {
    this.expectOp('[');
    const items: Expr[] = [];
    for (this.skipNl(); !this.isOp(']'); this.skipNl()) {
      items.push(this.expr());
      this.skipNl();
      if (!this.isOp(',')) break;
      this.i++;
    }
    this.skipNl();
    this.expectOp(']');
    return { k: 'array', items };
  }

  private call(): Expr {
    const t = this.tok as Extract<Token, { t: 'call' }>;
    this.i++;
    this.expectOp('(');
    const positional: Expr[] = [];
    const named = new Map<string, Expr>();
    for (this.skipNl(); !this.isOp(')'); this.skipNl()) {
      const n = this.tok;
      if (n.t === 'var' && n.segs.length === 0 && this.isOp(':', this.peek())) {
        this.i += 2;
        this.skipNl();
        if (named.has(n.name)) this.fail(`argument ${n.name} given twice`, n);
        named.set(n.name, this.expr());
      } else {
        if (named.size > 0) this.fail('positional arguments must come before named ones', n);
        positional.push(this.expr());
      }
      this.skipNl();
      if (!this.isOp(',')) break;
      this.i++;
    }
    this.skipNl();
    this.expectOp(')');
    if (Object.hasOwn(ITERATION, t.name)) return this.iteration(t, positional, named);
    if (this.isOp('->')) this.fail('unsupported VRL construct: closure');
    if (t.name === 'del' || t.name === 'exists') return this.pathCall(t, positional, named);
    const def = FUNCTIONS[t.name];
    if (def === undefined || !Object.hasOwn(FUNCTIONS, t.name)) this.fail(`unsupported VRL function: ${t.name}`, t);
    const args = this.bind(t, def.params, positional, named);
    if (def.check !== undefined) {
      try {
        def.check(args.map((a) => (a?.k === 'lit' ? a.v : undefined)));
      } catch (err) {
        if (err instanceof VrlRuntimeError) this.fail(`${t.name}: ${err.message}`, t);
        throw err;
      }
    }
    return { k: 'call', name: t.name, def, args };
  }

  /** `for_each(...) -> |k, v| { ... }` and the other functions that take a closure. */
  private iteration(t: Token & { t: 'call' }, positional: Expr[], named: Map<string, Expr>): Expr {
    const def = ITERATION[t.name] as IterationDef;
    const args = this.bind(t, def.params, positional, named);
    if (!this.isOp('->')) this.fail(`${t.name} needs a closure: ${t.name}(...) -> |...| { ... }`, t);
    this.i++;
    this.expectOp('|');
    const params: string[] = [];
    while (!this.isOp('|')) {
      const p = this.tok;
      if (p.t !== 'var' || p.segs.length > 0) this.fail(`expected a closure parameter, found ${describe(p)}`);
      params.push(p.name);
      this.i++;
      if (!this.isOp(',')) break;
      this.i++;
    }
    this.expectOp('|');
    if (params.length !== def.closureParams) {
      this.fail(`the closure of ${t.name} takes ${def.closureParams} parameter(s), got ${params.length}`, t);
    }
    for (const p of params) this.defined.add(p);
    return { k: 'iterate', name: t.name, def, args, params, body: this.block().body };
  }

  /** Positional and named arguments → the parameter list, checked for names and counts. */
  private bind(
    t: Token & { t: 'call' },
    params: { name: string; required: boolean }[],
    positional: Expr[],
    named: Map<string, Expr>,
  ): (Expr | undefined)[] {
    if (positional.length > params.length) this.fail(`too many arguments for ${t.name}`, t);
    const args = params.map((param, i) => {
      const e = i < positional.length ? positional[i] : named.get(param.name);
      if (i < positional.length && named.has(param.name)) this.fail(`argument ${param.name} given twice`, t);
      named.delete(param.name);
      if (e === undefined && param.required) this.fail(`missing argument ${param.name} for ${t.name}`, t);
      return e;
    });
    const unknown = [...named.keys()][0];
    if (unknown !== undefined) this.fail(`unknown argument ${unknown} for ${t.name}`, t);
    return args;
  }

  private pathCall(t: Token & { t: 'call' }, positional: Expr[], named: Map<string, Expr>): Expr {
    const arg = positional[0] ?? named.get(t.name === 'del' ? 'path' : 'field');
    if (arg === undefined || positional.length + named.size !== 1 || (arg.k !== 'event' && arg.k !== 'var')) {
      return this.fail(`${t.name} takes exactly one path argument`, t);
    }
    const target: Target =
      arg.k === 'event' ? { k: 'event', segs: arg.segs } : { k: 'var', name: arg.name, segs: arg.segs };
    return { k: t.name as 'del', target };
  }
}

function describe(t: Token): string {
  switch (t.t) {
    case 'nl':
      return 'end of line';
    case 'eof':
      return 'end of program';
    case 'op':
      return `"${t.v}"`;
    case 'kw':
      return `"${t.v}"`;
    case 'call':
      return `call of ${t.name}`;
    case 'var':
      return `identifier ${t.name}`;
    case 'path':
      return 'path';
    default:
      return `literal ${String(t.v)}`;
  }
}
