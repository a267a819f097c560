/** A payload's string columns arrive as UTF-8 bytes; ones whose lengths do not fit them are refused. */
import t from 'tap';
import { problemOfBatch } from '../../src/shard/write-batch-check.js';
import { Utf8Vector, utf8ColumnOf } from '../../src/shared/codec/utf8-column.js';
import { seriesFormOf, type TableRows } from '../../src/shared/codec/write-batch.js';

function rows(vector: TableRows['fields'][number]['vector'], n = 3): TableRows {
  return {
    tableId: 1,
    mergeMode: 'append',
    rowCount: n,
    timestamps: new BigInt64Array(n),
    ...seriesFormOf([], n),
    fields: [{ id: 2, vector }],
  };
}

t.test('a byte string column is checked against its lengths, without making strings', async (t) => {
  const good = utf8ColumnOf(['a', null, 'ü']);
  t.equal(problemOfBatch({ tables: [rows(new Utf8Vector(good, undefined))] }), null);
  const cases: Array<[string, Int32Array]> = [
    ['lengths past the bytes', Int32Array.from([1, -1, 5])],
    ['lengths short of the bytes', Int32Array.from([1, -1, 1])],
    ['a length below -1', Int32Array.from([4, -2, 1])],
    ['fewer lengths than rows', Int32Array.from([3])],
  ];
  for (const [what, lengths] of cases) {
    const bad = new Utf8Vector({ bytes: good.bytes, lengths }, undefined);
    t.match(problemOfBatch({ tables: [rows(bad)] }), /bad field column 2/, what);
  }
  t.match(
    problemOfBatch({ tables: [rows({ kind: 'str', values: ['a', 7 as unknown as string, null] })] }),
    /bad field column 2/,
    'a string array with a number in it',
  );
});
