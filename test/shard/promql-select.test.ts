/**
 * The PromQL sample source over real storage: the shard-side local select (matchers, time bounds
 * per unit, NULL values, series spanning chunks, flushed and compacted data, the sample bound) and
 * the router-side `ShardSampleSource` over a real catalog and two stores, with answers crossing a
 * structured clone with transfer as they do between worker and router.
 */
import t from 'tap';
import type { PromqlShardPlan } from '../../src/query/promql/distribute/shard-plan.js';
import { selectLocal, selectLocalSeries } from '../../src/query/promql/store/local-select.js';
import { type LocalSelect, PROMQL_SHARD_PLAN_VERSION, type TableSelect } from '../../src/query/promql/store/plan.js';
import { runPromqlShardPlan } from '../../src/query/promql/store/shard-entry.js';
import type { Labels, SeriesSamples } from '../../src/query/promql/types.js';
import { Catalog } from '../../src/router/catalog.js';
import { type ShardQuery, ShardSampleSource } from '../../src/router/promql-source.js';
import type { ShardStore } from '../../src/shard/store.js';
import { encodeWriteBatch } from '../../src/shared/codec/write-batch.js';
import { DbError } from '../../src/shared/errors.js';
import type { TimeUnit } from '../../src/shared/types.js';
import { type Kinds, openStore, type TestRow, tableRows, tempDir } from './helpers.js';

const T0 = 1_700_000_000_000;

function labelText(labels: Labels): string {
  return labels.map((l) => `${l.name}=${l.value}`).join(',');
}

function plain(series: SeriesSamples[]): Array<[string, number[], number[]]> {
  return series.map((s) => [labelText(s.labels), [...s.t], [...s.v]]);
}

function table(overrides: Partial<TableSelect> = {}): TableSelect {
  return {
    tableId: 1,
    metric: 'm',
    timeUnit: 'ms',
    tags: [
      { id: 3, name: 'host' },
      { id: 4, name: 'dc' },
    ],
    value: { id: 2, kind: 'f64' },
    matchers: [],
    ...overrides,
  };
}

function local(tables: TableSelect[], minMs: number | null = null, maxMs: number | null = null): LocalSelect {
  return { tables, minMs, maxMs, samplesMax: 1_000_000, seriesMax: 0 };
}

const KINDS: Kinds = { 2: 'f64', 5: 'i64' };

async function write(store: ShardStore, tableId: number, rows: TestRow[]): Promise<void> {
  await store.write([encodeWriteBatch({ tables: [tableRows(tableId, KINDS, rows)] })]);
}

t.test('local select over one shard', async (t) => {
  const store = await openStore(tempDir(t));
  t.teardown(() => store.close());
  const rows: TestRow[] = [];
  for (let i = 0; i < 5; i++) {
    rows.push({ ts: BigInt(T0 + i * 1000), tags: { 3: 'a', 4: 'eu' }, fields: { 2: i, 5: BigInt(i * 10) } });
    rows.push({ ts: BigInt(T0 + i * 1000), tags: { 3: 'b' }, fields: { 2: i === 2 ? null : 100 + i } });
  }
  rows.push({ ts: BigInt(T0), tags: { 3: 'c', 4: 'us' }, fields: { 2: null, 5: 7n } });
  await write(store, 1, rows);

  t.test('labels are the tags plus __name__, sorted; absent tags and NULL values are left out', async (t) => {
    const series = await selectLocal(store, local([table()]));
    t.same(plain(series), [
      ['__name__=m,dc=eu,host=a', [0, 1, 2, 3, 4].map((i) => T0 + i * 1000), [0, 1, 2, 3, 4]],
      ['__name__=m,host=b', [0, 1, 3, 4].map((i) => T0 + i * 1000), [100, 101, 103, 104]],
    ]);
    t.ok(series[0]?.t instanceof Float64Array && series[0]?.v instanceof Float64Array);
    t.equal(series[0]?.t.buffer, series[1]?.t.buffer, 'series share one packed buffer');
  });

  t.test('matchers hold against absent tags as the empty string; regexes are anchored', async (t) => {
    const names = async (matchers: TableSelect['matchers']) =>
      (await selectLocalSeries(store, local([table({ matchers })]))).map(labelText);
    t.same(await names([{ columnId: 3, op: '=', value: 'a' }]), ['__name__=m,dc=eu,host=a']);
    t.same(await names([{ columnId: 4, op: '=', value: '' }]), ['__name__=m,host=b']);
    t.same(await names([{ columnId: 4, op: '!=', value: 'eu' }]), ['__name__=m,host=b']);
    t.same(await names([{ columnId: 3, op: '=~', value: 'a|b' }]), ['__name__=m,dc=eu,host=a', '__name__=m,host=b']);
    t.same(await names([{ columnId: 4, op: '=~', value: 'e' }]), [], 'anchored');
    t.same(await names([{ columnId: 4, op: '!~', value: 'e.*' }]), ['__name__=m,host=b']);
    t.same(await names([{ columnId: 3, op: '=', value: 'c' }]), [], 'a series without values is not a series here');
  });

  t.test('an Int64 field can be the value; bounds are inclusive', async (t) => {
    const series = await selectLocal(store, local([table({ value: { id: 5, kind: 'i64' } })], T0 + 1000, T0 + 3000));
    t.same(plain(series), [['__name__=m,dc=eu,host=a', [T0 + 1000, T0 + 2000, T0 + 3000], [10, 20, 30]]]);
    const c = await selectLocal(
      store,
      local([table({ value: { id: 5, kind: 'i64' }, matchers: [{ columnId: 3, op: '=', value: 'c' }] })]),
    );
    t.same(plain(c), [['__name__=m,dc=us,host=c', [T0], [7]]]);
  });

  t.test('the sample bound stops a select that would load too much', async (t) => {
    let error: unknown = null;
    try {
      await selectLocal(store, { ...local([table()]), samplesMax: 3 });
    } catch (err) {
      error = err;
    }
    t.ok(error instanceof DbError, 'a DbError');
    t.match(error, { code: 6000, message: /too many samples/ });
  });

  t.test('the series bound stops a select at the first series past it', async (t) => {
    await t.rejects(selectLocal(store, { ...local([table()]), seriesMax: 1 }), {
      code: 6000,
      message: 'query selects more than 1 series (query.max_series); narrow its selectors',
    });
    t.equal((await selectLocal(store, { ...local([table()]), seriesMax: 2 })).length, 2, 'at the bound it answers');
    t.equal(
      (
        await selectLocalSeries(store, {
          ...local([table({ matchers: [{ columnId: 3, op: '=~', value: 'b|c' }] })]),
          seriesMax: 1,
        })
      ).length,
      1,
      'a series without a sample in range does not count (c has only NULLs)',
    );
  });

  t.test('the shard entry lists every buffer to transfer and refuses unknown plans', async (t) => {
    const answer = await runPromqlShardPlan(
      { version: PROMQL_SHARD_PLAN_VERSION, op: 'select', select: local([table()]) },
      store,
    );
    t.equal(answer.transfer.length, 2);
    const copy = structuredClone(answer.value, { transfer: answer.transfer }) as SeriesSamples[];
    t.same(plain(copy), plain(await selectLocal(store, local([table()]))));
    await t.rejects(
      runPromqlShardPlan({ version: 99, op: 'select' } as unknown as PromqlShardPlan, store),
      /unsupported PromQL shard plan/,
    );
  });
});

t.test('time bounds convert per unit, whatever the table stores', async (t) => {
  const store = await openStore(tempDir(t));
  t.teardown(() => store.close());
  const units: Array<[TimeUnit, bigint]> = [
    ['s', 1n],
    ['ms', 1_000n],
    ['us', 1_000_000n],
    ['ns', 1_000_000_000n],
  ];
  // Samples at 10.0 s, 10.5 s (not for `s`), 11.0 s and 12.0 s.
  for (const [k, [unit, perSecond]] of units.entries()) {
    const times =
      unit === 's' ? [10n, 11n, 12n] : [10n * perSecond, (21n * perSecond) / 2n, 11n * perSecond, 12n * perSecond];
    await write(
      store,
      10 + k,
      times.map((ts, i) => ({ ts, tags: { 3: unit }, fields: { 2: i } })),
    );
  }
  for (const [k, [unit]] of units.entries()) {
    const tbl = table({ tableId: 10 + k, timeUnit: unit });
    const all = (await selectLocal(store, local([tbl])))[0];
    t.same(
      [...(all?.t ?? [])],
      unit === 's' ? [10_000, 11_000, 12_000] : [10_000, 10_500, 11_000, 12_000],
      `${unit}: ms`,
    );
    const some = (await selectLocal(store, local([tbl], 10_001, 11_000)))[0];
    t.same([...(some?.t ?? [])], unit === 's' ? [11_000] : [10_500, 11_000], `${unit}: [10001, 11000]`);
    const edge = (await selectLocal(store, local([tbl], 10_500, 10_500)))[0];
    t.same([...(edge?.t ?? [])], unit === 's' ? [] : [10_500], `${unit}: a single ms`);
  }
  // Sub-millisecond times floor to their millisecond, as Prometheus truncates.
  await write(store, 20, [{ ts: 1_999_999n, tags: { 3: 'x' }, fields: { 2: 1 } }]);
  const floored = (await selectLocal(store, local([table({ tableId: 20, timeUnit: 'ns' })], 1, 1)))[0];
  t.same([...(floored?.t ?? [])], [1]);
});

t.test('series spanning scan chunks, flushed and compacted, read back identically', async (t) => {
  const store = await openStore(tempDir(t), { segment: { blockRows: 256, compactionTrigger: 100 } });
  t.teardown(() => store.close());
  const seriesCount = 3000;
  const batch = (offset: number): TestRow[] => {
    const rows: TestRow[] = [];
    for (let s = 0; s < seriesCount; s++) {
      for (let i = 0; i < 2; i++) {
        rows.push({ ts: BigInt(T0 + offset + i), tags: { 3: `h${s}` }, fields: { 2: s * 10 + offset + i } });
      }
    }
    return rows;
  };
  await write(store, 1, batch(0));
  const before = plain(await selectLocal(store, local([table()])));
  t.equal(before.length, seriesCount);
  t.ok(
    before.every(([labels, ts, vs]) => {
      const s = Number(labels.slice(labels.indexOf('host=h') + 6));
      return ts.length === 2 && vs[0] === s * 10 && vs[1] === s * 10 + 1;
    }),
    'every series has exactly its own two samples',
  );
  await store.flush();
  t.same(plain(await selectLocal(store, local([table()]))), before, 'after flush');
  await write(store, 1, batch(100));
  await store.flush();
  await store.compact();
  t.equal(store.stats().segmentCount, 1, 'compacted into one segment');
  const after = plain(await selectLocal(store, local([table()])));
  t.equal(after.length, seriesCount);
  t.same(
    after.map(([l, ts]) => [l, ts]),
    before.map(([l, ts]) => [l, [...ts, T0 + 100, T0 + 101]]),
  );
});

t.test('the router source resolves names, databases and fields against the catalog', async (t) => {
  const dir = tempDir(t);
  const catalog = await Catalog.open(dir, 2);
  const stores = [await openStore(tempDir(t)), await openStore(tempDir(t))];
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  // Runs each shard's part in process and passes answers through a structured clone with
  // transfer, as the worker boundary does.
  const shards: ShardQuery = {
    async query<T>({ plan }: { plan: PromqlShardPlan }): Promise<T[]> {
      return Promise.all(
        stores.map(async (store) => {
          const answer = await runPromqlShardPlan(structuredClone(plan), store);
          return structuredClone(answer.value, { transfer: answer.transfer }) as T;
        }),
      );
    },
  };
  await catalog.createDatabase('other', {}, false);
  const metricColumns = [
    {
      name: 'greptime_timestamp',
      type: 'TimestampMillisecond' as const,
      semantic: 'TIMESTAMP' as const,
      nullable: false,
    },
    { name: 'greptime_value', type: 'Float64' as const, semantic: 'FIELD' as const, nullable: true },
    { name: 'job', type: 'String' as const, semantic: 'TAG' as const, nullable: true },
    { name: 'instance', type: 'String' as const, semantic: 'TAG' as const, nullable: true },
  ];
  const spec = (db: string, name: string) => ({
    db,
    name,
    columns: metricColumns,
    timeIndex: 'greptime_timestamp',
    primaryKey: ['job', 'instance'],
    options: {},
  });
  const up = (await catalog.createTable(spec('public', 'up'), false)).table;
  const requests = (await catalog.createTable(spec('public', 'http_requests_total'), false)).table;
  const otherUp = (await catalog.createTable(spec('other', 'up'), false)).table;
  const cpu = (
    await catalog.createTable(
      {
        db: 'public',
        name: 'cpu',
        columns: [
          { name: 'host', type: 'String', semantic: 'TAG', nullable: true },
          { name: 'note', type: 'String', semantic: 'FIELD', nullable: true },
          { name: 'user', type: 'Float64', semantic: 'FIELD', nullable: true },
          { name: 'system', type: 'Int64', semantic: 'FIELD', nullable: true },
          { name: 'ts', type: 'TimestampSecond', semantic: 'TIMESTAMP', nullable: false },
        ],
        timeIndex: 'ts',
        primaryKey: ['host'],
        options: {},
      },
      false,
    )
  ).table;
  await catalog.createTable(
    {
      db: 'public',
      name: 'logs',
      columns: [
        { name: 'message', type: 'String', semantic: 'FIELD', nullable: true },
        { name: 'ts', type: 'TimestampMillisecond', semantic: 'TIMESTAMP', nullable: false },
      ],
      timeIndex: 'ts',
      primaryKey: [],
      options: {},
    },
    false,
  );
  const metricRow = (ts: number, job: string, instance: string, value: number): TestRow => ({
    ts: BigInt(ts),
    tags: { 3: job, 4: instance },
    fields: { 2: value },
  });
  await write(stores[0] as ShardStore, up.id, [metricRow(T0, 'api', 'a:1', 1), metricRow(T0 + 1000, 'api', 'a:1', 1)]);
  await write(stores[1] as ShardStore, up.id, [metricRow(T0, 'node', 'n:1', 0)]);
  await write(stores[1] as ShardStore, requests.id, [metricRow(T0, 'api', 'a:1', 42)]);
  await write(stores[0] as ShardStore, otherUp.id, [metricRow(T0, 'other', 'o:1', 5)]);
  await (stores[0] as ShardStore).write([
    encodeWriteBatch({
      tables: [
        tableRows(cpu.id, { 2: 'str', 3: 'f64', 4: 'i64' }, [
          { ts: 1_700_000_000n, tags: { 1: 'h1' }, fields: { 2: 'x', 3: 0.25, 4: 9n } },
        ]),
      ],
    }),
  ]);

  const source = new ShardSampleSource(catalog, shards, { db: 'public' });
  const select = async (
    matchers: Array<[string, '=' | '!=' | '=~' | '!~', string]>,
    startMs = T0 - 1,
    endMs = T0 + 10_000,
  ) =>
    plain(
      await source.select({ matchers: matchers.map(([name, op, value]) => ({ name, op, value })), startMs, endMs }),
    );

  t.same(
    await select([['__name__', '=', 'up']]),
    [
      ['__name__=up,instance=a:1,job=api', [T0, T0 + 1000], [1, 1]],
      ['__name__=up,instance=n:1,job=node', [T0], [0]],
    ],
    'merged from both shards, sorted by labels',
  );
  t.same(
    (await select([['__name__', '=', 'up']], T0, T0 + 1000)).map((s) => s[1]),
    [[T0 + 1000]],
    'start is exclusive, end inclusive',
  );
  t.same(
    (await select([['job', '=', 'api']])).map((s) => s[0]),
    ['__name__=http_requests_total,instance=a:1,job=api', '__name__=up,instance=a:1,job=api'],
    'no name matcher: every table',
  );
  t.same(
    (await select([['__name__', '=~', 'http_.*|cpu']], 0, T0 * 2)).map((s) => s[0]),
    ['__name__=cpu,host=h1', '__name__=http_requests_total,instance=a:1,job=api'],
  );
  t.same(await select([['__name__', '=', 'cpu']], 0, T0 * 2), [['__name__=cpu,host=h1', [T0], [0.25]]], 'seconds → ms');
  t.same(
    await select(
      [
        ['__name__', '=', 'cpu'],
        ['__field__', '=', 'system'],
      ],
      0,
      T0 * 2,
    ),
    [['__name__=cpu,host=h1', [T0], [9]]],
  );
  t.same(await select([['__name__', '=', 'logs']], 0, T0 * 2), [], 'a table without a numeric field has no series');
  t.same(
    await select([
      ['__name__', '=', 'up'],
      ['__database__', '=', 'other'],
    ]),
    [['__name__=up,instance=o:1,job=other', [T0], [5]]],
  );
  t.same(
    await select([
      ['__name__', '=', 'up'],
      ['__schema__', '=', 'other'],
      ['__database__', '=', 'public'],
    ]).then((s) => s.length),
    1,
    '__schema__ wins',
  );
  t.same(
    await select([
      ['__name__', '=', 'up'],
      ['x_greptime_database', '=', 'nope'],
    ]),
    [],
    'unknown database: nothing',
  );
  t.same(
    await select([
      ['__name__', '=', 'up'],
      ['zone', '=~', '.+'],
    ]),
    [],
    'a label no table has',
  );
  await t.rejects(select([['job', '=~', '(']]), /invalid regular expression/);

  const series = await source.series(
    [[{ name: '__name__', op: '=', value: 'up' }], [{ name: 'job', op: '=', value: 'api' }]],
    T0,
    T0,
  );
  t.same(series.map(labelText), [
    '__name__=http_requests_total,instance=a:1,job=api',
    '__name__=up,instance=a:1,job=api',
    '__name__=up,instance=n:1,job=node',
  ]);
  t.same(await source.labelNames([], 0, T0 * 2), ['__name__', 'host', 'instance', 'job']);
  t.same(await source.labelNames([[{ name: '__name__', op: '=', value: 'cpu' }]], 0, T0 * 2), ['__name__', 'host']);
  t.same(await source.labelValues('job', [], 0, T0 * 2), ['api', 'node']);
  t.same(await source.labelValues('__name__', [], 0, T0 * 2), ['cpu', 'http_requests_total', 'up']);
  t.same(await source.labelValues('job', [[{ name: '__name__', op: '=', value: 'up' }]], T0 + 1, T0 + 5000), ['api']);

  // `up` has one series in each store: each shard stays within a bound of 1, their sum does not.
  const bounded = new ShardSampleSource(catalog, shards, {
    db: 'public',
    limits: { maxPointsPerSeries: 11_000, maxSamples: 1_000_000, maxSeries: 1 },
  });
  const upMatchers = [{ name: '__name__', op: '=' as const, value: 'up' }];
  await t.rejects(bounded.select({ matchers: upMatchers, startMs: T0 - 1, endMs: T0 + 10_000 }), {
    code: 6000,
    message: 'query selects more than 1 series (query.max_series); narrow its selectors',
  });
  t.equal(
    (await bounded.series([upMatchers], 0, T0 * 2)).length,
    2,
    'listing series is not bounded by query.max_series',
  );
});

t.test('µs and ns times convert to ms exactly without BigInt division, at and around ms boundaries', async (t) => {
  const { timeReader } = await import('../../src/query/promql/store/local-select.js');
  for (const [unit, per] of [
    ['ns', 1_000_000n],
    ['us', 1_000n],
  ] as const) {
    const values: bigint[] = [];
    for (const ms of [0n, 1n, 999n, 1_700_000_000_000n, 4_102_444_800_000n, 9_007_199_254_740n]) {
      for (const off of [0n, 1n, 127n, 128n, 129n, 255n, 256n, per / 2n, per - 1n]) values.push(ms * per + off);
    }
    for (let i = 0; i < 2000; i++) values.push(BigInt(Math.floor(Math.random() * 2 ** 52)) * 1000n + BigInt(i));
    values.push(-1n, -per, -per - 1n, -1_700_000_000_000n * per - 5n);
    const vector = { kind: 'i64' as const, values: BigInt64Array.from(values) };
    const read = timeReader(vector, unit, values.length);
    let wrong = 0;
    values.forEach((v, i) => {
      const q = v / per;
      const floor = v < 0n && q * per !== v ? q - 1n : q;
      if (read(i) !== Number(floor)) wrong++;
    });
    t.equal(wrong, 0, `${unit}: every one of ${values.length} times floors to its ms exactly`);
  }
});
