/**
 * A bounded map from a protocol's own text key of a series (for example OpenTSDB's metric and
 * tag pairs as sent) to what the protocol keeps about it (its `ResolvedSeries`, at least), so that a series is checked and resolved once while
 * it keeps being written. Keys must be unambiguous (length-prefixed parts), since a hit skips
 * every check. Two generations: when the young one is full it becomes the old one and the
 * previous old one is dropped; a hit in the old one moves the entry back to the young one.
 */
export class KeyedSeriesCache<T> {
  private young = new Map<string, T>();
  private old = new Map<string, T>();

  constructor(readonly generationEntries: number) {}

  get(key: string): T | undefined {
    const hit = this.young.get(key);
    if (hit !== undefined) return hit;
    const old = this.old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, series: T): void {
    if (this.generationEntries <= 0) return;
    if (this.young.size >= this.generationEntries) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, series);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}

/** Appends `text` to a key unambiguously (length-prefixed), whatever characters it holds. */
export function keyPart(key: string, text: string): string {
  return `${key}${text.length}:${text}`;
}
