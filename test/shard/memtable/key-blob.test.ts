/**
 * Series keys sent as a blob (src/shared/series-key-blob.ts) find their series through the shard's
 * entry for their key id once it points into the memtable, else by the key itself (the first
 * write of a series into a memtable, keys without ids, WAL replay). Property test
 * against a plain model: random keys (empty values, non-ASCII, the same tags in another order),
 * each key named by the ids of several decoder threads or by none, batches mixing blobs with
 * string keys, and a round trip through the write-batch codec (as the WAL stores it). Two
 * different keys must never share a series, and one key must never get two.
 */
import t from 'tap';
import { TableMemtable } from '../../../src/shard/memtable/table-memtable.js';
import { problemOfBatch } from '../../../src/shard/write-batch-check.js';
import {
  decodeWriteBatch,
  encodeWriteBatch,
  type ResolvedKey,
  type TableRows,
} from '../../../src/shared/codec/write-batch.js';
import { seriesKeyOf } from '../../../src/shared/series-key.js';
import { blobKey, blobOf, type EncodedKey, encodeKey } from '../../../src/shared/series-key-blob.js';
import { prng } from '../../helpers/prng.js';

const VALUES = ['a', 'b', '', 'é', '日本', 'a b', '😀', 'ab', 'a,1:b'];

/** `idOf` gives a key's minting thread and id ([thread, -1]: no id). */
function rowsOf(keys: string[], idOf: (key: string) => [number, number], viaCodec: boolean): TableRows {
  const encoded = keys.map((k) => {
    const e = encodeKey(k) as EncodedKey;
    const [origin, id] = idOf(k);
    return { utf8: e.utf8, origin, id, sentTo: 0 };
  });
  const rows: TableRows = {
    tableId: 1,
    mergeMode: 'last_row',
    rowCount: keys.length,
    timestamps: BigInt64Array.from(keys.map((_, i) => BigInt(i))),
    tagIds: [],
    seriesTags: [],
    rowSeries: Uint32Array.from(keys.map((_, i) => i)),
    seriesKeyBlob: blobOf(encoded),
    fields: [],
  };
  return viaCodec ? (decodeWriteBatch(encodeWriteBatch({ tables: [rows] })).tables[0] as TableRows) : rows;
}

t.test('blob keys decode exactly, and every encoding mints a new id', async (t) => {
  const keys = VALUES.map((v) => seriesKeyOf([1], [v]));
  const encoded = keys.map((k) => encodeKey(k) as EncodedKey);
  const blob = blobOf(encoded);
  keys.forEach((k, i) => {
    t.equal(blobKey(blob, i), k, `key ${i} decodes`);
  });
  const again = encodeKey(keys[0] as string) as EncodedKey;
  t.equal(new Set([...encoded.map((e) => e.id), again.id]).size, keys.length + 1, 'ids are never reused');
  t.same(
    [...(blob.ids ?? [])],
    encoded.map((e) => e.id),
    'the blob carries each key id',
  );
  t.equal(encodeKey('\ud800x'), null, 'a lone surrogate cannot travel in a blob');
});

/**
 * Ids as decoder threads mint them: one per (thread, key), never shared between keys of a thread;
 * each thread counts from 1, so the same number names different keys in different threads. A
 * batch comes from one thread, the next batch from the next.
 */
function mintedIds(threads: number): { next(): void; idOf: (key: string) => [number, number] } {
  const ids = new Map<string, number>();
  const minted = new Array<number>(threads).fill(0);
  let thread = 0;
  return {
    next: () => {
      thread = (thread + 1) % threads;
    },
    idOf: (key) => {
      const k = `${thread}\u0001${key}`;
      let id = ids.get(k);
      if (id === undefined) {
        minted[thread] = (minted[thread] as number) + 1;
        ids.set(k, (id = minted[thread] as number));
      }
      return [thread + 1, id];
    },
  };
}

t.test('one series per key, however the ids arrive', async (t) => {
  const namings: Array<[string, () => ReturnType<typeof mintedIds>]> = [
    ['one decoder', () => mintedIds(1)],
    ['three decoders, each with its own ids', () => mintedIds(3)],
    ['no ids (WAL replay)', () => ({ next: () => {}, idOf: () => [1, -1] })],
    [
      'some keys without ids',
      () => {
        const minted = mintedIds(2);
        return { next: minted.next, idOf: (key) => (key.length % 3 === 0 ? [1, -1] : minted.idOf(key)) };
      },
    ],
  ];
  for (const [name, naming] of namings) {
    const { next, idOf } = naming();
    const rand = prng(11);
    const m = new TableMemtable(1, 'last_row');
    const model = new Map<string, number>(); // key -> rows written
    for (let batch = 0; batch < 40; batch++) {
      const keys: string[] = [];
      for (let i = 0; i < 12; i++) {
        const ids = [1, 2, 3].filter(() => rand() < 0.6);
        keys.push(
          seriesKeyOf(
            ids,
            ids.map(() => VALUES[Math.floor(rand() * VALUES.length)] as string),
          ),
        );
      }
      const unique = [...new Set(keys)];
      next();
      const rows = rowsOf(unique, idOf, batch % 2 === 1);
      rows.timestamps = BigInt64Array.from(unique.map((_, i) => BigInt(batch * 100 + i)));
      m.append(rows);
      if (batch % 5 === 0) {
        // Some series also arrive by string key, as a batch without a blob does.
        m.append({ ...rows, seriesKeyBlob: undefined, seriesKeys: unique });
        for (const k of unique) model.set(k, (model.get(k) ?? 0) + 1);
      }
      for (const k of unique) model.set(k, (model.get(k) ?? 0) + 1);
    }
    t.equal(m.series.size, model.size, `${name}: one series per distinct key`);
    let ok = true;
    for (const [key, count] of model) if (m.series.get(key)?.count !== count) ok = false;
    t.ok(ok, `${name}: every key's rows are its own`);
    t.equal(
      m.rows,
      [...model.values()].reduce((a, b) => a + b, 0),
      `${name}: no row lost`,
    );
  }
});

t.test('a malformed key blob is refused before it reaches the WAL', async (t) => {
  const good = rowsOf([seriesKeyOf([1], ['a']), seriesKeyOf([1], ['b'])], mintedIds(1).idOf, false);
  const blob = good.seriesKeyBlob as NonNullable<TableRows['seriesKeyBlob']>;
  const check = (rows: TableRows) => problemOfBatch({ tables: [rows] });
  t.equal(check(good), null, 'a well-formed blob passes');
  t.match(
    check({ ...good, seriesKeyBlob: { ...blob, ends: Uint32Array.from([3, 2]) } }),
    /bad key blob/,
    'ends go back',
  );
  t.match(
    check({ ...good, seriesKeyBlob: { ...blob, ends: Uint32Array.from([blob.ends[0] as number, 999]) } }),
    /bad key blob/,
    'ends past the bytes',
  );
  t.match(check({ ...good, seriesKeyBlob: { ...blob, ids: new Int32Array(1) } }), /bad key blob/, 'an id missing');
  t.equal(check({ ...good, seriesKeyBlob: { bytes: blob.bytes, ends: blob.ends } }), null, 'a blob without ids passes');
  const byRef = { ...blob, refs: Uint8Array.from([0, 1]) };
  t.match(check({ ...good, seriesKeyBlob: byRef }), /bad key blob/, 'a key by reference that still has bytes');
  t.match(check({ ...good, seriesKeys: ['x', 'y'] }), /bad series keys/, 'keys sent both ways');
  t.match(
    check({ ...good, seriesKeyBlob: { ...blob, ends: new Uint32Array(1), ids: new Int32Array(1) } }),
    /bad (key blob|row series)/,
    'fewer keys than the rows name',
  );
});

t.test('key entries point each key at its series in the memtable that wrote it last, and in no other', async (t) => {
  const rand = prng(5);
  // One entry per (thread, id), as the shard's key references keep them; two threads mint ids.
  const minted = mintedIds(2);
  const entries = new Map<string, ResolvedKey>();
  const entryOf = (origin: number, id: number, key: string): ResolvedKey => {
    const name = `${origin}:${id}`;
    let e = entries.get(name);
    if (e === undefined) entries.set(name, (e = { key, seriesIn: 0, seriesIndex: 0 }));
    return e;
  };
  const memtables = [new TableMemtable(1, 'last_row'), new TableMemtable(1, 'last_row')];
  const models = [new Map<string, number>(), new Map<string, number>()];
  for (let batch = 0; batch < 60; batch++) {
    minted.next();
    const keys = [
      ...new Set(
        Array.from({ length: 10 }, () =>
          seriesKeyOf([1, 2], [VALUES[Math.floor(rand() * 4)] as string, VALUES[Math.floor(rand() * 4)] as string]),
        ),
      ),
    ];
    const rows = rowsOf(keys, minted.idOf, batch % 3 === 0);
    const blob = rows.seriesKeyBlob as NonNullable<TableRows['seriesKeyBlob']>;
    rows.resolvedKeys = keys.map((k, i) => entryOf(blob.origin as number, (blob.ids as Int32Array)[i] as number, k));
    // Memtables take turns in runs, as a shard's active memtable is replaced after a flush.
    const which = Math.floor(batch / 7) % 2;
    (memtables[which] as TableMemtable).append(rows);
    const model = models[which] as Map<string, number>;
    for (const k of keys) model.set(k, (model.get(k) ?? 0) + 1);
  }
  memtables.forEach((m, i) => {
    const model = models[i] as Map<string, number>;
    t.equal(m.series.size, model.size, `memtable ${i}: one series per distinct key`);
    let ok = true;
    for (const [key, count] of model) if (m.series.get(key)?.count !== count) ok = false;
    t.ok(ok, `memtable ${i}: every key's rows are its own`);
  });
});
