/**
 * Filter selectors of the JSONPath subset (json-path-query.ts): `[?(<expr>)]` keeps the children
 * of the current node (array elements, object values) for which `<expr>` holds. `<expr>` is, as
 * in jsonpath-rust (GreptimeDB's `json_path`): `@<path>` alone (the path matches something),
 * comparisons `== != < <= > >=` between `@`/`$` paths and literals (numbers, quoted strings,
 * `true`, `false`, `null`), `!`, `&&`, `||` and parentheses.
 */
import { isRecord, type PipelineValue } from './value.js';

/** What a filter needs of the path parser: its cursor and relative-path parsing. */
export interface FilterSource {
  readonly src: string;
  pos: number;
  /** Parses the steps of a path after `@`/`$`; returns a function finding its matches. */
  relativePath(): (node: PipelineValue) => PipelineValue[];
  error(msg: string): Error;
}

type Operand = { path: (current: PipelineValue, root: PipelineValue) => PipelineValue[] } | { value: PipelineValue };

export type Filter = (current: PipelineValue, root: PipelineValue) => boolean;

const OPS = ['==', '!=', '<=', '>=', '<', '>'];

export function parseFilter(p: FilterSource): Filter {
  const skip = (): void => {
    while (p.src[p.pos] === ' ') p.pos++;
  };
  const eat = (s: string): boolean => {
    skip();
    if (!p.src.startsWith(s, p.pos)) return false;
    p.pos += s.length;
    return true;
  };

  const operand = (): Operand => {
    skip();
    const c = p.src[p.pos];
    if (c === '@' || c === '$') {
      p.pos++;
      const find = p.relativePath();
      return { path: (current, root) => find(c === '@' ? current : root) };
    }
    if (c === "'" || c === '"') {
      const end = p.src.indexOf(c, p.pos + 1);
      if (end < 0) throw p.error('unterminated string in a filter');
      const value = p.src.slice(p.pos + 1, end);
      p.pos = end + 1;
      return { value };
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(p.src.slice(p.pos));
    if (!m) throw p.error('expected @, $ or a literal in a filter');
    p.pos += m[0].length;
    return { value: JSON.parse(m[0]) as PipelineValue };
  };

  const primary = (): Filter => {
    if (eat('!')) {
      const inner = primary();
      return (cur, root) => !inner(cur, root);
    }
    if (eat('(')) {
      const inner = or();
      if (!eat(')')) throw p.error('expected ")" in a filter');
      return inner;
    }
    const left = operand();
    skip();
    const op = OPS.find((o) => p.src.startsWith(o, p.pos));
    if (op === undefined) {
      // A lone path tests existence; a lone literal its truth.
      if ('value' in left) return () => left.value !== null && left.value !== false;
      return (cur, root) => left.path(cur, root).length > 0;
    }
    p.pos += op.length;
    const right = operand();
    return (cur, root) => {
      const l = 'value' in left ? [left.value] : left.path(cur, root);
      const r = 'value' in right ? [right.value] : right.path(cur, root);
      return l.some((a) => r.some((b) => compare(op, a, b)));
    };
  };

  const and = (): Filter => {
    let f = primary();
    while (eat('&&')) {
      const l = f;
      const r = primary();
      f = (cur, root) => l(cur, root) && r(cur, root);
    }
    return f;
  };

  const or = (): Filter => {
    let f = and();
    while (eat('||')) {
      const l = f;
      const r = and();
      f = (cur, root) => l(cur, root) || r(cur, root);
    }
    return f;
  };

  return or();
}

function compare(op: string, a: PipelineValue, b: PipelineValue): boolean {
  if (op === '==') return same(a, b);
  if (op === '!=') return !same(a, b);
  const bothNumbers =
    (typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint');
  if (!bothNumbers && !(typeof a === 'string' && typeof b === 'string')) return false;
  const [x, y] = bothNumbers ? [Number(a), Number(b)] : [a as string, b as string];
  if (op === '<') return x < y;
  if (op === '<=') return x <= y;
  if (op === '>') return x > y;
  return x >= y;
}

function same(a: PipelineValue, b: PipelineValue): boolean {
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    return Number(a) === Number(b);
  }
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => same(x, b[i] as PipelineValue));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => Object.hasOwn(b, k) && same(a[k] as PipelineValue, b[k] as PipelineValue))
    );
  }
  return a === b;
}
