/**
 * One series cache per database, for the write paths whose series resolve differently per
 * database (remote write's default database, OpenTSDB's `db`). Only databases that exist get a
 * cache: a request naming any other fails anyway, and a stream of made-up names must not grow the
 * map; such a request gets an empty, non-retaining cache.
 */
export class PerDatabaseCaches<C extends { readonly size: number }> {
  private readonly caches = new Map<string, C>();

  /** `make(capacity)`: a cache of that capacity per generation (0 = keeps nothing). */
  constructor(
    private readonly make: (capacity: number) => C,
    private readonly capacity: number,
  ) {}

  /** The cache of `db`; a non-retaining one unless `exists` (the database is in the caller's schema). */
  of(db: string, exists: boolean): C {
    if (!exists) return this.make(0);
    let cache = this.caches.get(db);
    if (!cache) {
      cache = this.make(this.capacity);
      this.caches.set(db, cache);
    }
    return cache;
  }

  /** Series held over every database (for `/metrics`). */
  get size(): number {
    let n = 0;
    for (const cache of this.caches.values()) n += cache.size;
    return n;
  }
}
