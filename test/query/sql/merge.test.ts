import t from 'tap';
import { tableRowsNow } from '../../../src/query/columns.js';
import { mergeShardResults } from '../../../src/query/sql/exec/merge.js';
import { runShardPlan } from '../../../src/query/sql/exec/shard-exec.js';
import { parseSql } from '../../../src/query/sql/parse/parser.js';
import type { SqlEnv } from '../../../src/query/sql/plan/env.js';
import { planQuery } from '../../../src/query/sql/plan/planner.js';
import { TimeSlice } from '../../../src/shared/time-slice.js';
import type { TableSchema } from '../../../src/shared/types.js';
import { arraySource, type Row } from './helpers/array-source.js';

const TABLE: TableSchema = {
  id: 7,
  db: 'public',
  name: 'm',
  columns: [
    { id: 1, name: 'host', type: 'String', semantic: 'TAG', nullable: true },
    { id: 2, name: 'ts', type: 'TimestampMillisecond', semantic: 'TIMESTAMP', nullable: false },
    { id: 3, name: 'v', type: 'Float64', semantic: 'FIELD', nullable: true },
    { id: 4, name: 'n', type: 'Int64', semantic: 'FIELD', nullable: true },
    { id: 5, name: 'k', type: 'Int32', semantic: 'FIELD', nullable: true },
  ],
  timeIndex: 'ts',
  primaryKey: ['host'],
  options: {},
  nextColumnId: 6,
  createdAtMs: 0,
};

const env = {
  getDatabase: (name: string) => (name === 'public' ? { name, options: {}, createdAtMs: 0 } : undefined),
  getTable: (db: string, name: string) => (db === 'public' && name === 'm' ? TABLE : undefined),
} as unknown as SqlEnv;

/** Deterministic pseudo-random rows; values are multiples of 0.5 so float sums are exact in any order. */
function makeRows(count: number, seed: number): Row[] {
  let x = seed;
  const next = (): number => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x;
  };
  const hosts = ['a', 'b', 'c', null];
  return Array.from({ length: count }, (_, i) => ({
    host: hosts[next() % hosts.length] ?? null,
    ts: BigInt(i * 1000),
    v: next() % 7 === 0 ? null : (next() % 200) / 2 - 50,
    n: next() % 5 === 0 ? null : BigInt(next() % 1000) - 500n,
    k: next() % 4,
  }));
}

async function execute(sql: string, shards: Row[][]): Promise<unknown[][]> {
  const statement = parseSql(sql)[0];
  if (statement?.kind !== 'query') throw new Error('not a query');
  const plan = planQuery(statement.query, { db: 'public', timezone: 'UTC' }, env, 0n);
  const results = await Promise.all(
    shards.map(async (rows) =>
      structuredClone(await runShardPlan(structuredClone(plan.shard), arraySource(TABLE, rows))),
    ),
  );
  // A 0 ms slice yields at every check: the merge must not depend on running in one go.
  const merged = await mergeShardResults(plan.merge, results, { nowNanos: 0n, timezone: 'UTC' }, new TimeSlice(0));
  return tableRowsNow(merged);
}

const QUERIES = [
  'SELECT count(*), count(v), sum(v), avg(v), min(v), max(v), sum(n), min(n), max(n), avg(n), sum(k) FROM m',
  'SELECT host, count(*), sum(v), avg(n), min(k), max(ts) FROM m GROUP BY host ORDER BY host',
  'SELECT k, host, count(*) AS c FROM m WHERE v > 0 GROUP BY k, host ORDER BY c DESC, k, host',
  'SELECT host, count(DISTINCT k), count(DISTINCT n), sum(DISTINCT k) FROM m GROUP BY host ORDER BY host',
  'SELECT k % 2 AS parity, avg(v) FROM m GROUP BY parity ORDER BY 1',
  'SELECT host, sum(n) FROM m GROUP BY host HAVING count(*) > 20 ORDER BY sum(n) LIMIT 2',
  'SELECT DISTINCT host, k FROM m ORDER BY host, k',
  'SELECT count(*) FROM m WHERE v IS NULL',
  'SELECT max(v) - min(v), count(*) * 2 FROM m WHERE host IS NOT NULL',
  'SELECT host, ts, v FROM m WHERE k = 1 ORDER BY v DESC, ts LIMIT 7 OFFSET 3',
  'SELECT host, ts, v FROM m WHERE n > 100',
];

for (const sql of QUERIES) {
  t.test(`merging two shards' partial results equals evaluating all rows in one: ${sql}`, async (t) => {
    const rows = makeRows(240, 42);
    const left = rows.filter((_, i) => i % 3 === 0);
    const right = rows.filter((_, i) => i % 3 !== 0);
    const single = await execute(sql, [rows]);
    t.ok(single.length > 0, 'the query returns rows');
    t.same(await execute(sql, [left, right]), single);
    t.same(await execute(sql, [right, [], left]), single, 'shard order and empty shards do not matter');
  });
}

t.test('an aggregate without GROUP BY yields one row even when no shard has rows', async (t) => {
  t.same(await execute('SELECT count(*), sum(v), max(host) FROM m', [[], []]), [[0n, null, null]]);
  t.same(await execute('SELECT host, count(*) FROM m GROUP BY host', [[], []]), []);
});

t.test('Int64 sums wrap around like GreptimeDB', async (t) => {
  const rows: Row[] = [
    { host: 'a', ts: 1n, v: 0, n: 4611686018427387904n, k: 0 },
    { host: 'b', ts: 2n, v: 0, n: 4611686018427388904n, k: 0 },
    { host: 'c', ts: 3n, v: 0, n: 1n, k: 0 },
  ];
  t.same(await execute('SELECT sum(n) FROM m', [rows.slice(0, 1), rows.slice(1)]), [[-9223372036854774807n]]);
});

t.test('rows without ORDER BY come back in primary key then time order across shards', async (t) => {
  const rows = makeRows(30, 7);
  const out = await execute('SELECT host, ts FROM m', [
    rows.filter((r) => r.host === 'b' || r.host === null),
    rows.filter((r) => r.host === 'a' || r.host === 'c'),
  ]);
  const expected = [...rows]
    .sort((x, y) => {
      const hx = x.host as string | null;
      const hy = y.host as string | null;
      if (hx !== hy) return hx === null ? -1 : hy === null ? 1 : hx < hy ? -1 : 1;
      return Number((x.ts as bigint) - (y.ts as bigint));
    })
    .map((r) => [r.host, r.ts]);
  t.same(out, expected);
});

t.test('a LIMIT without ORDER BY returns the first rows in scan order', async (t) => {
  const rows = makeRows(50, 3).map((r) => ({ ...r, host: 'a' }));
  t.same(await execute('SELECT ts FROM m LIMIT 3', [rows.slice(0, 25), rows.slice(25)]), [[0n], [1000n], [2000n]]);
});

t.test('a large ORDER BY ... LIMIT keeps only the top rows in each shard and stays exact', async (t) => {
  const rows = makeRows(12000, 11);
  const left = rows.filter((_, i) => i % 2 === 0);
  const right = rows.filter((_, i) => i % 2 === 1);
  const expected = rows
    .filter((r) => r.n !== null)
    .sort((x, y) => Number((y.n as bigint) - (x.n as bigint)) || Number((x.ts as bigint) - (y.ts as bigint)))
    .slice(2, 7)
    .map((r) => [r.n, r.ts]);
  t.same(
    await execute('SELECT n, ts FROM m WHERE n IS NOT NULL ORDER BY n DESC, ts LIMIT 5 OFFSET 2', [left, right]),
    expected,
  );
});

t.test('rows already in order pass through uncopied, cut to their count', async (t) => {
  const rows = makeRows(12, 3);
  const statement = parseSql('SELECT ts, v FROM m ORDER BY ts')[0];
  if (statement?.kind !== 'query') throw new Error('not a query');
  const plan = planQuery(statement.query, { db: 'public', timezone: 'UTC' }, env, 0n);
  const result = structuredClone(await runShardPlan(structuredClone(plan.shard), arraySource(TABLE, rows))) as {
    kind: string;
    rowCount: number;
    columns: Array<{ kind: string; values: ArrayLike<unknown>; valid?: Uint8Array } | unknown[]>;
  };
  const ctx = { nowNanos: 0n, timezone: 'UTC' };
  const exact = await mergeShardResults(plan.merge, [structuredClone(result)], ctx, new TimeSlice(0));
  // A shard's vectors may be longer than its rows (buffers with room to spare): the merge must cut them.
  for (const c of result.columns) {
    if (Array.isArray(c) || !ArrayBuffer.isView(c.values)) continue;
    const longer = new (c.values.constructor as new (n: number) => Float64Array)(c.values.length + 5);
    longer.set(c.values as Float64Array);
    c.values = longer;
    if (c.valid) c.valid = Uint8Array.from([...c.valid, 1, 1, 1, 1, 1]);
  }
  const padded = await mergeShardResults(plan.merge, [result], ctx, new TimeSlice(0));
  t.equal(padded.rowCount, 12);
  for (const c of padded.columns) t.equal(Array.isArray(c) ? c.length : c.values.length, 12, 'no spare values');
  t.same(tableRowsNow(padded), tableRowsNow(exact));
  t.same(
    tableRowsNow(exact).map((r) => r[0]),
    rows.map((r) => r.ts),
    'in time order',
  );
});

t.test("a sole shard sends its rows in final order, without the sort's hidden columns", async (t) => {
  const rows = makeRows(240, 11);
  for (const sql of [
    'SELECT ts, v FROM m WHERE k = 1 ORDER BY v DESC LIMIT 7 OFFSET 3',
    'SELECT ts, v FROM m ORDER BY ts DESC LIMIT 5 OFFSET 2',
    'SELECT v FROM m WHERE host = $1 ORDER BY ts'.replace('$1', "'a'"),
    'SELECT host, ts, v FROM m WHERE n > 100',
  ]) {
    const statement = parseSql(sql)[0];
    if (statement?.kind !== 'query') throw new Error('not a query');
    const plan = planQuery(statement.query, { db: 'public', timezone: 'UTC' }, env, 0n);
    const output = plan.shard.output;
    if (output.kind !== 'rows') throw new Error('not a rows plan');
    const result = structuredClone(
      await runShardPlan(structuredClone({ ...plan.shard, sole: true }), arraySource(TABLE, rows)),
    );
    if (result.kind !== 'rows') throw new Error('not rows');
    t.equal(result.final, true, `${sql}: final`);
    t.equal(result.columns.length, output.visible, `${sql}: the visible columns only`);
    t.ok((output.visible ?? 0) < output.exprs.length, `${sql}: the plan had hidden sort columns`);
    const merged = await mergeShardResults(plan.merge, [result], { nowNanos: 0n, timezone: 'UTC' }, new TimeSlice(0));
    t.same(tableRowsNow(merged), await execute(sql, [rows.slice(0, 100), rows.slice(100)]), `${sql}: same answer`);
  }
});
