/**
 * A small dynamically typed interpreter for GreptimeDB's pipeline tests, so their inputs, YAML and
 * assertions are read from the Rust source as written (helpers such as `common::parse_and_exec`
 * included) rather than transcribed. The pipeline itself is the `Host`: `parse` and `exec_mut`
 * are answered by a real server (http-host.ts). Unknown syntax or calls throw, which fails the
 * case with the reason.
 */

import { type Expr, Parser, type Pat, type RustFile, type Stmt } from './rust-syntax.js';
import type { Token } from './rust-tokens.js';
import {
  canonicalJson,
  equal,
  err,
  isObj,
  json,
  NONE,
  type Obj,
  ok,
  Panic,
  show,
  some,
  type V,
} from './rust-values.js';

/** What the interpreter asks of the pipeline under test. */
export interface Host {
  /** `pipeline::parse(&Content::Yaml(yaml))`: Ok(handle) or Err(error text). */
  parse(yaml: string): Promise<V>;
  /** `pipeline.exec_mut(record, ..)`: Ok(exec result host value) or Err(error text). */
  exec(handle: Obj, record: unknown): Promise<V>;
  /** `schema_info.column_schemas()` / `pipeline.schemas()`: the ColumnSchema structs so far. */
  schemas(handle: Obj): Promise<V>;
  /** `into_transformed()` / `into_dispatched()` of an exec result: an Option. */
  into(result: Obj, what: 'transformed' | 'dispatched'): V;
  /** `chrono::Utc::now()` in nanoseconds, as of the last exec. */
  nowNanos(): bigint;
}

const VALUE_DATA =
  /^(String|Bool|Binary|[IUF](8|16|32|64)|Timestamp(Second|Millisecond|Microsecond|Nanosecond)|Date|Datetime)Value$/;

class Scope {
  private readonly vars = new Map<string, V>();
  constructor(readonly parent: Scope | null) {}
  get(name: string): V | typeof MISSING {
    if (this.vars.has(name)) return this.vars.get(name) as V;
    return this.parent ? this.parent.get(name) : MISSING;
  }
  set(name: string, v: V): void {
    this.vars.set(name, v);
  }
  assign(name: string, v: V): void {
    if (this.vars.has(name) || !this.parent) this.vars.set(name, v);
    else this.parent.assign(name, v);
  }
}
const MISSING = Symbol('missing');

/** Rust's `format!`: `{name}`, `{}`, `{:?}`, `{{`/`}}`. */
function format(fmt: string, args: V[], scope: Scope): string {
  let next = 0;
  return fmt.replace(/\{\{|\}\}|\{([A-Za-z_]\w*)?(:[^}]*)?\}/g, (m, name?: string) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const v = name ? scope.get(name) : args[next++];
    if (v === MISSING) throw new Error(`format!: unknown ${name}`);
    return typeof v === 'string'
      ? v
      : isObj(v as V) && (v as Obj).$ === 'errtext'
        ? (v as { msg: string }).msg
        : show(v as V);
  });
}

/** `serde_json::json!(...)` tokens → the JSON value (strings were unescaped by the tokenizer). */
function jsonOfTokens(tokens: Token[]): unknown {
  const text = tokens
    .map((t) => (t.t === 'str' ? JSON.stringify(t.v) : t.t === 'int' ? String(t.v) : String(t.v)))
    .join('');
  return JSON.parse(text);
}

export class Interpreter {
  constructor(
    private readonly files: Map<string, RustFile>,
    private readonly host: Host,
  ) {}
  private readonly statics = new Map<string, V>();

  async runTest(file: string, name: string): Promise<void> {
    const f = this.files.get(file) as RustFile;
    const fn = f.fns.get(name);
    if (!fn) throw new Error(`no fn ${name}`);
    await this.eval(fn.body, new Scope(null), file);
  }

  private async callFn(file: string, fnName: string, args: V[]): Promise<V> {
    const f = this.files.get(file) as RustFile;
    const fn = f.fns.get(fnName) as NonNullable<ReturnType<RustFile['fns']['get']>>;
    const scope = new Scope(null);
    fn.params.forEach((p, i) => {
      if (!this.match(p, args[i], scope)) throw new Error(`argument ${i} of ${fnName} does not match`);
    });
    return this.eval(fn.body, scope, file);
  }

  private async block(stmts: Stmt[], scope: Scope, file: string): Promise<V> {
    let last: V;
    // Items are visible in the whole block, before their definition too.
    for (const s of stmts) {
      if (s.k !== 'fn') continue;
      const fn = s.fn;
      scope.set(fn.name, {
        $: 'fn',
        call: async (args) => {
          const inner = new Scope(null);
          this.bindAll(fn.params, args, inner);
          return this.eval(fn.body, inner, file);
        },
      });
    }
    for (const [i, s] of stmts.entries()) {
      last = undefined;
      if (s.k === 'fn') {
        continue;
      }
      if (s.k === 'let') {
        const v = s.init ? await this.eval(s.init, scope, file) : undefined;
        if (!this.match(s.pat, v, scope)) {
          if (!s.else) throw new Panic(`let pattern did not match ${show(v)}`);
          await this.eval(s.else, new Scope(scope), file);
          throw new Panic(`let-else fell through on ${show(v)}`);
        }
      } else {
        const v = await this.eval(s.e, scope, file);
        if (i === stmts.length - 1 && !s.semi) last = v;
      }
    }
    return last;
  }

  /** Binds parameters (patterns) to arguments in `scope`. */
  private bindAll(params: Pat[], args: V[], scope: Scope): void {
    params.forEach((p, i) => {
      this.match(p, args[i], scope);
    });
  }

  private match(p: Pat, v: V, scope: Scope): boolean {
    switch (p.k) {
      case 'wild':
        return true;
      case 'bind':
        scope.set(p.name, v);
        return true;
      case 'lit':
        return equal(p.v as V, v);
      case 'tuple': {
        const items = Array.isArray(v) ? v : isObj(v) && v.$ === 'tuple' ? v.items : null;
        return !!items && items.length === p.items.length && p.items.every((q, i) => this.match(q, items[i], scope));
      }
      case 'variant': {
        const name = p.path[p.path.length - 1] as string;
        const one = (x: V): boolean => p.items.length === 1 && this.match(p.items[0] as Pat, x, scope);
        if (!isObj(v)) return false;
        if (name === 'Some') return v.$ === 'opt' && v.some && one(v.v);
        if (name === 'None') return v.$ === 'opt' && !v.some;
        if (name === 'Ok' || name === 'Err') return v.$ === 'res' && v.ok === (name === 'Ok') && one(v.v);
        if (v.$ === 'json') {
          const d = v.v;
          const kind = Array.isArray(d)
            ? 'Array'
            : d === null
              ? 'Null'
              : typeof d === 'object'
                ? 'Object'
                : typeof d === 'string'
                  ? 'String'
                  : typeof d === 'boolean'
                    ? 'Boolean'
                    : 'Number';
          if (kind !== name && !(kind === 'Boolean' && name === 'Bool')) return false;
          return p.items.length === 0 || one(Array.isArray(d) ? d.map(json) : json(d));
        }
        if (v.$ === 'enum') return v.name === name && p.items.every((q, i) => this.match(q, v.args[i], scope));
        return false;
      }
    }
  }

  private async eval(e: Expr, scope: Scope, file: string): Promise<V> {
    switch (e.k) {
      case 'lit':
        return e.v;
      case 'block':
        return this.block(e.stmts, new Scope(scope), file);
      case 'tuple':
        return { $: 'tuple', items: await this.all(e.items, scope, file) };
      case 'array':
        return this.all(e.items, scope, file);
      case 'path':
        return this.path(e.segs, scope, file);
      case 'unary': {
        const v = await this.eval(e.e, scope, file);
        if (e.op === '-') return typeof v === 'bigint' ? -v : -(v as number);
        if (e.op === '!') return !v;
        return v; // `&x`, `*x`: values are shared, not borrowed
      }
      case 'bin': {
        const l = await this.eval(e.l, scope, file);
        if (e.op === '&&') return !!l && !!(await this.eval(e.r, scope, file));
        if (e.op === '||') return !!l || !!(await this.eval(e.r, scope, file));
        const r = await this.eval(e.r, scope, file);
        return binary(e.op, l, r);
      }
      case 'range': {
        const lo = Number(await this.eval(e.lo, scope, file));
        const hi = Number(await this.eval(e.hi, scope, file));
        return Array.from({ length: Math.max(0, hi - lo) }, (_x, i) => BigInt(lo + i));
      }
      case 'struct': {
        const fields: Record<string, V> = {};
        for (const f of e.fields) fields[f.name] = await this.eval(f.e, scope, file);
        return { $: 'struct', name: e.path[e.path.length - 1] as string, fields };
      }
      case 'closure':
        return {
          $: 'fn',
          call: async (args) => {
            const inner = new Scope(scope);
            this.bindAll(e.params, args, inner);
            return this.eval(e.body, inner, file);
          },
        };
      case 'if': {
        const v = await this.eval(e.cond, scope, file);
        const inner = new Scope(scope);
        const taken = e.letPat ? this.match(e.letPat, v, inner) : !!v;
        if (taken) return this.eval(e.then, inner, file);
        return e.else ? this.eval(e.else, scope, file) : undefined;
      }
      case 'match': {
        const v = await this.eval(e.e, scope, file);
        for (const arm of e.arms) {
          const inner = new Scope(scope);
          if (this.match(arm.pat, v, inner)) return this.eval(arm.body, inner, file);
        }
        throw new Panic(`no match arm for ${show(v)}`);
      }
      case 'for': {
        const items = iterate(await this.eval(e.iter, scope, file));
        for (const item of items) {
          const inner = new Scope(scope);
          this.match(e.pat, item, inner);
          await this.eval(e.body, inner, file);
        }
        return undefined;
      }
      case 'field': {
        const v = await this.eval(e.obj, scope, file);
        if (isObj(v) && v.$ === 'tuple') return v.items[Number(e.name)];
        if (isObj(v) && v.$ === 'struct' && e.name in v.fields) return v.fields[e.name];
        throw new Error(`no field ${e.name} on ${show(v)}`);
      }
      case 'index': {
        const v = await this.eval(e.obj, scope, file);
        const i = Number(await this.eval(e.idx, scope, file));
        if (!Array.isArray(v) || i >= v.length) throw new Panic(`index ${i} out of bounds of ${show(v)}`);
        return v[i];
      }
      case 'call':
        return this.call(e, scope, file);
      case 'method':
        return this.method(await this.eval(e.obj, scope, file), e.name, await this.all(e.args, scope, file));
      case 'macro':
        return this.macro(e.name, e.tokens, scope, file);
    }
  }

  private async all(es: Expr[], scope: Scope, file: string): Promise<V[]> {
    const out: V[] = [];
    for (const x of es) out.push(await this.eval(x, scope, file));
    return out;
  }

  private async path(segs: string[], scope: Scope, file: string): Promise<V> {
    const last = segs[segs.length - 1] as string;
    if (segs.length === 1) {
      const local = scope.get(last);
      if (local !== MISSING) return local as V;
      const f = this.files.get(file) as RustFile;
      const key = `${file}:${last}`;
      if (f.statics.has(last)) {
        if (!this.statics.has(key))
          this.statics.set(key, await this.eval(f.statics.get(last) as Expr, new Scope(null), file));
        return this.statics.get(key);
      }
      if (last === 'None') return NONE;
    }
    const owner = segs.length > 1 ? (segs[segs.length - 2] as string) : '';
    // A unit variant (`ColumnDataType::Json`, `Channel::Unknown`).
    if (/^[A-Z]/.test(owner) && /^[A-Z]/.test(last)) return { $: 'enum', name: last, args: [] };
    throw new Error(`unknown name ${segs.join('::')}`);
  }

  /** A call `f(args)`: user fns (this file's or `common::`), constructors, library functions. */
  private async call(e: Extract<Expr, { k: 'call' }>, scope: Scope, file: string): Promise<V> {
    const args = await this.all(e.args, scope, file);
    if (e.f.k !== 'path') {
      const f = await this.eval(e.f, scope, file);
      if (isObj(f) && f.$ === 'fn') return f.call(args);
      throw new Error('call of a non-function');
    }
    const segs = e.f.segs;
    const last = segs[segs.length - 1] as string;
    const qualified = segs.join('::');
    if (segs.length === 1) {
      const local = scope.get(last);
      if (local !== MISSING && isObj(local as V) && (local as Obj).$ === 'fn') {
        return (local as Obj as { call: (a: V[]) => Promise<V> }).call(args);
      }
      if ((this.files.get(file) as RustFile).fns.has(last)) return this.callFn(file, last, args);
    }
    if (segs[0] === 'common' && segs.length === 2) return this.callFn('common.rs', last, args);
    if (last === 'Some') return some(args[0]);
    if (last === 'Ok') return ok(args[0]);
    if (last === 'Err') return err(args[0]);
    if (VALUE_DATA.test(last)) return { $: 'enum', name: last, args };
    if (last === 'greptime_timestamp') return 'greptime_timestamp';
    if (qualified.endsWith('Content::Yaml')) return { $: 'host', kind: 'content', data: args[0] };
    if (last === 'parse' && segs.length <= 2) {
      const content = args[0] as Obj;
      if (!isObj(content) || content.$ !== 'host' || content.kind !== 'content') throw new Error('parse of non-YAML');
      return this.host.parse(content.data as string);
    }
    if (qualified.endsWith('PipelineContext::new')) return { $: 'host', kind: 'ctx', data: null };
    if (qualified.endsWith('serde_json::from_str')) {
      try {
        return ok(json(JSON.parse(args[0] as string)));
      } catch (x) {
        return err({ $: 'errtext', msg: (x as Error).message });
      }
    }
    if (qualified === 'jsonb::from_slice') return ok(json((args[0] as { v: unknown }).v));
    if (qualified === 'jsonb::Object::new') return { $: 'map', m: new Map() };
    if (qualified === 'Cow::Borrowed' || qualified === 'String::from') return args[0];
    if (qualified === 'Vec::new') return [];
    if (qualified.startsWith('jsonb::Value::')) return json(jsonbOf(last, args[0]));
    if (qualified === 'chrono::Utc::now') return { $: 'host', kind: 'now', data: this.host.nowNanos() };
    throw new Error(`unknown function ${qualified}`);
  }

  private async method(v: V, name: string, args: V[]): Promise<V> {
    const call = (f: V, ...a: V[]): Promise<V> => (f as { call: (x: V[]) => Promise<V> }).call(a);
    if (isObj(v) && v.$ === 'host') return this.hostMethod(v, name, args);
    switch (name) {
      case 'unwrap':
      case 'expect': {
        const what = name === 'expect' ? String(args[0]) : 'called unwrap';
        if (isObj(v) && v.$ === 'opt') {
          if (!v.some) throw new Panic(`${what}: None`);
          return v.v;
        }
        if (isObj(v) && v.$ === 'res') {
          if (!v.ok) throw new Panic(`${what}: ${show(v.v)}`);
          return v.v;
        }
        break;
      }
      case 'unwrap_err':
        if (isObj(v) && v.$ === 'res') {
          if (v.ok) throw new Panic(`called unwrap_err on Ok(${show(v.v)})`);
          return v.v;
        }
        break;
      case 'is_err':
      case 'is_ok':
        if (isObj(v) && v.$ === 'res') return v.ok === (name === 'is_ok');
        break;
      case 'is_some':
      case 'is_none':
        if (isObj(v) && v.$ === 'opt') return v.some === (name === 'is_some');
        break;
      case 'err':
        if (isObj(v) && v.$ === 'res') return v.ok ? NONE : some(v.v);
        break;
      case 'clone':
      case 'into':
      case 'to_owned':
      case 'iter':
      case 'into_iter':
      case 'collect':
      case 'as_str':
      case 'as_ref':
        return Array.isArray(v) ? [...v] : v;
      case 'to_string':
        if (typeof v === 'string' || (isObj(v) && v.$ === 'errtext')) return v;
        if (isObj(v) && v.$ === 'json') return canonicalJson(v.v);
        return typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : show(v);
      case 'to_vec':
        if (isObj(v) && v.$ === 'json') return { $: 'bytes', v: v.v };
        break;
      case 'map':
        if (Array.isArray(v)) {
          const out: V[] = [];
          for (const x of v) out.push(await call(args[0], x));
          return out;
        }
        if (isObj(v) && v.$ === 'opt') return v.some ? some(await call(args[0], v.v)) : NONE;
        break;
      case 'for_each':
        for (const x of iterate(v)) await call(args[0], x);
        return undefined;
      case 'unwrap_or_default':
        if (isObj(v) && v.$ === 'opt') return v.some ? v.v : '';
        break;
      case 'len':
        if (Array.isArray(v) || typeof v === 'string') return BigInt(v.length);
        break;
      case 'first':
        if (Array.isArray(v)) return v.length ? some(v[0]) : NONE;
        break;
      case 'get':
        if (Array.isArray(v)) return Number(args[0]) < v.length ? some(v[Number(args[0])]) : NONE;
        break;
      case 'pop':
        if (Array.isArray(v)) return v.length ? some(v.pop()) : NONE;
        break;
      case 'swap_remove':
        if (Array.isArray(v)) {
          const i = Number(args[0]);
          if (i >= v.length) throw new Panic(`swap_remove index ${i} out of bounds (len ${v.length})`);
          const out = v[i];
          const tail = v.pop();
          if (i < v.length) v[i] = tail;
          return out;
        }
        break;
      case 'contains':
        if (typeof v === 'string') return v.includes(args[0] as string);
        if (isObj(v) && v.$ === 'errtext') return v.msg.includes(args[0] as string);
        if (Array.isArray(v)) return v.some((x) => equal(x, args[0]));
        break;
      case 'push':
        if (Array.isArray(v)) {
          v.push(args[0]);
          return undefined;
        }
        break;
      case 'insert':
        if (isObj(v) && v.$ === 'map') {
          v.m.set(args[0] as string, args[1]);
          return undefined;
        }
        break;
    }
    throw new Error(`unknown method ${name} on ${show(v)}`);
  }

  private async hostMethod(v: Extract<V, { $: 'host' }>, name: string, args: V[]): Promise<V> {
    if (name === 'exec_mut') {
      const record = args[0] as Obj;
      if (!isObj(record) || record.$ !== 'json') throw new Error('exec_mut of a non-JSON value');
      return this.host.exec(v, record.v);
    }
    if (name === 'column_schemas') return ok(await this.host.schemas(v));
    if (name === 'schemas') return ok(await this.host.schemas(v));
    if (name === 'into_transformed') return this.host.into(v, 'transformed');
    if (name === 'into_dispatched') return this.host.into(v, 'dispatched');
    if (name === 'timestamp_nanos_opt' && v.kind === 'now') return some(v.data as bigint);
    if (name === 'clone' || name === 'into') return v;
    throw new Error(`unknown method ${name} on ${v.kind}`);
  }

  private async macro(name: string, tokens: Token[], scope: Scope, file: string): Promise<V> {
    const short = name.split('::').pop() as string;
    if (short === 'json') return json(jsonOfTokens(tokens));
    if (['info', 'debug', 'println', 'eprintln', 'warn'].includes(short)) return undefined;
    const args = new Parser(tokens).commaList();
    const vals = async (): Promise<V[]> => this.all(args, scope, file);
    switch (short) {
      case 'vec':
        return vals();
      case 'format': {
        const [fmt, ...rest] = await vals();
        return format(fmt as string, rest, scope);
      }
      case 'panic': {
        const [fmt, ...rest] = await vals();
        throw new Panic(fmt === undefined ? 'explicit panic' : format(fmt as string, rest, scope));
      }
      case 'assert_eq':
      case 'assert_ne': {
        const [l, r, fmt, ...rest] = await vals();
        if (equal(l, r) !== (short === 'assert_eq')) {
          const why = fmt === undefined ? '' : ` (${format(fmt as string, rest, scope)})`;
          throw new Panic(`${short} failed: left ${show(l)}, right ${show(r)}${why}`);
        }
        return undefined;
      }
      case 'assert': {
        const [c, fmt, ...rest] = await vals();
        if (!c) {
          const why = fmt === undefined ? '' : `: ${format(fmt as string, rest, scope)}`;
          throw new Panic(`assert failed: ${tokens.map((t) => String(t.v)).join(' ')}${why}`);
        }
        return undefined;
      }
      case 'setup_pipeline': {
        // (pipeline, schema_info, pipeline_def, pipeline_param): the handle carries the schema.
        const [p] = await vals();
        return { $: 'tuple', items: [p, p, undefined, undefined] };
      }
    }
    throw new Error(`unknown macro ${name}!`);
  }
}

function iterate(v: V): V[] {
  if (Array.isArray(v)) return v;
  if (isObj(v) && v.$ === 'opt') return v.some ? [v.v] : [];
  throw new Error(`cannot iterate ${show(v)}`);
}

function binary(op: string, l: V, r: V): V {
  if (op === '==') return equal(l, r);
  if (op === '!=') return !equal(l, r);
  const big = typeof l === 'bigint' && typeof r === 'bigint';
  const a = big ? (l as bigint) : Number(l);
  const b = big ? (r as bigint) : Number(r);
  switch (op) {
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
    case '+':
      return big ? (a as bigint) + (b as bigint) : (a as number) + (b as number);
    case '-':
      return big ? (a as bigint) - (b as bigint) : (a as number) - (b as number);
    case '*':
      return big ? (a as bigint) * (b as bigint) : (a as number) * (b as number);
  }
  throw new Error(`unknown operator ${op}`);
}

/** `jsonb::Value::Object(map)`, `::Array(vec)`, `::String(s)`, `::from(x)` → a JSON value. */
function jsonbOf(ctor: string, arg: V): unknown {
  const plain = (x: V): unknown => {
    if (isObj(x) && x.$ === 'json') return x.v;
    if (isObj(x) && x.$ === 'map') return Object.fromEntries([...x.m].map(([k, y]) => [k, plain(y)]));
    if (Array.isArray(x)) return x.map(plain);
    if (typeof x === 'bigint') return Number(x);
    return x;
  };
  if (['Object', 'Array', 'String', 'from', 'Bool', 'Number'].includes(ctor)) return plain(arg);
  if (ctor === 'Null') return null;
  throw new Error(`unknown jsonb::Value::${ctor}`);
}
