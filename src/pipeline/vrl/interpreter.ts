/**
 * Evaluates a parsed VRL program against one record. `.` is the record itself (changed in
 * place); variables live for one run. Storage has value semantics: every assignment stores a
 * copy, so `x = .` then `.a = 1` leaves `x` alone. A failing expression throws VrlRuntimeError,
 * which `??` and `x, err = ...` catch; anything else fails the record.
 */
import { type PipelineRecord, PipelineTimestamp, type PipelineValue } from '../value.js';
import { defaultOf } from './functions.js';
import type { Segment } from './lexer.js';
import { type Expr, parseProgram, type Target } from './parser.js';
import {
  deepClone,
  deepEqual,
  isInteger,
  isNumber,
  isObject,
  kindOf,
  normalizeInt,
  VrlCompileError,
  VrlRuntimeError,
  type VrlValue,
} from './values.js';

interface Scope {
  root: VrlValue;
  vars: Map<string, VrlValue>;
}

export class VrlProgram {
  private constructor(private readonly body: Expr[]) {}

  /** Parses and checks `source`; throws VrlCompileError. */
  static compile(source: string): VrlProgram {
    const body = parseProgram(source);
    const last = body.at(-1);
    if (last === undefined) throw new VrlCompileError('the program is empty; it must end with an object, e.g. "."');
    const kind = staticKind(last);
    if (kind !== 'unknown' && kind !== 'object' && kind !== 'array') {
      throw new VrlCompileError(`the program must return an object or an array of objects, but it returns ${kind}`);
    }
    return new VrlProgram(body);
  }

  /** Runs the program with `.` = `record`; returns the final value and the final `.`. */
  run(record: PipelineRecord): { result: VrlValue; root: VrlValue } {
    const scope: Scope = { root: record, vars: new Map() };
    const result = block(this.body, scope);
    return { result, root: scope.root };
  }
}

/** The kind the last statement surely has, or 'unknown'. */
function staticKind(e: Expr): string {
  switch (e.k) {
    case 'lit':
      return kindOf(e.v);
    case 'array':
      return 'array';
    case 'object':
      return 'object';
    case 'not':
      return 'boolean';
    case 'neg':
      return 'number';
    case 'bin':
      if (e.op === '??' || e.op === '||') return 'unknown';
      return ['+', '-', '*', '/', '%'].includes(e.op) ? 'number or string' : 'boolean';
    case 'assign':
      return staticKind(e.value);
    case 'exists':
      return 'boolean';
    case 'call':
      return e.def.returns === 'any' ? 'unknown' : e.def.returns;
    case 'block':
      return e.body.length === 0 ? 'null' : staticKind(e.body.at(-1) as Expr);
    default:
      return 'unknown';
  }
}

function block(body: Expr[], scope: Scope): VrlValue {
  let last: VrlValue = null;
  for (const e of body) last = evaluate(e, scope);
  return last;
}

function evaluate(e: Expr, scope: Scope): VrlValue {
  switch (e.k) {
    case 'lit':
      return e.v;
    case 'event':
      return read(scope.root, e.segs);
    case 'var':
      return read(scope.vars.get(e.name) ?? null, e.segs);
    case 'array':
      return e.items.map((x) => deepClone(evaluate(x, scope))) as PipelineValue[];
    case 'object': {
      const out: PipelineRecord = {};
      for (const [k, x] of e.entries) out[k] = deepClone(evaluate(x, scope)) as PipelineValue;
      return out;
    }
    case 'not': {
      const v = evaluate(e.e, scope);
      if (typeof v !== 'boolean') throw new VrlRuntimeError(`"!" needs a boolean, got ${kindOf(v)}`);
      return !v;
    }
    case 'neg': {
      const v = evaluate(e.e, scope);
      if (!isNumber(v)) throw new VrlRuntimeError(`"-" needs a number, got ${kindOf(v)}`);
      return typeof v === 'bigint' ? normalizeInt(-v) : -v;
    }
    case 'bin':
      return binary(e.op, e.l, e.r, scope);
    case 'assign':
      return assign(e, scope);
    case 'if': {
      const cond = evaluate(e.cond, scope);
      if (typeof cond !== 'boolean')
        throw new VrlRuntimeError(`an if condition must be a boolean, got ${kindOf(cond)}`);
      if (cond) return block(e.then, scope);
      return e.else === undefined ? null : block(e.else, scope);
    }
    case 'block':
      return block(e.body, scope);
    case 'call': {
      const args = e.args.map((a) => (a === undefined ? undefined : evaluate(a, scope)));
      try {
        return e.def.call(args);
      } catch (err) {
        if (err instanceof VrlRuntimeError)
          throw new VrlRuntimeError(`function call error for "${e.name}": ${err.message}`);
        throw err;
      }
    }
    case 'iterate':
      return iterate(e, scope);
    case 'exists':
      return lookup(e.target, scope) !== undefined;
    case 'del':
      return remove(e.target, scope);
  }
}

/** Runs an iteration function; its closure's parameters shadow variables of the same name. */
function iterate(e: Extract<Expr, { k: 'iterate' }>, scope: Scope): VrlValue {
  const args = e.args.map((a) => (a === undefined ? undefined : evaluate(a, scope)));
  const call = (values: VrlValue[]): VrlValue => {
    const saved = e.params.map((p) => scope.vars.get(p));
    for (const [i, p] of e.params.entries()) scope.vars.set(p, deepClone(values[i] ?? null));
    try {
      return block(e.body, scope);
    } finally {
      e.params.forEach((p, i) => {
        const old = saved[i];
        if (old === undefined) scope.vars.delete(p);
        else scope.vars.set(p, old);
      });
    }
  };
  try {
    return e.def.run(args, call);
  } catch (err) {
    if (err instanceof VrlRuntimeError && !err.message.startsWith('function call error'))
      throw new VrlRuntimeError(`function call error for "${e.name}": ${err.message}`);
    throw err;
  }
}

function binary(op: string, le: Expr, re: Expr, scope: Scope): VrlValue {
  if (op === '??') {
    try {
      return evaluate(le, scope);
    } catch (err) {
      if (err instanceof VrlRuntimeError) return evaluate(re, scope);
      throw err;
    }
  }
  const l = evaluate(le, scope);
  if (op === '||') return l === null || l === false ? evaluate(re, scope) : l;
  if (op === '&&') {
    if (l !== null && typeof l !== 'boolean') throw new VrlRuntimeError(`"&&" needs booleans, got ${kindOf(l)}`);
    if (!l) return false;
    const r = evaluate(re, scope);
    if (r !== null && typeof r !== 'boolean') throw new VrlRuntimeError(`"&&" needs booleans, got ${kindOf(r)}`);
    return r === true;
  }
  const r = evaluate(re, scope);
  if (op === '==') return deepEqual(l, r);
  if (op === '!=') return !deepEqual(l, r);
  if (op === '+' && typeof l === 'string' && typeof r === 'string') return l + r;
  if (['<', '<=', '>', '>='].includes(op)) return compare(op, l, r);
  if (!isNumber(l) || !isNumber(r)) {
    throw new VrlRuntimeError(`can't apply "${op}" to ${kindOf(l)} and ${kindOf(r)}`);
  }
  if ((op === '/' || op === '%') && Number(r) === 0) throw new VrlRuntimeError("can't divide by zero");
  if (op === '/') return Number(l) / Number(r);
  if (isInteger(l) && isInteger(r)) {
    const a = BigInt(l);
    const b = BigInt(r);
    if (op === '+') return normalizeInt(a + b);
    if (op === '-') return normalizeInt(a - b);
    if (op === '*') return normalizeInt(a * b);
    return normalizeInt(a % b);
  }
  const a = Number(l);
  const b = Number(r);
  if (op === '+') return a + b;
  if (op === '-') return a - b;
  if (op === '*') return a * b;
  return a % b;
}

function compare(op: string, l: VrlValue, r: VrlValue): boolean {
  let a: number | bigint | string;
  let b: number | bigint | string;
  if (isNumber(l) && isNumber(r)) [a, b] = typeof l === typeof r ? [l, r] : [Number(l), Number(r)];
  else if (typeof l === 'string' && typeof r === 'string') [a, b] = [l, r];
  else if (l instanceof PipelineTimestamp && r instanceof PipelineTimestamp) [a, b] = [l.nanos, r.nanos];
  else throw new VrlRuntimeError(`can't compare ${kindOf(l)} with ${kindOf(r)}`);
  if (op === '<') return a < b;
  if (op === '<=') return a <= b;
  if (op === '>') return a > b;
  return a >= b;
}

function assign(e: Extract<Expr, { k: 'assign' }>, scope: Scope): VrlValue {
  let value: VrlValue;
  if (e.err === undefined) {
    value = evaluate(e.value, scope);
  } else {
    try {
      value = evaluate(e.value, scope);
      write(e.err, null, scope);
    } catch (err) {
      if (!(err instanceof VrlRuntimeError)) throw err;
      value = defaultOf(e.value.k === 'call' ? e.value.def.returns : 'any');
      write(e.err, err.message, scope);
    }
  }
  if (e.merge) {
    const current = lookup(e.target, scope);
    if (!isObject(current) || !isObject(value)) {
      throw new VrlRuntimeError(`"|=" needs objects, got ${kindOf(current)} and ${kindOf(value)}`);
    }
    value = { ...current, ...value };
  }
  write(e.target, value, scope);
  return value;
}

function read(base: VrlValue, segs: Segment[]): VrlValue {
  let at: VrlValue | undefined = base;
  for (const seg of segs) at = child(at, seg);
  return at ?? null;
}

function child(at: VrlValue | undefined, seg: Segment): VrlValue | undefined {
  if ('key' in seg) return isObject(at) && Object.hasOwn(at, seg.key) ? at[seg.key] : undefined;
  if (!Array.isArray(at)) return undefined;
  return at[seg.index < 0 ? at.length + seg.index : seg.index];
}

/** The value at a target, undefined when absent (null values exist). */
function lookup(t: Target, scope: Scope): VrlValue | undefined {
  if (t.k === 'discard') return undefined;
  let at: VrlValue | undefined = t.k === 'event' ? scope.root : scope.vars.get(t.name);
  for (const seg of t.segs) at = child(at, seg);
  return at;
}

function write(t: Target, value: VrlValue, scope: Scope): void {
  if (t.k === 'discard') return;
  const copy = deepClone(value);
  if (t.segs.length === 0) {
    if (t.k === 'event') scope.root = copy;
    else scope.vars.set(t.name, copy);
    return;
  }
  let container: VrlValue = t.k === 'event' ? scope.root : (scope.vars.get(t.name) ?? null);
  const first = t.segs[0] as Segment;
  if (!fits(container, first)) {
    container = 'key' in first ? {} : [];
    if (t.k === 'event') scope.root = container;
    else scope.vars.set(t.name, container);
  }
  for (let i = 0; i < t.segs.length; i++) {
    const seg = t.segs[i] as Segment;
    const next = t.segs[i + 1];
    const existing = child(container, seg);
    const v: VrlValue =
      next === undefined ? copy : fits(existing, next) ? (existing as VrlValue) : 'key' in next ? {} : [];
    if ('key' in seg) (container as PipelineRecord)[seg.key] = v as PipelineValue;
    else {
      const arr = container as PipelineValue[];
      const index = seg.index < 0 ? arr.length + seg.index : seg.index;
      if (index < 0) throw new VrlRuntimeError(`index ${seg.index} is out of bounds`);
      while (arr.length < index) arr.push(null);
      arr[index] = v as PipelineValue;
    }
    container = v;
  }
}

function fits(v: VrlValue | undefined, seg: Segment): boolean {
  return 'key' in seg ? isObject(v) : Array.isArray(v);
}

function remove(t: Target, scope: Scope): VrlValue {
  if (t.k === 'discard') return null;
  if (t.segs.length === 0) {
    // Deleting `.` empties the record; deleting a variable sets it to null.
    const old = lookup(t, scope) ?? null;
    if (t.k === 'event') scope.root = {};
    else scope.vars.set(t.name, null);
    return old;
  }
  const parent = lookup({ ...t, segs: t.segs.slice(0, -1) }, scope);
  const seg = t.segs.at(-1) as Segment;
  const old = child(parent, seg);
  if (old === undefined) return null;
  if ('key' in seg) delete (parent as PipelineRecord)[seg.key];
  else {
    const arr = parent as PipelineValue[];
    arr.splice(seg.index < 0 ? arr.length + seg.index : seg.index, 1);
  }
  return old;
}
