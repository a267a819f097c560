/**
 * Parsed queries kept by their text, for both languages. Dashboards send the same few queries
 * every refresh, and parsing one was a sixth of the router's time for a one-series PromQL query
 * and a tenth for a one-host SQL query. Trees are frozen when kept: planning and evaluation only
 * read them, and a write would throw instead of changing what the next request gets.
 * Bounded (entries and text length) so that a stream of distinct long queries holds a few MiB.
 */
const ENTRIES_MAX = 256;
const TEXT_MAX = 1024;

export class ParsedCache<T> {
  private readonly entries = new Map<string, T>();

  /** The kept tree of `text`, now the most recently used; undefined when not kept. */
  get(text: string): T | undefined {
    const tree = this.entries.get(text);
    if (tree !== undefined) {
      // Most recently used last: the first key is the one to evict.
      this.entries.delete(text);
      this.entries.set(text, tree);
    }
    return tree;
  }

  /** Keeps `tree` (frozen) for `text` unless the text is too long to be worth it. */
  set(text: string, tree: T): void {
    if (text.length > TEXT_MAX) return;
    deepFreeze(tree);
    if (this.entries.size >= ENTRIES_MAX) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(text, tree);
  }
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
