import t from 'tap';
import { PartSlab } from '../../../src/shared/ingest/part-slab.js';
import { blobOf, blobSlabBytes, encodeKey } from '../../../src/shared/series-key-blob.js';

t.test('a slab gives zeroed, 8-byte aligned columns that do not overlap, and refuses to overrun', async (t) => {
  const rows = 5;
  const slab = new PartSlab(PartSlab.bytes(8, rows) * 2 + PartSlab.bytes(4, rows) + PartSlab.bytes(1, rows));
  const ts = slab.i64(rows);
  const values = slab.f64(rows);
  const series = slab.u32(rows);
  const valid = slab.u8(rows);
  for (const a of [ts, values, series, valid]) {
    t.equal(a.byteOffset % 8, 0, `${a.constructor.name} aligned`);
    t.ok(
      [...a].every((v) => v === 0 || v === 0n),
      `${a.constructor.name} zeroed`,
    );
  }
  ts.fill(-1n);
  values.fill(-1);
  series.fill(0xffffffff);
  t.same([...valid], [0, 0, 0, 0, 0], 'writing the others leaves the last one as it was');
  t.equal(ts.buffer, valid.buffer, 'one buffer');
  t.throws(() => slab.u8(1), /overrun/);
  t.same(slab.values('str', 2), [null, null], 'strings are an array of their own');
});

t.test('a key blob from a slab is the blob made without one', async (t) => {
  const keys = ['a=1', 'b=ü', 'c=3'].map((k) => encodeKey(k) as NonNullable<ReturnType<typeof encodeKey>>);
  const plain = blobOf(keys, undefined, { shard: 1, byRef: true });
  // Now every key went to shard 1 once: the next blobs send them by reference.
  const again = blobOf(keys, undefined, { shard: 1, byRef: true });
  const slab = new PartSlab(blobSlabBytes(keys.length));
  const fromSlab = blobOf(keys, undefined, { shard: 1, byRef: true }, slab);
  t.same([...(fromSlab.ids ?? [])], [...(again.ids ?? [])]);
  t.same([...(fromSlab.refs ?? [])], [1, 1, 1]);
  t.same([...fromSlab.ends], [...again.ends]);
  t.equal(fromSlab.bytes.length, 0);
  t.same([...plain.ends], [3, 7, 10], 'the first blob carried the bytes');
  t.throws(
    () => blobOf(keys, undefined, { shard: 1, byRef: true }, slab),
    /overrun/,
    'the slab was sized for one blob',
  );
});
