/** The memtable's string column: UTF-8 bytes in one arena, each row's value read back exactly. */
import t from 'tap';
import { StringColumn } from '../../../src/shard/memtable/string-column.js';

t.test('values of every width read back as written, across arena and row growth', async (t) => {
  const column = new StringColumn(4);
  const values = [
    '',
    'plain ascii',
    'café ünïcödé',
    '日本語のテキスト',
    'emoji 😀 and a lone surrogate \ud800 in it',
    'x'.repeat(40_000),
  ];
  const written: string[] = [];
  let rows = 0;
  let capacity = 4;
  for (let round = 0; round < 50; round++) {
    for (const v of values) {
      if (rows === capacity) {
        capacity *= 2;
        column.grow(capacity, rows);
      }
      const value = `${v}#${round}`;
      const bytes = column.set(rows, value);
      t.equal(bytes, Buffer.byteLength(value, 'utf8'), 'set reports the UTF-8 bytes it took');
      written.push(value);
      rows++;
    }
  }
  let same = 0;
  for (let row = 0; row < rows; row++) {
    // A lone surrogate has no UTF-8 form: it reads back as U+FFFD, as Buffer encodes it.
    const want = Buffer.from(written[row] as string, 'utf8').toString('utf8');
    if (column.get(row) === want) same++;
  }
  t.equal(same, rows, 'every row reads back');
  t.equal(
    column.byteLength,
    written.reduce((n, v) => n + Buffer.byteLength(v, 'utf8'), 0),
  );
});
