/**
 * `matches(text, query)`: GreptimeDB's full-text query over a String column. The query syntax:
 * terms separated by spaces (any of them: OR), `+term` (must), `-term` (must not), `AND` / `OR`
 * (AND binds tighter: `a AND b OR c` is `(a AND b) OR c`), parentheses, and `"a phrase"` (its
 * words consecutive; `\"` inside). Text and query are split into words (runs of letters and
 * digits) and compared case-insensitively, as the default English analyzer of a FULLTEXT index
 * does. A query is compiled once per distinct text.
 */
import { planError } from '../types/coercion.js';
import type { Value } from '../types/values.js';
import { mapRows, type ScalarFunction } from './types.js';

type Node =
  | { kind: 'term'; word: string }
  | { kind: 'phrase'; words: string[] }
  | { kind: 'and'; items: Node[] }
  /** A clause list: `must` all, `mustNot` none, and one of `should` unless there is a `must`. */
  | { kind: 'group'; must: Node[]; should: Node[]; mustNot: Node[] };

const WORD = /[\p{L}\p{N}]+/gu;

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

type Token = { t: 'word' | 'phrase'; text: string } | { t: '(' | ')' | '+' | '-' | 'AND' | 'OR' };

function lex(query: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      out.push({ t: c });
      i++;
    } else if ((c === '+' || c === '-') && (out.length === 0 || /[\s(]/.test(query[i - 1] ?? ' '))) {
      out.push({ t: c });
      i++;
    } else if (c === '"') {
      let text = '';
      i++;
      while (i < query.length && query[i] !== '"') {
        if (query[i] === '\\' && i + 1 < query.length) i++;
        text += query[i];
        i++;
      }
      if (i >= query.length) throw planError(`matches: unclosed quote in query ${JSON.stringify(query)}`);
      i++;
      out.push({ t: 'phrase', text });
    } else {
      let text = '';
      while (i < query.length && !/[\s()"]/.test(query[i] as string)) text += query[i++];
      if (text === 'AND' || text === 'OR') out.push({ t: text });
      else out.push({ t: 'word', text });
    }
  }
  return out;
}

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly query: string,
  ) {}

  private fail(why: string): never {
    throw planError(`matches: ${why} in query ${JSON.stringify(this.query)}`);
  }

  /** Clauses up to `)` or the end; `AND` chains become one clause. */
  group(): Node {
    const group = { kind: 'group' as const, must: [] as Node[], should: [] as Node[], mustNot: [] as Node[] };
    while (this.at < this.tokens.length && this.tokens[this.at]?.t !== ')') {
      const t = this.tokens[this.at];
      if (t?.t === 'OR') {
        this.at++;
        continue;
      }
      let occur = '';
      if (t?.t === '+' || t?.t === '-') {
        occur = t.t;
        this.at++;
      }
      let node = this.primary();
      if (this.tokens[this.at]?.t === 'AND') {
        const items = [node];
        while (this.tokens[this.at]?.t === 'AND') {
          this.at++;
          items.push(this.primary());
        }
        node = { kind: 'and', items };
      }
      if (occur === '+') group.must.push(node);
      else if (occur === '-') group.mustNot.push(node);
      else group.should.push(node);
    }
    return group;
  }

  private primary(): Node {
    const t = this.tokens[this.at++];
    if (t === undefined) return this.fail('a term is missing');
    if (t.t === '(') {
      const inner = this.group();
      if (this.tokens[this.at++]?.t !== ')') this.fail('unclosed parenthesis');
      return inner;
    }
    if (t.t === 'word' || t.t === 'phrase') {
      const words = wordsOf(t.text);
      if (words.length === 0) return this.fail(`${JSON.stringify(t.text)} has no word`);
      if (t.t === 'word' && words.length === 1) return { kind: 'term', word: words[0] as string };
      return { kind: 'phrase', words };
    }
    return this.fail(`unexpected ${t.t}`);
  }

  parse(): Node {
    const node = this.group();
    if (this.at < this.tokens.length) this.fail('unmatched parenthesis');
    return node;
  }
}

/** Compiles a query (throws a planning error when it cannot be read). */
export function compileMatchesQuery(query: string): Node {
  return new Parser(lex(query), query).parse();
}

function hasPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  for (let i = 0; i + phrase.length <= words.length; i++) {
    let j = 0;
    while (j < phrase.length && words[i + j] === phrase[j]) j++;
    if (j === phrase.length) return true;
  }
  return false;
}

function evaluate(node: Node, words: readonly string[], set: ReadonlySet<string>): boolean {
  switch (node.kind) {
    case 'term':
      return set.has(node.word);
    case 'phrase':
      return hasPhrase(words, node.words);
    case 'and':
      return node.items.every((n) => evaluate(n, words, set));
    case 'group':
      if (!node.must.every((n) => evaluate(n, words, set))) return false;
      if (node.mustNot.some((n) => evaluate(n, words, set))) return false;
      return node.must.length > 0 || node.should.length === 0 || node.should.some((n) => evaluate(n, words, set));
  }
}

/** Whether `text` matches a compiled query. */
export function matchesQuery(node: Node, text: string): boolean {
  const words = wordsOf(text);
  return evaluate(node, words, new Set(words));
}

const COMPILED_MAX = 256;
const compiled = new Map<string, Node>();

function cachedQuery(query: string): Node {
  let node = compiled.get(query);
  if (node === undefined) {
    node = compileMatchesQuery(query);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(query, node);
  }
  return node;
}

export const matches: ScalarFunction = {
  kind: 'scalar',
  name: 'matches',
  bind: (argTypes) => {
    if (argTypes.length !== 2 || !argTypes.every((t) => t === 'String' || t === 'Null')) {
      throw planError(`matches expects (String, String), got (${argTypes.join(', ')})`);
    }
    return { argTypes: ['String', 'String'], returnType: 'Boolean' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (text, query): Value => matchesQuery(cachedQuery(query as string), text as string)),
};
