/**
 * A JSONPath subset for the `json_path` processor: `$` (the root), `.key` and `['key']` /
 * `["key"]` (with unions `['a','b']`), `[n]` (negative counts from the end; unions `[0,2]`),
 * `[*]` and `.*`, `..` (descendants, followed by any selector), slices `[start:end:step]` and
 * filters `[?(...)]` (json-path-filter.ts). `.[...]` is read as `[...]`, as jsonpath-rust does
 * (GreptimeDB's own tests write `$.[1]`). Scripts `[(...)]` are not supported and fail to
 * compile. A query yields the list of matching values in document order; no match gives an
 * empty list.
 */
import { type Filter, type FilterSource, parseFilter } from './json-path-filter.js';
import { isRecord, type PipelineValue } from './value.js';

type Selector =
  | { type: 'names'; names: string[] }
  | { type: 'indexes'; indexes: number[] }
  | { type: 'wildcard' }
  | { type: 'slice'; start: number | undefined; end: number | undefined; step: number }
  | { type: 'filter'; test: Filter };

interface Step {
  descendant: boolean;
  selector: Selector;
}

export class JsonPathError extends Error {}

export class JsonPathQuery {
  private constructor(private readonly steps: Step[]) {}

  /** Compiles `path`; throws JsonPathError with the position of the first problem. */
  static compile(path: string): JsonPathQuery {
    return new JsonPathQuery(new PathParser(path).parse());
  }

  /** Matching values in document order. */
  find(root: PipelineValue): PipelineValue[] {
    return run(this.steps, root, root);
  }
}

/** The matches of `steps` from `start`; `root` is what `$` means inside filters. */
function run(steps: Step[], start: PipelineValue, root: PipelineValue): PipelineValue[] {
  let nodes: PipelineValue[] = [start];
  for (const step of steps) {
    const next: PipelineValue[] = [];
    for (const node of nodes) {
      if (step.descendant) {
        for (const d of descendantsAndSelf(node)) select(d, step.selector, next, root);
      } else {
        select(node, step.selector, next, root);
      }
    }
    nodes = next;
  }
  return nodes;
}

function* descendantsAndSelf(node: PipelineValue): Generator<PipelineValue> {
  yield node;
  for (const child of childrenOf(node)) yield* descendantsAndSelf(child);
}

function childrenOf(node: PipelineValue): PipelineValue[] {
  if (Array.isArray(node)) return node;
  if (isRecord(node)) return Object.values(node);
  return [];
}

function select(node: PipelineValue, sel: Selector, out: PipelineValue[], root: PipelineValue): void {
  switch (sel.type) {
    case 'filter':
      for (const child of childrenOf(node)) if (sel.test(child, root)) out.push(child);
      return;
    case 'wildcard':
      out.push(...childrenOf(node));
      return;
    case 'names':
      if (!isRecord(node)) return;
      for (const name of sel.names) {
        const v = node[name];
        if (v !== undefined && Object.hasOwn(node, name)) out.push(v);
      }
      return;
    case 'indexes':
      if (!Array.isArray(node)) return;
      for (const i of sel.indexes) {
        const v = node[i < 0 ? node.length + i : i];
        if (v !== undefined) out.push(v);
      }
      return;
    case 'slice': {
      if (!Array.isArray(node)) return;
      const n = node.length;
      const norm = (i: number) => (i < 0 ? Math.max(n + i, 0) : Math.min(i, n));
      if (sel.step > 0) {
        const end = sel.end === undefined ? n : norm(sel.end);
        for (let i = sel.start === undefined ? 0 : norm(sel.start); i < end; i += sel.step)
          out.push(node[i] as PipelineValue);
      } else {
        const start = sel.start === undefined ? n - 1 : Math.min(norm(sel.start), n - 1);
        const end = sel.end === undefined ? -1 : norm(sel.end);
        const back = -sel.step;
        for (let i = start; i > end; i -= back) out.push(node[i] as PipelineValue);
      }
      return;
    }
  }
}

// A key ends where a step or, inside a filter, an operator or `)` starts.
const NAME_CHAR = /[^.[\]\s()=!<>&|]/;

class PathParser implements FilterSource {
  pos = 0;
  readonly src: string;

  constructor(src: string) {
    this.src = src.trim();
  }

  parse(): Step[] {
    const s = this.src;
    if (!s.startsWith('$')) throw this.error('a JSONPath must start with $');
    this.pos = 1;
    const steps = this.steps();
    if (this.pos < s.length) throw this.error(`unexpected ${JSON.stringify(s[this.pos])}`);
    return steps;
  }

  /** Steps while the next character starts one (a filter's path stops at an operator). */
  private steps(): Step[] {
    const s = this.src;
    const steps: Step[] = [];
    while (this.pos < s.length) {
      if (s.startsWith('..', this.pos)) {
        this.pos += 2;
        if (s[this.pos] === '[') steps.push({ descendant: true, selector: this.bracket() });
        else steps.push({ descendant: true, selector: this.dotted() });
      } else if (s.startsWith('.[', this.pos)) {
        this.pos++;
        steps.push({ descendant: false, selector: this.bracket() });
      } else if (s[this.pos] === '.') {
        this.pos++;
        steps.push({ descendant: false, selector: this.dotted() });
      } else if (s[this.pos] === '[') {
        steps.push({ descendant: false, selector: this.bracket() });
      } else {
        break;
      }
    }
    return steps;
  }

  relativePath(): (node: PipelineValue) => PipelineValue[] {
    const steps = this.steps();
    return (node) => run(steps, node, node);
  }

  private dotted(): Selector {
    if (this.src[this.pos] === '*') {
      this.pos++;
      return { type: 'wildcard' };
    }
    const start = this.pos;
    while (this.pos < this.src.length && NAME_CHAR.test(this.src[this.pos] as string)) this.pos++;
    if (this.pos === start) throw this.error('a key name must follow "."');
    return { type: 'names', names: [this.src.slice(start, this.pos)] };
  }

  private bracket(): Selector {
    this.pos++; // [
    this.skipSpaces();
    let sel: Selector;
    const c = this.src[this.pos];
    if (c === '*') {
      this.pos++;
      sel = { type: 'wildcard' };
    } else if (c === "'" || c === '"') {
      const names = [this.quoted()];
      while (this.eat(',')) names.push(this.quoted());
      sel = { type: 'names', names };
    } else if (c === '?') {
      this.pos++;
      if (!this.eat('(')) throw this.error('expected "(" after "?"');
      sel = { type: 'filter', test: parseFilter(this) };
      if (!this.eat(')')) throw this.error('expected ")" to close the filter');
    } else if (c === '(') {
      throw this.error('script expressions are not supported');
    } else {
      sel = this.indexesOrSlice();
    }
    this.skipSpaces();
    if (this.src[this.pos] !== ']') throw this.error('expected "]"');
    this.pos++;
    return sel;
  }

  private indexesOrSlice(): Selector {
    const first = this.optionalInt();
    this.skipSpaces();
    if (this.src[this.pos] !== ':') {
      if (first === undefined) throw this.error('expected an index, a slice, a quoted key or *');
      const indexes = [first];
      while (this.eat(',')) {
        const i = this.optionalInt();
        if (i === undefined) throw this.error('expected an index');
        indexes.push(i);
      }
      return { type: 'indexes', indexes };
    }
    this.pos++;
    const end = this.optionalInt();
    let step = 1;
    if (this.eat(':')) step = this.optionalInt() ?? 1;
    if (step === 0) throw this.error('a slice step cannot be 0');
    return { type: 'slice', start: first, end, step };
  }

  private optionalInt(): number | undefined {
    this.skipSpaces();
    const m = /^-?\d+/.exec(this.src.slice(this.pos));
    if (m === null) return undefined;
    this.pos += m[0].length;
    return Number(m[0]);
  }

  private quoted(): string {
    this.skipSpaces();
    const q = this.src[this.pos];
    if (q !== "'" && q !== '"') throw this.error('expected a quoted key');
    let out = '';
    for (this.pos++; this.pos < this.src.length; this.pos++) {
      const c = this.src[this.pos] as string;
      if (c === q) {
        this.pos++;
        return out;
      }
      if (c === '\\' && this.pos + 1 < this.src.length) {
        this.pos++;
        out += this.src[this.pos];
      } else out += c;
    }
    throw this.error('unterminated quoted key');
  }

  private eat(c: string): boolean {
    this.skipSpaces();
    if (this.src[this.pos] !== c) return false;
    this.pos++;
    return true;
  }

  private skipSpaces(): void {
    while (this.src[this.pos] === ' ') this.pos++;
  }

  error(msg: string): JsonPathError {
    return new JsonPathError(`invalid JSONPath ${JSON.stringify(this.src)} at ${this.pos}: ${msg}`);
  }
}
