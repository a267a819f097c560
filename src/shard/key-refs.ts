/**
 * Series keys sent by reference (src/shared/series-key-blob.ts): once a decoding thread has sent
 * a key's bytes to this shard, it sends only (its thread id, the key's id). This shard keeps
 * what each id means, and makes the WAL carry the definitions its records need.
 *
 * What the shard knows is bounded: per decoding thread, two generations of `generationEntries`
 * keys (a lookup in the old one moves the key to the young one; a full young one drops the old).
 * A batch that references a dropped key is refused alone (nothing of it written, the rest of its
 * group commit is), and the router sends that request's part again with
 * every key in full (src/router/ingest/pipeline.ts).
 *
 * The WAL must replay without this memory (ids mean nothing to another process): every id a
 * record references is defined earlier in the same WAL file, either by a record that carries its
 * bytes or by a definitions record written just before (`KeyDefinitions`). A key remembers the
 * WAL file it was last defined in, so a steady stream of known series adds nothing to the WAL.
 * Payloads that are not logged (skip_wal) define nothing: their keys are learned, not marked.
 */
import type { KeyDefinitions, ResolvedKey, TableRows, WriteBatch } from '../shared/codec/write-batch.js';
import { IntMap } from '../shared/int-map.js';
import { blobKey } from '../shared/series-key-blob.js';

interface Known extends ResolvedKey {
  /** The `walEpoch` in which this key was last defined in the WAL (0: never). */
  definedIn: number;
}

/** The keys of one decoding thread, in two generations. */
class ThreadKeys {
  private young = new IntMap<Known>();
  private old = new IntMap<Known>();

  constructor(private readonly generationEntries: number) {}

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(id: number): Known | undefined {
    const hit = this.young.get(id);
    if (hit !== undefined) return hit;
    const old = this.old.get(id);
    if (old !== undefined) this.add(id, old);
    return old;
  }

  add(id: number, known: Known): void {
    if (this.young.size >= this.generationEntries) {
      this.old = this.young;
      this.young = new IntMap();
    }
    this.young.set(id, known);
  }
}

export class KeyRefs {
  private readonly threads = new Map<number, ThreadKeys>();
  /** Changes with every WAL file and every failed append: what `definedIn` is compared to. */
  private walEpoch = 1;
  private walFile = -1;

  constructor(private readonly generationEntries: number) {}

  /** Keys held, over all decoding threads (for /metrics). */
  get size(): number {
    let n = 0;
    for (const t of this.threads.values()) n += t.size;
    return n;
  }

  private threadOf(origin: number): ThreadKeys {
    let keys = this.threads.get(origin);
    if (keys === undefined) this.threads.set(origin, (keys = new ThreadKeys(this.generationEntries)));
    return keys;
  }

  /**
   * Gives every keyed table of `batches` its `resolvedKeys` (what this shard knows of each key
   * with an id: its string, and the memtable series it last named), learning the keys sent in full. Returns the indices of the batches that reference a key
   * this shard does not know (they must not be written), and the definitions WAL file `walFile`
   * needs ahead of the others' records. `logged[b]` false: batch b is not written to the WAL
   * (skip_wal), so its keys are resolved and learned but do not count as defined in the file: a
   * later logged record referencing them must bring their definitions.
   */
  resolve(
    batches: readonly WriteBatch[],
    walFile: number,
    logged?: readonly boolean[],
  ): { refused: number[]; definitions: KeyDefinitions | null } {
    if (walFile !== this.walFile) {
      this.walFile = walFile;
      this.walEpoch++;
    }
    // Keys in full first, from every batch: a group may hold a reference ahead of the record
    // that carries the key (two requests' replies can reach the shard in either order).
    const found = batches.map((batch) => batch.tables.map((t) => this.learnFullKeys(t)));
    const refused: number[] = [];
    batches.forEach((batch, b) => {
      const ok = batch.tables.every((t, i) => this.findReferenced(t, found[b]?.[i]));
      if (!ok) refused.push(b);
    });
    // In record order: a key is defined by the first record carrying its bytes, or by the
    // definitions written ahead of the group for a reference that comes first.
    let definitions: KeyDefinitions | null = null;
    batches.forEach((batch, b) => {
      if (refused.includes(b)) return;
      batch.tables.forEach((t, i) => {
        const knowns = found[b]?.[i];
        const blob = t.seriesKeyBlob;
        if (knowns === undefined || blob === undefined) return;
        const inWal = logged?.[b] ?? true;
        const resolved = new Array<ResolvedKey | undefined>(knowns.length);
        for (let k = 0; k < knowns.length; k++) {
          const known = knowns[k];
          if (known === undefined) continue;
          resolved[k] = known;
          if (!inWal || known.definedIn === this.walEpoch) continue;
          known.definedIn = this.walEpoch;
          if (blob.refs?.[k] !== 1) continue;
          definitions ??= { origins: [], ids: [], keys: [] };
          definitions.origins.push(blob.origin as number);
          definitions.ids.push((blob.ids as Int32Array)[k] as number);
          definitions.keys.push(known.key);
        }
        t.resolvedKeys = resolved;
      });
    });
    return { refused, definitions };
  }

  /** The known entry of each key of `t` with an id; those sent in full are learned if new. */
  private learnFullKeys(t: TableRows): Known[] | undefined {
    const blob = t.seriesKeyBlob;
    if (blob?.ids === undefined || blob.origin === undefined) return undefined;
    const keys = this.threadOf(blob.origin);
    const knowns = new Array<Known>(blob.ids.length);
    for (let k = 0; k < blob.ids.length; k++) {
      const id = blob.ids[k] as number;
      if (id < 0 || blob.refs?.[k] === 1) continue;
      let known = keys.get(id);
      if (known === undefined)
        keys.add(id, (known = { key: blobKey(blob, k), definedIn: 0, seriesIn: 0, seriesIndex: 0 }));
      knowns[k] = known;
    }
    return knowns;
  }

  /** Fills in the entries of `t`'s referenced keys; false when one is unknown. */
  private findReferenced(t: TableRows, knowns: Known[] | undefined): boolean {
    const blob = t.seriesKeyBlob;
    if (knowns === undefined || blob?.refs === undefined) return true;
    const keys = this.threadOf(blob.origin as number);
    for (let k = 0; k < knowns.length; k++) {
      if (blob.refs[k] !== 1) continue;
      const known = keys.get((blob.ids as Int32Array)[k] as number);
      if (known === undefined) return false;
      knowns[k] = known;
    }
    return true;
  }

  /**
   * After a failed WAL append: nothing may count as defined in the file any more (what was
   * marked may not have reached it), so the next records define their references again.
   */
  forgetWalDefinitions(): void {
    this.walEpoch++;
  }
}
