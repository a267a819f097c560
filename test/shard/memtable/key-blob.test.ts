/**
 * Series keys sent as a blob (src/shared/series-key-blob.ts) find their series by hash and bytes.
 * Property test against a plain model: random keys (empty values, non-ASCII, the same tags in
 * another order), hashes that collide on purpose or are wrong, batches mixing blobs with string
 * keys and tag tuples, and a round trip through the write-batch codec (as the WAL stores it). Two
 * different keys must never share a series, and one key must never get two.
 */
import t from 'tap';
import { TableMemtable } from '../../../src/shard/memtable/table-memtable.js';
import { problemOfBatch } from '../../../src/shard/write-batch-check.js';
import { decodeWriteBatch, encodeWriteBatch, type TableRows } from '../../../src/shared/codec/write-batch.js';
import { seriesKeyOf } from '../../../src/shared/series-key.js';
import {
  blobKey,
  blobKeyEquals,
  blobOf,
  type EncodedKey,
  encodeKey,
  seriesKeyHash,
} from '../../../src/shared/series-key-blob.js';
import { prng } from '../../helpers/prng.js';

const VALUES = ['a', 'b', '', 'é', '日本', 'a b', '😀', 'ab', 'a,1:b'];

function rowsOf(keys: string[], hashOf: (key: string) => number, viaCodec: boolean): TableRows {
  const encoded = keys.map((k) => {
    const e = encodeKey(k) as EncodedKey;
    return { utf8: e.utf8, hash: hashOf(k) };
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

t.test('blob keys compare and decode exactly', async (t) => {
  const keys = VALUES.map((v) => seriesKeyOf([1], [v]));
  const blob = blobOf(keys.map((k) => encodeKey(k) as EncodedKey));
  keys.forEach((k, i) => {
    t.equal(blobKey(blob, i), k, `key ${i} decodes`);
    t.ok(blobKeyEquals(blob, i, k), `key ${i} equals itself`);
    for (const other of keys) if (other !== k) t.notOk(blobKeyEquals(blob, i, other), `key ${i} is not ${other}`);
  });
  t.equal(encodeKey('\ud800x'), null, 'a lone surrogate cannot travel in a blob');
});

t.test('one series per key, however the hashes fall', async (t) => {
  const hashings: Array<[string, (key: string) => number]> = [
    ['true hashes', seriesKeyHash],
    ['every hash the same', () => 7],
    ['wrong hashes', (k) => (seriesKeyHash(k) + 1) >>> 0],
    ['two buckets', (k) => k.length % 2],
  ];
  for (const [name, hashOf] of hashings) {
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
      const rows = rowsOf(unique, hashOf, batch % 2 === 1);
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
    for (const [key, count] of model) if (m.series.get(key)?.rows.length !== count) ok = false;
    t.ok(ok, `${name}: every key's rows are its own`);
    t.equal(
      m.rows,
      [...model.values()].reduce((a, b) => a + b, 0),
      `${name}: no row lost`,
    );
  }
});

t.test('a malformed key blob is refused before it reaches the WAL', async (t) => {
  const good = rowsOf([seriesKeyOf([1], ['a']), seriesKeyOf([1], ['b'])], seriesKeyHash, false);
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
  t.match(check({ ...good, seriesKeyBlob: { ...blob, hashes: new Uint32Array(1) } }), /bad key blob/, 'a hash missing');
  t.match(check({ ...good, seriesKeys: ['x', 'y'] }), /bad series keys/, 'keys sent both ways');
  t.match(
    check({ ...good, seriesKeyBlob: { ...blob, ends: new Uint32Array(1), hashes: new Uint32Array(1) } }),
    /bad (key blob|row series)/,
    'fewer keys than the rows name',
  );
});
