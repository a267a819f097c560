/**
 * JSON paths as GreptimeDB's JSON functions read them (the JSONB crate's SQL/JSON path dialect):
 * `$.a.b`, the relaxed `a.b.c`, `a:b` (colon as a member step), `a["b"]`, `[0]`, `[last]`,
 * `[last - 1]`, `[1 to last]`, `[*]`, `.*`, filters `?(@.x > 1 && @ != "y")`, and for
 * `json_path_match` a trailing comparison (`$.a == 1`). Evaluation yields every matching node.
 *
 *   text → parseJsonPath → JsonPath (steps [+ predicate]) → selectJsonPath(node) → matches
 */
import type { JsonNode } from '../../../shared/json-value.js';

/** One index of an array step: a position, or `last` minus an offset. */
type IndexRef = { kind: 'at'; index: number } | { kind: 'last'; minus: number };

type Step =
  | { kind: 'member'; key: string }
  | { kind: 'any_member' }
  | { kind: 'elements'; ranges: Array<{ from: IndexRef; to: IndexRef }> }
  | { kind: 'any_element' }
  | { kind: 'filter'; predicate: Predicate };

type Operand = { kind: 'path'; relative: boolean; steps: Step[] } | { kind: 'literal'; node: JsonNode };

type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

type Predicate =
  | { kind: 'compare'; op: ComparisonOperator; left: Operand; right: Operand }
  | { kind: 'and' | 'or'; left: Predicate; right: Predicate }
  | { kind: 'not'; arg: Predicate }
  | { kind: 'exists'; operand: Operand };

/**
 * A parsed path: the steps to select, and for predicate paths the comparison to test. A path
 * that is only a literal (`null`, `1`) selects nothing and matches as its own boolean value.
 */
export interface JsonPath {
  steps: Step[];
  predicate: Predicate | null;
  constant?: JsonNode | undefined;
}

/** Thrown for text that is not a path. */
export class JsonPathError extends Error {}

class PathReader {
  private pos = 0;

  constructor(private readonly text: string) {}

  private fail(): never {
    throw new JsonPathError(`Invalid JSON path: ${this.text}`);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] as string)) this.pos++;
  }

  private peek(word: string): boolean {
    this.skipSpace();
    return this.text.startsWith(word, this.pos);
  }

  private eat(word: string): boolean {
    if (!this.peek(word)) return false;
    this.pos += word.length;
    return true;
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.text.length;
  }

  /** The whole text: a path, optionally followed by a comparison (then it is a predicate path). */
  path(): JsonPath {
    this.eat('lax') || this.eat('strict');
    const first = this.operand(false);
    if (this.atEnd()) {
      return first.kind === 'path'
        ? { steps: first.steps, predicate: null }
        : { steps: [], predicate: null, constant: first.node };
    }
    const predicate = this.predicateRest(first);
    if (!this.atEnd()) this.fail();
    return { steps: [], predicate };
  }

  private steps(relaxedStart: boolean): Step[] {
    const steps: Step[] = [];
    if (relaxedStart) {
      this.skipSpace();
      const key = this.key();
      if (key !== null) steps.push({ kind: 'member', key });
    }
    for (;;) {
      if (this.eat('.*')) steps.push({ kind: 'any_member' });
      else if (this.eat('.') || this.eat(':')) {
        const key = this.key();
        if (key === null) this.fail();
        steps.push({ kind: 'member', key });
      } else if (this.eat('[')) steps.push(this.bracket());
      else if (this.eat('?')) {
        // SQL/JSON writes `? (…)`; JSONB's own examples `?(…)`. Both read the same.
        if (!this.eat('(')) this.fail();
        steps.push({ kind: 'filter', predicate: this.predicate() });
        if (!this.eat(')')) this.fail();
      } else return steps;
    }
  }

  private key(): string | null {
    const rest = this.text.slice(this.pos);
    const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (quoted) {
      this.pos += quoted[0].length;
      return JSON.parse(quoted[0]) as string;
    }
    const bare = /^[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*/.exec(rest);
    if (!bare || bare[0] === '$') return null;
    this.pos += bare[0].length;
    return bare[0];
  }

  private bracket(): Step {
    if (this.eat('*')) {
      if (!this.eat(']')) this.fail();
      return { kind: 'any_element' };
    }
    this.skipSpace();
    const quote = this.text[this.pos];
    if (quote === '"' || quote === "'") {
      const end = this.text.indexOf(quote, this.pos + 1);
      if (end < 0) this.fail();
      const key = this.text.slice(this.pos + 1, end);
      this.pos = end + 1;
      if (!this.eat(']')) this.fail();
      return { kind: 'member', key };
    }
    const ranges: Array<{ from: IndexRef; to: IndexRef }> = [];
    do {
      const from = this.indexRef();
      const to = this.eat('to') ? this.indexRef() : from;
      ranges.push({ from, to });
    } while (this.eat(','));
    if (!this.eat(']')) this.fail();
    return { kind: 'elements', ranges };
  }

  private indexRef(): IndexRef {
    if (this.eat('last')) {
      if (this.eat('-')) return { kind: 'last', minus: this.integer() };
      return { kind: 'last', minus: 0 };
    }
    return { kind: 'at', index: this.integer() };
  }

  private integer(): number {
    this.skipSpace();
    const m = /^-?\d+/.exec(this.text.slice(this.pos));
    if (!m) this.fail();
    this.pos += m[0].length;
    return Number(m[0]);
  }

  private operand(insideFilter: boolean): Operand {
    this.skipSpace();
    if (this.eat('$')) return { kind: 'path', relative: false, steps: this.steps(false) };
    if (insideFilter && this.eat('@')) return { kind: 'path', relative: true, steps: this.steps(false) };
    const literal = this.literal();
    if (literal) return { kind: 'literal', node: literal };
    if (insideFilter) this.fail();
    return { kind: 'path', relative: false, steps: this.steps(true) };
  }

  private literal(): JsonNode | null {
    const rest = this.text.slice(this.pos);
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(rest);
    if (number) {
      this.pos += number[0].length;
      return number[1] === undefined && number[2] === undefined
        ? { kind: 'int', value: BigInt(number[0]) }
        : { kind: 'float', value: Number(number[0]) };
    }
    const string = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (string) {
      this.pos += string[0].length;
      return { kind: 'string', value: JSON.parse(string[0]) as string };
    }
    for (const [word, node] of [
      ['true', { kind: 'bool', value: true }],
      ['false', { kind: 'bool', value: false }],
      ['null', { kind: 'null' }],
    ] as const) {
      if (rest.startsWith(word) && !/^[\w$]/.test(rest.slice(word.length))) {
        this.pos += word.length;
        return node;
      }
    }
    return null;
  }

  private predicate(): Predicate {
    let left = this.conjunction();
    while (this.eat('||')) left = { kind: 'or', left, right: this.conjunction() };
    return left;
  }

  private conjunction(): Predicate {
    let left = this.unary();
    while (this.eat('&&')) left = { kind: 'and', left, right: this.unary() };
    return left;
  }

  private unary(): Predicate {
    if (this.eat('!')) {
      if (!this.eat('(')) this.fail();
      const arg = this.predicate();
      if (!this.eat(')')) this.fail();
      return { kind: 'not', arg };
    }
    if (this.eat('(')) {
      const inner = this.predicate();
      if (!this.eat(')')) this.fail();
      return inner;
    }
    return this.predicateRest(this.operand(true));
  }

  private predicateRest(left: Operand): Predicate {
    for (const op of ['==', '!=', '<=', '>=', '<>', '<', '>'] as const) {
      if (this.eat(op)) {
        const right = this.operand(true);
        return { kind: 'compare', op: op === '<>' ? '!=' : op, left, right };
      }
    }
    if (left.kind === 'literal') this.fail();
    return { kind: 'exists', operand: left };
  }
}

/** Parses a path; throws `JsonPathError`. */
export function parseJsonPath(text: string): JsonPath {
  return new PathReader(text).path();
}

function resolveIndex(ref: IndexRef, length: number): number {
  return ref.kind === 'at' ? ref.index : length - 1 - ref.minus;
}

function applyStep(nodes: JsonNode[], step: Step): JsonNode[] {
  const out: JsonNode[] = [];
  for (const node of nodes) {
    switch (step.kind) {
      case 'member':
        if (node.kind === 'object') {
          const hit = node.entries.find(([k]) => k === step.key);
          if (hit) out.push(hit[1]);
        }
        break;
      case 'any_member':
        if (node.kind === 'object') for (const [, v] of node.entries) out.push(v);
        break;
      case 'any_element':
        if (node.kind === 'array') out.push(...node.items);
        break;
      case 'elements':
        if (node.kind === 'array') {
          for (const range of step.ranges) {
            const from = resolveIndex(range.from, node.items.length);
            const to = resolveIndex(range.to, node.items.length);
            for (let i = Math.max(0, from); i <= Math.min(to, node.items.length - 1); i++) {
              out.push(node.items[i] as JsonNode);
            }
          }
        }
        break;
      case 'filter':
        if (testPredicate(step.predicate, node, node)) out.push(node);
        break;
    }
  }
  return out;
}

function selectSteps(root: JsonNode, steps: Step[]): JsonNode[] {
  let nodes = [root];
  for (const step of steps) nodes = applyStep(nodes, step);
  return nodes;
}

function operandNodes(operand: Operand, root: JsonNode, current: JsonNode): JsonNode[] {
  if (operand.kind === 'literal') return [operand.node];
  return selectSteps(operand.relative ? current : root, operand.steps);
}

/** Compares scalars of one family (numbers, strings, booleans, nulls); null when they differ. */
function compareScalars(a: JsonNode, b: JsonNode): number | null {
  const num = (n: JsonNode): number | null =>
    n.kind === 'int' ? Number(n.value) : n.kind === 'float' ? n.value : null;
  const x = num(a);
  const y = num(b);
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  if (a.kind === 'string' && b.kind === 'string') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  if (a.kind === 'bool' && b.kind === 'bool') return Number(a.value) - Number(b.value);
  if (a.kind === 'null' && b.kind === 'null') return 0;
  return null;
}

function testPredicate(p: Predicate, root: JsonNode, current: JsonNode): boolean {
  switch (p.kind) {
    case 'and':
      return testPredicate(p.left, root, current) && testPredicate(p.right, root, current);
    case 'or':
      return testPredicate(p.left, root, current) || testPredicate(p.right, root, current);
    case 'not':
      return !testPredicate(p.arg, root, current);
    case 'exists':
      return operandNodes(p.operand, root, current).length > 0;
    case 'compare': {
      const lefts = operandNodes(p.left, root, current);
      const rights = operandNodes(p.right, root, current);
      for (const l of lefts) {
        for (const r of rights) {
          const c = compareScalars(l, r);
          if (c === null) continue;
          const hit =
            p.op === '=='
              ? c === 0
              : p.op === '!='
                ? c !== 0
                : p.op === '<'
                  ? c < 0
                  : p.op === '<='
                    ? c <= 0
                    : p.op === '>'
                      ? c > 0
                      : c >= 0;
          if (hit) return true;
        }
      }
      return false;
    }
  }
}

/** Every node the path selects (empty for a predicate path). */
export function selectJsonPath(root: JsonNode, path: JsonPath): JsonNode[] {
  if (path.predicate || path.constant) return [];
  return selectSteps(root, path.steps);
}

/** A predicate path's truth value; null when the path is not a predicate. */
export function matchJsonPath(root: JsonNode, path: JsonPath): boolean | null {
  if (path.constant) return path.constant.kind === 'bool' ? path.constant.value : null;
  if (!path.predicate) return null;
  return testPredicate(path.predicate, root, root);
}
