/**
 * Pieces shared by the SQL and PromQL regex code, which both run on re2js (a linear-time RE2
 * port) so that no user pattern can make a thread backtrack for ever: a bounded cache of compiled
 * patterns, and the `$1` / `${name}` replacement templates that Go's `Regexp.Expand` (PromQL
 * `label_replace`) and Rust's `Captures::expand` (DataFusion `regexp_replace`) share.
 */

/** One match as `RegExp.exec` and re2js `exec` / `matchAll` shape it: groups by index and name. */
export interface RegexMatch {
  readonly length: number;
  readonly [index: number]: string | undefined;
  readonly groups?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * Compiled patterns by key, evicting the least recently used. Compiling is far dearer than
 * matching, and every re2js pattern keeps a lazily built DFA (bounded per pattern by re2js), so
 * the entry count bounds the memory as well as saving the work.
 */
export class PatternCache<T> {
  private readonly entries = new Map<string, T>();
  private lastKey: string | undefined;
  private lastValue: T | undefined;

  constructor(private readonly entriesMax: number) {}

  /** The value cached under `key`, now the most recently used, or undefined. */
  get(key: string): T | undefined {
    // Per-row evaluation asks for the same pattern over and over; skip the Map reordering then.
    if (key === this.lastKey) return this.lastValue;
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map iteration follows insertion order, so re-inserting keeps the oldest use first.
    this.entries.delete(key);
    this.entries.set(key, value);
    this.lastKey = key;
    this.lastValue = value;
    return value;
  }

  /** Caches `value`, evicting the least recently used entry when full. */
  set(key: string, value: T): void {
    if (!this.entries.has(key) && this.entries.size >= this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.delete(key);
    this.entries.set(key, value);
    this.lastKey = key;
    this.lastValue = value;
  }
}

const NAME_RUN = /^[A-Za-z0-9_]+/;
const BRACED_NAME = /^[A-Za-z0-9_]+$/;

/**
 * Expands a replacement template against a match: `$1`, `${1}`, `$name`, `${name}`, `$$`. A
 * `$name` takes the longest run of letters, digits and `_`, so `$1x` means `${1x}`, which names
 * no group and expands to nothing; a `$` that starts no reference stays as text. Go and Rust
 * agree on all of this.
 */
export function expandTemplate(template: string, match: RegexMatch): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf('$', i);
    if (dollar < 0) return out + template.slice(i);
    out += template.slice(i, dollar);
    const next = template[dollar + 1];
    if (next === '$') {
      out += '$';
      i = dollar + 2;
      continue;
    }
    let name: string | null = null;
    let end = dollar + 1;
    if (next === '{') {
      const close = template.indexOf('}', dollar + 2);
      const inner = close < 0 ? '' : template.slice(dollar + 2, close);
      if (BRACED_NAME.test(inner)) {
        name = inner;
        end = close + 1;
      }
    } else {
      const run = NAME_RUN.exec(template.slice(dollar + 1));
      if (run) {
        name = run[0];
        end = dollar + 1 + run[0].length;
      }
    }
    if (name === null) {
      out += '$';
      i = dollar + 1;
      continue;
    }
    out += groupValue(match, name);
    i = end;
  }
  return out;
}

function groupValue(match: RegexMatch, name: string): string {
  if (/^[0-9]+$/.test(name)) {
    const index = Number(name);
    return index < match.length ? (match[index] ?? '') : '';
  }
  return match.groups?.[name] ?? '';
}
