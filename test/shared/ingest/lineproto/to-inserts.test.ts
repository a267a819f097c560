/** Parsed points → one column-wise TableInsert per measurement. */
import t from 'tap';
import { ErrorCode } from '../../../../src/shared/errors.js';
import { LineCaches, type Precision, parseLineProtocol } from '../../../../src/shared/ingest/lineproto/parser.js';
import { TIME_INDEX_COLUMN, toTableInserts } from '../../../../src/shared/ingest/lineproto/to-inserts.js';
import type { InsertColumn, TableInsert } from '../../../../src/shared/insert.js';
import { shardOfSeries, tableHash } from '../../../../src/shared/partition.js';

const NOW_NS = 1_700_000_123_456_789_012n;
/** One cache for the whole file, as a decoding thread keeps one across requests. */
const caches = new LineCaches();

const inserts = (text: string, precision: Precision = 'ns', nowNs = NOW_NS): TableInsert[] =>
  toTableInserts(parseLineProtocol(Buffer.from(text), precision, caches), 'public', precision, nowNs);

const column = (insert: TableInsert | undefined, name: string): InsertColumn => {
  const c = insert?.columns.find((col) => col.name === name);
  if (c === undefined) throw new Error(`no column ${name}`);
  return c;
};

/** Column values as a plain array, NULL rows as null. */
function valuesOf(c: InsertColumn): unknown[] {
  const { values, valid } = c.vector;
  return Array.from(values as ArrayLike<unknown>, (v, i) => (valid !== undefined && valid[i] === 0 ? null : v));
}

t.test('one insert per measurement, in first-seen order, with the request database', async (t) => {
  const result = toTableInserts(
    parseLineProtocol(Buffer.from('cpu v=1 1\nmem u=2 2\ncpu v=3 3'), 'ns', caches),
    'metrics',
    'ns',
    NOW_NS,
  );
  t.same(
    result.map((i) => [i.db, i.table, i.rowCount]),
    [
      ['metrics', 'cpu', 2],
      ['metrics', 'mem', 1],
    ],
  );
  t.same(toTableInserts({ points: [] }, 'public', 'ns', NOW_NS), [], 'no points, no inserts');
});

t.test('columns follow GreptimeDB order: first row tags, fields, time index, then later columns', async (t) => {
  const [cpu] = inserts('cpu,host=a,dc=x usage=0.5,n=3i,ok=true 1000\ncpu,host=b,rack=r1 usage=1,extra="s" 2000');
  t.same(
    cpu?.columns.map((c) => [c.name, c.semantic, c.type, c.vector.kind]),
    [
      ['host', 'TAG', 'String', 'str'],
      ['dc', 'TAG', 'String', 'str'],
      ['usage', 'FIELD', 'Float64', 'f64'],
      ['n', 'FIELD', 'Int64', 'i64'],
      ['ok', 'FIELD', 'Boolean', 'bool'],
      [TIME_INDEX_COLUMN, 'TIMESTAMP', 'TimestampNanosecond', 'i64'],
      ['rack', 'TAG', 'String', 'str'],
      ['extra', 'FIELD', 'String', 'str'],
    ],
  );
});

t.test('every field kind lands in its typed vector', async (t) => {
  const [m] = inserts(
    'm f=1.5,i=-7i,u=18446744073709551615u,s="x",b=t 1\nm f=2,i=9223372036854775807i,u=0u,s="",b=false 2',
  );
  t.same(valuesOf(column(m, 'f')), [1.5, 2]);
  t.ok(column(m, 'f').vector.values instanceof Float64Array);
  t.same(valuesOf(column(m, 'i')), [-7n, 9223372036854775807n]);
  t.ok(column(m, 'i').vector.values instanceof BigInt64Array);
  t.same(valuesOf(column(m, 'u')), [18446744073709551615n, 0n]);
  t.ok(column(m, 'u').vector.values instanceof BigUint64Array);
  t.same(valuesOf(column(m, 's')), ['x', '']);
  t.same(valuesOf(column(m, 'b')), [1, 0]);
  t.ok(column(m, 'b').vector.values instanceof Uint8Array);
});

t.test('a row lacking a tag or field reads NULL; complete columns carry no validity array', async (t) => {
  const [m] = inserts('m,a=1 f=1,s="x",flag=t,i=1i 1\nm,b=2 g=2 2\nm,a=3 f=3 3');
  t.same(valuesOf(column(m, 'a')), ['1', null, '3']);
  t.same(valuesOf(column(m, 'b')), [null, '2', null]);
  t.same(valuesOf(column(m, 'f')), [1, null, 3]);
  t.same(valuesOf(column(m, 'g')), [null, 2, null]);
  t.same(valuesOf(column(m, 's')), ['x', null, null]);
  t.same(valuesOf(column(m, 'flag')), [1, null, null]);
  t.same(valuesOf(column(m, 'i')), [1n, null, null]);
  const [full] = inserts('m f=1,i=1i 1\nm f=2,i=2i 2');
  t.equal(column(full, 'f').vector.valid, undefined);
  t.equal(column(full, 'i').vector.valid, undefined);
});

t.test('timestamps are scaled exactly to nanoseconds for every precision', async (t) => {
  const cases: Array<[Precision, string, bigint]> = [
    ['ns', '1451606400000000001', 1451606400000000001n],
    ['us', '1451606400000001', 1451606400000001000n],
    ['ms', '1700000000000', 1700000000000000000n],
    ['s', '-5', -5_000_000_000n],
    ['m', '2', 120_000_000_000n],
    ['h', '1', 3_600_000_000_000n],
  ];
  for (const [precision, raw, nanos] of cases) {
    const [m] = inserts(`m v=1 ${raw}`, precision);
    t.same(valuesOf(column(m, TIME_INDEX_COLUMN)), [nanos], precision);
  }
});

t.test('a line without timestamp gets now, truncated to the request precision', async (t) => {
  t.same(valuesOf(column(inserts('m v=1', 'ns')[0], TIME_INDEX_COLUMN)), [NOW_NS]);
  t.same(valuesOf(column(inserts('m v=1', 'ms')[0], TIME_INDEX_COLUMN)), [1_700_000_123_456_000_000n]);
  t.same(valuesOf(column(inserts('m v=1', 's')[0], TIME_INDEX_COLUMN)), [1_700_000_123_000_000_000n]);
});

t.test('precision m or h without a timestamp is rejected', async (t) => {
  const batch = {
    points: [
      {
        measurement: 'm',
        tagKeys: [],
        tagValues: [],
        fieldKeys: ['v'],
        fieldKinds: ['float' as const],
        fieldValues: [1],
        timestamp: null,
        line: 3,
      },
    ],
  };
  t.throws(() => toTableInserts(batch, 'public', 'h', NOW_NS), {
    code: ErrorCode.InvalidArguments,
    message: /line 3: a timestamp is required with precision m or h/,
  });
});

t.test('a timestamp overflowing i64 nanoseconds is rejected', async (t) => {
  t.throws(() => inserts('m v=1 9223372037', 's'), {
    code: ErrorCode.InvalidArguments,
    message: /^Timestamp overflow: timestamp 9223372037 overflow with precision s/,
  });
  t.throws(() => inserts('m v=1 -153722867281', 'm'), { message: /^Timestamp overflow/ });
  t.same(valuesOf(column(inserts('m v=1 9223372036', 's')[0], TIME_INDEX_COLUMN)), [9_223_372_036_000_000_000n]);
});

t.test('one field with two kinds in one table rejects the request with type codes', async (t) => {
  const conflicts: Array<[string, string]> = [
    ['m v=1 1\nm v=2i 2', 'Column: v, datatype incompatible, expected: 10, actual: 4'],
    ['m v=1i 1\nm v=2u 2', 'Column: v, datatype incompatible, expected: 4, actual: 8'],
    ['m v="a" 1\nm v=t 2', 'Column: v, datatype incompatible, expected: 12, actual: 0'],
    ['m v=t 1\nm v=1 2', 'Column: v, datatype incompatible, expected: 0, actual: 10'],
  ];
  for (const [text, message] of conflicts) t.throws(() => inserts(text), { code: ErrorCode.InvalidArguments, message });
});

t.test('the same field with different kinds in different tables is fine', async (t) => {
  t.same(
    inserts('a v=1 1\nb v=1i 1').map((i) => column(i, 'v').type),
    ['Float64', 'Int64'],
  );
});

t.test('a key used as both tag and field in one table is rejected', async (t) => {
  t.throws(() => inserts('m,k=a v=1 1\nm k=2 2'), {
    code: ErrorCode.InvalidArguments,
    message: 'Column: k, datatype incompatible, expected: 12, actual: 10',
  });
  t.throws(() => inserts('m,k=a k="s" 1'), {
    code: ErrorCode.InvalidArguments,
    message: 'Column: k, semantic_type incompatible, expected: 0, actual: 1',
  });
  t.throws(() => inserts('m k="s" 1\nm,k=a v=1 2'), {
    code: ErrorCode.InvalidArguments,
    message: 'Column: k, semantic_type incompatible, expected: 1, actual: 0',
  });
});

t.test('a tag or field named like the time index is rejected', async (t) => {
  t.throws(() => inserts(`m ${TIME_INDEX_COLUMN}=1 1`), {
    code: ErrorCode.InvalidArguments,
    message: `Column: ${TIME_INDEX_COLUMN}, datatype incompatible, expected: 10, actual: 18`,
  });
  t.throws(() => inserts(`m v=1 1\nm,${TIME_INDEX_COLUMN}=x v=1 2`), {
    message: `Column: ${TIME_INDEX_COLUMN}, datatype incompatible, expected: 18, actual: 12`,
  });
});

t.test('rows of many series keep their own tag values (shared key arrays are not confused)', async (t) => {
  const lines: string[] = [];
  for (let step = 0; step < 3; step++)
    for (let h = 0; h < 20; h++) lines.push(`cpu,host=h${h} v=${h},w=${step}i ${step}`);
  const [cpu] = inserts(lines.join('\n'));
  t.equal(cpu?.rowCount, 60);
  t.same(
    valuesOf(column(cpu, 'host')),
    lines.map((_, i) => `h${i % 20}`),
  );
  t.same(
    valuesOf(column(cpu, 'w')),
    lines.map((_, i) => BigInt(Math.floor(i / 20))),
  );
});

t.test('series form: tuples and shards are those of the partition function, whatever was cached', async (t) => {
  // Parsed points carry the parser's series records, which keep a tuple and shard between calls:
  // another database, shard count or tag layout must never reuse them.
  const cases: Array<{ text: string; db: string; shards: number }> = [
    { text: 'sf,a=x,b=y v=1 1\nsf,b=z v=2 1\nsf,a=q v=3 1', db: 'public', shards: 2 },
    { text: 'sf,a=x,b=y v=1 2\nsf,b=z v=2 2\nsf,a=q v=3 2', db: 'other', shards: 2 },
    { text: 'sf,a=x,b=y v=1 3\nsf,b=z v=2 3\nsf,a=q v=3 3', db: 'other', shards: 7 },
    // Without the `a=q` line the table's tag columns are the same; with `c` they grow.
    { text: 'sf,a=x,b=y v=1 4\nsf,b=z,c=w v=2 4', db: 'other', shards: 7 },
    { text: 'sf,a=x,b=y v=1 5\nsf,b=z v=2 5', db: 'other', shards: 7 },
  ];
  for (const { text, db, shards } of cases) {
    const [insert] = toTableInserts(parseLineProtocol(Buffer.from(text), 'ns', caches), db, 'ns', NOW_NS, shards);
    const series = insert?.series;
    if (!insert || !series) throw new Error('no series form');
    const tagNames = insert.columns
      .filter((c) => c.semantic === 'TAG')
      .map((c) => c.name)
      .sort();
    const lines = text.split('\n');
    t.equal(series.tuples.length, lines.length, `one series per line (${db}, ${shards} shards)`);
    lines.forEach((line, k) => {
      const tags = new Map(
        line
          .split(' ')[0]
          ?.split(',')
          .slice(1)
          .map((kv) => kv.split('=') as [string, string]),
      );
      const expected = tagNames.map((n) => tags.get(n) ?? null);
      t.same(series.tuples[k], expected, `tuple of ${line} in ${db}`);
      t.equal(series.shards[k], shardOfSeries(tableHash(db, 'sf'), tagNames, expected, shards), `shard of ${line}`);
    });
  }
});
