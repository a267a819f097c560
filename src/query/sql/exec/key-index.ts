/**
 * Numbers for keys of SQL values (GROUP BY keys), as a trie of Maps with one level per key
 * column, so that no key text is built per row: building `groupKeyOf` strings, and the garbage
 * they left, was most of a two-column GROUP BY's time in a shard and in the router's merge.
 */
import { type Value, valueKey } from '../types/values.js';

/**
 * A value as a Map key: primitives are their own (SameValueZero groups as SQL does: one NaN, one
 * zero); a list goes by its text, since Maps compare arrays by identity. A column holds one type,
 * so a list's text never meets a string of the same column.
 */
const mapKeyOf = (v: Value): unknown => (Array.isArray(v) ? valueKey(v) : v);

export class KeyIndex {
  /** One trie per key length: a key is never a prefix of another in the same trie. */
  private readonly roots: Array<Map<unknown, unknown>> = [];

  /** The number of `key`, or, when new, `add(key)`'s number, remembered. `key` is not kept. */
  numberOf(key: readonly Value[], add: (key: readonly Value[]) => number): number {
    let level = this.roots[key.length];
    if (level === undefined) this.roots[key.length] = level = new Map();
    const last = key.length - 1;
    for (let c = 0; c < last; c++) {
      const k = mapKeyOf(key[c] as Value);
      let next = level.get(k) as Map<unknown, unknown> | undefined;
      if (next === undefined) level.set(k, (next = new Map()));
      level = next;
    }
    const k = last < 0 ? null : mapKeyOf(key[last] as Value);
    let n = level.get(k) as number | undefined;
    if (n === undefined) {
      n = add(key);
      level.set(k, n);
    }
    return n;
  }
}
