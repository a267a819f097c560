/** `/v1/logs` over HTTP (reference §11): JSON log queries translated to SQL and pushed down. */
import http from 'node:http';
import t, { type Test } from 'tap';
import { rowsOf, type SqlBody, sql, startServer } from '../helpers/server.js';

const APP_LOGS = { catalog_name: 'greptime', schema_name: 'public', table_name: 'app_logs' };

/** Rows 1..6 are in 2024; row 7 in 2025; `live` is ten minutes old (for span-only windows). */
const ROWS: Record<string, [string, string, string | null, string, number | null]> = {
  r1: ['2024-11-07T10:00:00Z', 'web-1', 'INFO', 'request ok', 1.5],
  r2: ['2024-11-07T10:01:00Z', 'web-2', 'ERROR', 'upstream timeout', 250],
  r3: ['2024-11-07T11:00:00Z', 'web-1', 'WARN', '50% done_x', 20],
  r4: ['2024-11-07T23:59:59.999Z', 'web-3', null, "it's a \\ backslash", null],
  r5: ['2024-11-08T00:00:00Z', 'web-2', 'ERROR', 'disk full', 5],
  r6: ['2024-12-01T00:00:00Z', 'web-1', 'INFO', 'december', 7],
  r7: ['2025-01-01T00:00:00Z', 'web-3', 'DEBUG', 'new year', 0.5],
};

const sqlString = (v: string | null): string => (v === null ? 'NULL' : `'${v.replaceAll("'", "''")}'`);

interface LogsAnswer {
  status: number;
  body: SqlBody;
  text: string;
  headers: Headers;
}

async function logs(url: string, body: unknown, contentType: string | null = 'application/json'): Promise<LogsAnswer> {
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
  const res = await fetch(`${url}/v1/logs`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a framework rejection in plain text
  }
  return { status: res.status, body: parsed as SqlBody, text, headers: res.headers };
}

/** A complete request over `app_logs` in 2024 without filters; `over` replaces keys. */
function request(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    table: APP_LOGS,
    time_filter: { start: '2024' },
    limit: {},
    columns: [],
    filters: { And: [] },
    context: 'None',
    exprs: [],
    ...over,
  };
}

const single = (expr: unknown, filters: unknown[]) => ({ Single: { expr, filters } });
const named = (name: string) => ({ NamedIdent: name });
const literal = (value: string) => ({ Literal: value });

/** The keys (`r1`...) of the rows whose message is in the answer, sorted: row order is not defined. */
function keysOf(body: SqlBody): string[] {
  const names = body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name) ?? [];
  const at = names.indexOf('message');
  return rowsOf(body)
    .map((row) => Object.keys(ROWS).find((k) => ROWS[k]?.[3] === row[at]) ?? `?${JSON.stringify(row)}`)
    .sort();
}

const sortRows = (rows: unknown[][]): unknown[][] =>
  [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

t.test('/v1/logs answers structured log queries', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const url = server.url;
  const exec = async (t: Test, statement: string): Promise<void> => {
    const r = await sql(url, statement);
    t.equal(r.status, 200, statement.slice(0, 60), { body: r.text });
  };
  await exec(
    t,
    "CREATE TABLE app_logs (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, level STRING, message STRING, latency DOUBLE) WITH (append_mode='true')",
  );
  const liveMs = Date.now() - 600_000;
  const values = Object.values(ROWS).map(
    ([ts, host, level, message, latency]) =>
      `(${sqlString(ts)}, ${sqlString(host)}, ${sqlString(level)}, ${sqlString(message)}, ${latency ?? 'NULL'})`,
  );
  values.push(`(${liveMs}, 'live', 'INFO', 'live line', 1)`);
  await exec(t, `INSERT INTO app_logs (ts, host, level, message, latency) VALUES ${values.join(', ')}`);

  t.test('the reference example answers in the greptimedb_v1 shape', async (t) => {
    const r = await logs(
      url,
      request({
        time_filter: { start: '2024-11-07', end: '2024-11-07T10:53:51Z' },
        limit: { fetch: 3 },
        columns: ['ts', 'message'],
        filters: single(named('message'), [{ Contains: 'timeout' }]),
      }),
    );
    t.equal(r.status, 200, 'answers 200', { body: r.text });
    t.equal(r.headers.get('x-greptime-format'), 'greptimedb_v1');
    t.match(r.headers.get('x-greptime-execution-time'), /^\d+$/);
    t.same(r.body.output?.[0]?.records?.schema.column_schemas, [
      { name: 'ts', data_type: 'TimestampMillisecond' },
      { name: 'message', data_type: 'String' },
    ]);
    t.same(rowsOf(r.body), [[Date.parse('2024-11-07T10:01:00Z'), 'upstream timeout']]);
    t.equal(r.body.output?.[0]?.records?.total_rows, 1);
  });

  t.test('time filters select their windows', async (t) => {
    const cases: Array<[string, Record<string, string>, string[]]> = [
      ['a year', { start: '2024' }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
      ['a month', { start: '2024-11' }, ['r1', 'r2', 'r3', 'r4', 'r5']],
      ['a day', { start: '2024-11-07' }, ['r1', 'r2', 'r3', 'r4']],
      ['start and end, end exclusive', { start: '2024-11-07', end: '2024-11-07T10:01:00Z' }, ['r1']],
      ['a calendar end counts to its period end', { start: '2024-11-07T10:30:00Z', end: '2024-11-07' }, ['r3', 'r4']],
      ['start and span', { start: '2024-11-07T10:00:00Z', span: '60' }, ['r1']],
      ['end and span', { end: '2024-11-08T00:00:00Z', span: '86400' }, ['r1', 'r2', 'r3', 'r4']],
      ['a span past year 9999 is cut, not refused', { end: '2024-11-07T10:00:01Z', span: '999999999999' }, ['r1']],
      ['start and end win over span', { start: '2024-12', end: '2025-01', span: '1' }, ['r6', 'r7']],
      ['RFC 3339 offsets', { start: '2024-11-07T11:00:00+01:00', end: '2024-11-07T12:00:30+02:00' }, ['r1']],
    ];
    for (const [name, timeFilter, expected] of cases) {
      const r = await logs(url, request({ time_filter: timeFilter }));
      t.equal(r.status, 200, name, { body: r.text });
      if (r.status === 200) t.same(keysOf(r.body), expected, name);
    }
    const spanOnly = await logs(url, request({ time_filter: { span: '3600' }, columns: ['host'] }));
    t.same(rowsOf(spanOnly.body), [['live']], 'span alone looks back from now');
  });

  t.test('bad time filters are refused with 400 code 1004', async (t) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { start: '2024-11-07T00:00:00Z' },
        'Invalid time filter: TimeFilter { start: Some("2024-11-07T00:00:00Z"), end: None, span: None }',
      ],
      [{}, 'Invalid time filter: TimeFilter { start: None, end: None, span: None }'],
      [
        { end: '2024-11-07', span: null },
        'Invalid time filter: TimeFilter { start: None, end: Some("2024-11-07"), span: None }',
      ],
      [{ start: '2024-11-07', span: '1h' }, 'Invalid span format: 1h'],
      [{ span: '' }, 'Invalid span format: '],
      [{ start: 'yesterday', end: '2024-11-07' }, 'Invalid date format: yesterday'],
      [{ start: '2024-02-30' }, 'Invalid date format: 2024-02-30'],
      [
        { start: '2024-11-07', span: '-60' },
        'End time 2024-11-06T23:59:00+00:00 is before start time 2024-11-07T00:00:00+00:00',
      ],
      [
        { start: '2024-11-08', end: '2024-11-07T12:00:00.5Z' },
        'End time 2024-11-07T12:00:00.500+00:00 is before start time 2024-11-08T00:00:00+00:00',
      ],
      [
        { start: '2024-11-07T10:00:00Z', span: '0' },
        'End time 2024-11-07T10:00:00+00:00 is before start time 2024-11-07T10:00:00+00:00',
      ],
    ];
    for (const [timeFilter, message] of cases) {
      const r = await logs(url, request({ time_filter: timeFilter }));
      t.equal(r.status, 400, JSON.stringify(timeFilter));
      t.same(r.body, { code: 1004, error: message, execution_time_ms: r.body.execution_time_ms }, message);
    }
  });

  t.test('every content filter selects its rows', async (t) => {
    const gt100 = { BinaryOp: { left: named('latency'), op: 'Gt', right: literal('100') } };
    const cases: Array<[string, unknown, string[]]> = [
      ['Exact', single(named('message'), [{ Exact: 'disk full' }]), ['r5']],
      ['Exact escapes LIKE wildcards', single(named('message'), [{ Exact: '50_ done%x' }]), []],
      ['Exact with wildcard characters', single(named('message'), [{ Exact: '50% done_x' }]), ['r3']],
      ['Prefix', single(named('message'), [{ Prefix: 'up' }]), ['r2']],
      ['Postfix', single(named('message'), [{ Postfix: 'full' }]), ['r5']],
      ['Contains', single(named('message'), [{ Contains: 'e' }]), ['r1', 'r2', 'r3', 'r6']],
      ['Contains %', single(named('message'), [{ Contains: '%' }]), ['r3']],
      ['Contains _', single(named('message'), [{ Contains: '_' }]), ['r3']],
      ['Contains a backslash', single(named('message'), [{ Contains: '\\' }]), ['r4']],
      ['Contains a quote', single(named('message'), [{ Contains: "'" }]), ['r4']],
      ['Exact with quote and backslash', single(named('message'), [{ Exact: "it's a \\ backslash" }]), ['r4']],
      ['Exist', single(named('level'), ['Exist']), ['r1', 'r2', 'r3', 'r5', 'r6']],
      ['Exist as {"Exist": null}', single(named('latency'), [{ Exist: null }]), ['r1', 'r2', 'r3', 'r5', 'r6']],
      [
        'Between, start exclusive',
        single(named('latency'), [
          { Between: { start: '1.5', end: '20', start_inclusive: false, end_inclusive: true } },
        ]),
        ['r3', 'r5', 'r6'],
      ],
      [
        'Between, end exclusive',
        single(named('latency'), [
          { Between: { start: '1.5', end: '20', start_inclusive: true, end_inclusive: false } },
        ]),
        ['r1', 'r5', 'r6'],
      ],
      ['GreatThan', single(named('latency'), [{ GreatThan: { value: '20', inclusive: false } }]), ['r2']],
      [
        'GreatThan inclusive',
        single(named('latency'), [{ GreatThan: { value: '20', inclusive: true } }]),
        ['r2', 'r3'],
      ],
      ['LessThan inclusive', single(named('latency'), [{ LessThan: { value: '5', inclusive: true } }]), ['r1', 'r5']],
      [
        'LessThan on a string',
        single(named('host'), [{ LessThan: { value: 'web-2', inclusive: false } }]),
        ['r1', 'r3', 'r6'],
      ],
      ['In', single(named('host'), [{ In: ['web-2', 'web-3'] }]), ['r2', 'r4', 'r5']],
      ['In an empty list', single(named('host'), [{ In: [] }]), []],
      ['IsTrue', single(gt100, ['IsTrue']), ['r2']],
      ['IsFalse', single(gt100, ['IsFalse']), ['r1', 'r3', 'r5', 'r6']],
      ['no content filters means true', single(gt100, []), ['r2']],
      ['Equal String', single(named('host'), [{ Equal: { String: 'web-3' } }]), ['r4']],
      ['Equal Boolean', single(gt100, [{ Equal: { Boolean: true } }]), ['r2']],
      ['Equal Int', single(named('latency'), [{ Equal: { Int: 250 } }]), ['r2']],
      ['Equal UInt', single(named('latency'), [{ Equal: { UInt: 5 } }]), ['r5']],
      ['Equal Float', single(named('latency'), [{ Equal: { Float: 1.5 } }]), ['r1']],
      ['Equal negative Int', single(named('latency'), [{ Equal: { Int: -1 } }]), []],
      [
        'Compound Or',
        single(named('host'), [{ Compound: [[{ Exact: 'web-2' }, { Exact: 'web-3' }], 'Or'] }]),
        ['r2', 'r4', 'r5'],
      ],
      [
        'Compound And',
        single(named('host'), [{ Compound: [[{ Prefix: 'web' }, { Postfix: '2' }], 'And'] }]),
        ['r2', 'r5'],
      ],
      ['several content filters are ANDed', single(named('message'), [{ Contains: 'e' }, { Prefix: 'd' }]), ['r6']],
      ['PositionalIdent names a table column', single({ PositionalIdent: 1 }, [{ Exact: 'web-3' }]), ['r4']],
      [
        'ScalarFunc as the subject',
        single({ ScalarFunc: { name: 'lower', args: [named('level')], alias: null } }, [{ Exact: 'error' }]),
        ['r2', 'r5'],
      ],
    ];
    for (const [name, filters, expected] of cases) {
      const r = await logs(url, request({ filters }));
      t.equal(r.status, 200, name, { body: r.text });
      if (r.status === 200) t.same(keysOf(r.body), expected, name);
    }
  });

  t.test('And, Or and Not combine filters', async (t) => {
    const host1 = single(named('host'), [{ Exact: 'web-1' }]);
    const info = single(named('level'), [{ Exact: 'INFO' }]);
    const cases: Array<[string, unknown, string[]]> = [
      ['And', { And: [host1, info] }, ['r1', 'r6']],
      ['Or', { Or: [host1, info] }, ['r1', 'r3', 'r6']],
      ['Not (a NULL level matches neither side)', { Not: info }, ['r2', 'r3', 'r5']],
      ['Not of an empty And filters nothing', { Not: { And: [] } }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
      ['empty Or filters nothing', { Or: [] }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
      [
        'nested',
        { And: [{ Or: [host1, single(named('host'), [{ Exact: 'web-2' }])] }, { Not: info }] },
        ['r2', 'r3', 'r5'],
      ],
    ];
    for (const [name, filters, expected] of cases) {
      const r = await logs(url, request({ filters }));
      t.equal(r.status, 200, name, { body: r.text });
      if (r.status === 200) t.same(keysOf(r.body), expected, name);
    }
  });

  t.test('columns project, in the order given', async (t) => {
    const all = await logs(url, request({ time_filter: { start: '2024-11-07', end: '2024-11-07T10:00:01Z' } }));
    t.same(all.body.output?.[0]?.records?.schema.column_schemas, [
      { name: 'ts', data_type: 'TimestampMillisecond' },
      { name: 'host', data_type: 'String' },
      { name: 'level', data_type: 'String' },
      { name: 'message', data_type: 'String' },
      { name: 'latency', data_type: 'Float64' },
    ]);
    t.same(rowsOf(all.body), [[Date.parse('2024-11-07T10:00:00Z'), 'web-1', 'INFO', 'request ok', 1.5]]);
    const some = await logs(url, request({ time_filter: { start: '2024-11-07' }, columns: ['message', 'host'] }));
    t.same(sortRows(rowsOf(some.body)), [
      ['50% done_x', 'web-1'],
      ["it's a \\ backslash", 'web-3'],
      ['request ok', 'web-1'],
      ['upstream timeout', 'web-2'],
    ]);
    const unknown = await logs(url, request({ columns: ['message', 'nope'] }));
    t.equal(unknown.status, 503, 'a planning failure is 1007 External, as in GreptimeDB');
    t.equal(unknown.body.code, 1007);
    t.match(unknown.body.error, /No field named "nope"/);
  });

  t.test('limit fetches and skips', async (t) => {
    const count = async (limit: Record<string, number>): Promise<string[]> => {
      const r = await logs(url, request({ limit }));
      t.equal(r.status, 200, 'answers 200', { body: r.text });
      return keysOf(r.body);
    };
    const six = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
    const two = await count({ fetch: 2 });
    t.equal(two.length, 2);
    t.ok(two.every((k) => six.includes(k)));
    t.equal((await count({ skip: 4 })).length, 2, 'skip without fetch');
    t.equal((await count({ skip: 1, fetch: 3 })).length, 3);
    t.equal((await count({ skip: 5, fetch: 3 })).length, 1);
    t.same(await count({ fetch: 0 }), []);
    t.same(await count({ skip: 10 }), []);
  });

  t.test('fetch defaults to 1000 rows', async (t) => {
    await exec(
      t,
      "CREATE TABLE bulk_logs (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, message STRING) WITH (append_mode='true')",
    );
    const base = Date.parse('2024-03-01T00:00:00Z');
    const values = Array.from({ length: 1005 }, (_, i) => `(${base + i}, 'h${i % 7}', 'line ${i}')`);
    await exec(t, `INSERT INTO bulk_logs VALUES ${values.join(', ')}`);
    const table = { ...APP_LOGS, table_name: 'bulk_logs' };
    const r = await logs(url, request({ table, time_filter: { start: '2024-03' } }));
    t.equal(r.status, 200, 'answers 200', { body: r.text });
    t.equal(rowsOf(r.body).length, 1000);
    const more = await logs(url, request({ table, time_filter: { start: '2024-03' }, limit: { fetch: 2000 } }));
    t.equal(rowsOf(more.body).length, 1005);
  });

  t.test('exprs aggregate, compute and filter after the limit', async (t) => {
    const countByHost = {
      AggrFunc: { expr: [{ name: 'count', args: [named('message')], alias: 'n' }], by: [named('host')] },
    };
    const agg = await logs(url, request({ exprs: [countByHost] }));
    t.equal(agg.status, 200, 'answers 200', { body: agg.text });
    t.same(agg.body.output?.[0]?.records?.schema.column_schemas, [
      { name: 'host', data_type: 'String' },
      { name: 'n', data_type: 'Int64' },
    ]);
    t.same(sortRows(rowsOf(agg.body)), [
      ['web-1', 3],
      ['web-2', 2],
      ['web-3', 1],
    ]);

    const twoKeys = await logs(
      url,
      request({
        time_filter: { start: '2024-11' },
        exprs: [
          {
            AggrFunc: {
              expr: [
                { name: 'count', args: [] },
                { name: 'max', args: [named('latency')] },
              ],
              by: [named('host'), named('level')],
            },
          },
        ],
      }),
    );
    t.equal(twoKeys.status, 200, 'answers 200', { body: twoKeys.text });
    t.same(
      twoKeys.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['host', 'level', 'count(*)', 'max(latency)'],
    );
    t.same(sortRows(rowsOf(twoKeys.body)), [
      ['web-1', 'INFO', 1, 1.5],
      ['web-1', 'WARN', 1, 20],
      ['web-2', 'ERROR', 2, 250],
      ['web-3', null, 1, null],
    ]);

    const noBy = await logs(
      url,
      request({ exprs: [{ AggrFunc: { expr: [{ name: 'sum', args: [named('latency')], alias: 'total' }], by: [] } }] }),
    );
    t.same(rowsOf(noBy.body), [[283.5]]);

    const afterLimit = await logs(url, request({ limit: { fetch: 2 }, exprs: [countByHost] }));
    const counted = rowsOf(afterLimit.body).reduce((sum, row) => sum + Number(row[1]), 0);
    t.equal(counted, 2, 'aggregates see only the fetched rows');

    const filtered = await logs(
      url,
      request({
        exprs: [
          countByHost,
          {
            Filter: {
              filter: { expr: { PositionalIdent: 1 }, filters: [{ GreatThan: { value: '1', inclusive: false } }] },
            },
          },
        ],
      }),
    );
    t.same(sortRows(rowsOf(filtered.body)), [
      ['web-1', 3],
      ['web-2', 2],
    ]);

    const upper = await logs(
      url,
      request({
        time_filter: { start: '2024-11-07' },
        filters: single(named('host'), [{ Exact: 'web-2' }]),
        exprs: [{ NamedIdent: 'message' }, { ScalarFunc: { name: 'upper', args: [named('message')], alias: 'loud' } }],
      }),
    );
    t.same(upper.body.output?.[0]?.records?.schema.column_schemas, [{ name: 'loud', data_type: 'String' }]);
    t.same(rowsOf(upper.body), [['UPSTREAM TIMEOUT']]);

    const doubled = await logs(
      url,
      request({
        filters: single(named('host'), [{ Exact: 'web-2' }]),
        exprs: [{ BinaryOp: { left: named('latency'), op: 'Multiply', right: literal('2') } }],
      }),
    );
    t.same(
      doubled.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['latency * Float64(2)'],
    );
    t.same(sortRows(rowsOf(doubled.body)), [[10], [500]]);

    const aliased = await logs(
      url,
      request({
        filters: single(named('host'), [{ Exact: 'web-3' }]),
        exprs: [{ Alias: { expr: { PositionalIdent: 3 }, alias: 'line' } }],
      }),
    );
    t.same(
      aliased.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['line'],
    );
    t.same(rowsOf(aliased.body), [["it's a \\ backslash"]]);
  });

  t.test('unsupported and unknown expressions are refused', async (t) => {
    const cases: Array<[string, Record<string, unknown>, number, number, string | RegExp]> = [
      [
        'Regex',
        { filters: single(named('message'), [{ Regex: 'time.*' }]) },
        400,
        1001,
        'Unimplemented feature: regex filter',
      ],
      [
        'unknown scalar function',
        { exprs: [{ ScalarFunc: { name: 'no_such_fn', args: [named('message')] } }] },
        400,
        1004,
        'Unknown scalar function: no_such_fn',
      ],
      [
        'an aggregate used as a scalar function',
        { filters: single({ ScalarFunc: { name: 'count', args: [named('message')] } }, []) },
        400,
        1004,
        'Unknown scalar function: count',
      ],
      [
        'unknown aggregate function',
        { exprs: [{ AggrFunc: { expr: [{ name: 'lower', args: [named('message')] }], by: [] } }] },
        400,
        1004,
        'Unknown aggregate function: lower',
      ],
      [
        'Decompose',
        { exprs: [{ Decompose: { expr: named('message'), schema: 'json', fields: [['a', 'String']] } }] },
        400,
        1001,
        /^Unimplemented feature: Decompose/,
      ],
      ['a bare Literal step', { exprs: [literal('x')] }, 400, 1001, 'Unimplemented feature: log expression'],
      [
        'PositionalIdent out of range',
        { filters: single({ PositionalIdent: 9 }, ['Exist']) },
        400,
        1004,
        /out of range/,
      ],
      [
        'a catalog other than greptime',
        { table: { ...APP_LOGS, catalog_name: 'other' } },
        400,
        4001,
        'Table not found: other.public.app_logs',
      ],
      [
        'an unknown table',
        { table: { ...APP_LOGS, table_name: 'nope' } },
        400,
        4001,
        'Table not found: greptime.public.nope',
      ],
    ];
    for (const [name, over, status, code, message] of cases) {
      const r = await logs(url, request(over));
      t.equal(r.status, status, name, { body: r.text });
      t.equal(r.body.code, code, name);
      t.match(r.body.error, message, name);
      t.equal(r.headers.get('x-greptime-err-code'), String(code), name);
    }
  });

  t.test('context is accepted and ignored', async (t) => {
    for (const context of ['None', { Lines: [2, 3] }, { Seconds: [10, 10] }]) {
      const r = await logs(url, request({ context, filters: single(named('host'), [{ Exact: 'web-3' }]) }));
      t.equal(r.status, 200, 'answers 200', { body: r.text });
      t.same(keysOf(r.body), ['r4'], JSON.stringify(context));
    }
  });

  t.test('framework rejections: content type, JSON syntax, JSON shape', async (t) => {
    const noType = await logs(url, request(), null);
    t.equal(noType.status, 415);
    t.equal(noType.text, 'Expected request with `Content-Type: application/json`');
    t.equal((await logs(url, request(), 'text/plain')).status, 415);
    t.equal((await logs(url, request(), 'application/json; charset=utf-8')).status, 200);

    const syntax = await logs(url, '{"table":');
    t.equal(syntax.status, 400);
    t.match(syntax.text, /^Failed to parse the request body as JSON: /);

    for (const key of ['table', 'time_filter', 'limit', 'columns', 'filters', 'context', 'exprs']) {
      const body = request();
      delete body[key];
      const r = await logs(url, body);
      t.equal(r.status, 422, key);
      t.equal(r.text, `Failed to deserialize the JSON body into the target type: missing field \`${key}\``);
    }
    const shapes: Array<[Record<string, unknown>, string]> = [
      [{ filters: { Foo: [] } }, 'filters: unknown variant `Foo`, expected one of `Single`, `And`, `Or`, `Not`'],
      [
        { filters: single(named('host'), ['Contains']) },
        'filters.Single.filters[0]: invalid type: unit variant, expected newtype variant',
      ],
      [{ limit: { fetch: -1 } }, 'limit.fetch: invalid value: integer `-1`, expected usize'],
      [{ limit: { skip: '3' } }, 'limit.skip: invalid type: string "3", expected usize'],
      [{ context: 'Lines' }, 'context: invalid type: unit variant, expected newtype variant'],
      [{ table: { catalog_name: 'greptime', schema_name: 'public' } }, 'table: missing field `table_name`'],
      [{ columns: ['ts', 1] }, 'columns[1]: invalid type: integer `1`, expected a string'],
      [
        { exprs: [{ BinaryOp: { left: named('latency'), op: 'Pow', right: literal('2') } }] },
        'exprs[0].BinaryOp.op: unknown variant `Pow`, expected one of `Eq`, `Ne`, `Lt`, `Le`, `Gt`, `Ge`, `Plus`, `Minus`, `Multiply`, `Divide`, `Modulo`, `And`, `Or`',
      ],
    ];
    for (const [over, detail] of shapes) {
      const r = await logs(url, request(over));
      t.equal(r.status, 422, detail);
      t.equal(r.text, `Failed to deserialize the JSON body into the target type: ${detail}`);
    }
    const nulls = await logs(
      url,
      request({ time_filter: { start: '2024', end: null, span: null }, limit: { skip: null } }),
    );
    t.equal(nulls.status, 200, 'Option fields may be null');
  });

  t.test('GET with a JSON body works like POST', async (t) => {
    const payload = JSON.stringify(
      request({ columns: ['host'], filters: single(named('host'), [{ Exact: 'web-3' }]) }),
    );
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${url}/v1/logs`,
        {
          method: 'GET',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
    t.equal(answer.status, 200, 'answers 200', { body: answer.text });
    t.same(rowsOf(JSON.parse(answer.text) as SqlBody), [['web-3']]);
  });

  t.test('quotes and backslashes in names and values cannot inject SQL', async (t) => {
    // Table names allow no quotes or backslashes (as in GreptimeDB), so the table only needs quoting.
    const table = 'Weird-Logs.v1';
    const col = 'col"q\\';
    const msg = "msg'x";
    const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
    await exec(
      t,
      `CREATE TABLE ${ident(table)} (ts TIMESTAMP(3) TIME INDEX, ${ident(col)} STRING PRIMARY KEY, ${ident(msg)} STRING) WITH (append_mode='true')`,
    );
    await exec(
      t,
      `INSERT INTO ${ident(table)} VALUES ('2024-05-01T00:00:00Z', 'a''b\\c"d', 'x'' OR ''1''=''1'), ('2024-05-01T00:00:01Z', 'plain', 'other')`,
    );
    const weird = { ...APP_LOGS, table_name: table };
    const r = await logs(
      url,
      request({
        table: weird,
        time_filter: { start: '2024-05' },
        columns: [msg, col],
        filters: single(named(col), [{ Equal: { String: 'a\'b\\c"d' } }]),
      }),
    );
    t.equal(r.status, 200, 'answers 200', { body: r.text });
    t.same(
      r.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      [msg, col],
    );
    t.same(rowsOf(r.body), [["x' OR '1'='1", 'a\'b\\c"d']]);

    const contains = await logs(
      url,
      request({
        table: weird,
        time_filter: { start: '2024-05' },
        columns: [col],
        filters: single(named(msg), [{ Contains: "' OR '" }]),
      }),
    );
    t.same(rowsOf(contains.body), [['a\'b\\c"d']]);

    const attempts: Array<[string, Record<string, unknown>, number]> = [
      ['a value', { filters: single(named('host'), [{ Equal: { String: "x' OR '1'='1" } }]) }, 200],
      ['a LIKE value', { filters: single(named('host'), [{ Prefix: "x' OR host LIKE '" }]) }, 200],
      ['an In value', { filters: single(named('host'), [{ In: ["') OR ('1'='1"] }]) }, 200],
      [
        'a literal',
        { filters: single({ BinaryOp: { left: named('host'), op: 'Eq', right: literal("' OR ''='") } }, []) },
        200,
      ],
      ['a column', { columns: ['message" FROM app_logs; DROP TABLE app_logs; --'] }, 503],
      ['a table', { table: { ...APP_LOGS, table_name: 'app_logs" WHERE 1=1 --' } }, 400],
      [
        'a function name',
        { exprs: [{ ScalarFunc: { name: 'lower("message")); DROP TABLE app_logs; --', args: [] } }] },
        400,
      ],
      ['an alias', { exprs: [{ Alias: { expr: named('host'), alias: 'h" FROM app_logs; --' } }] }, 200],
    ];
    for (const [name, over, status] of attempts) {
      const a = await logs(url, request(over));
      t.equal(a.status, status, name, { body: a.text });
      if (status === 200 && name !== 'an alias') t.same(rowsOf(a.body), [], `${name} matches nothing`);
    }
    const alias = await logs(
      url,
      request({ exprs: [{ Alias: { expr: named('host'), alias: 'h" FROM app_logs; --' } }] }),
    );
    t.same(
      alias.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['h" FROM app_logs; --'],
    );
    t.equal(rowsOf(alias.body).length, 6);
    const still = await sql(url, 'SELECT count(*) FROM app_logs');
    t.same(rowsOf(still.body), [[8]], 'app_logs is untouched');
  });
});

t.test('/v1/logs needs read permission', async (t) => {
  const server = await startServer({
    shards: 1,
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=pw,reader:ro=pw,writer:wo=pw"',
  });
  t.teardown(() => server.stop());
  const basic = (user: string) => `Basic ${Buffer.from(`${user}:pw`).toString('base64')}`;
  const create = await sql(
    server.url,
    'CREATE TABLE app_logs (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, message STRING)',
    undefined,
    { authorization: basic('admin') },
  );
  t.equal(create.status, 200, 'answers 200', { body: create.text });
  const ask = async (user: string | null) => {
    const res = await fetch(`${server.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(user ? { authorization: basic(user) } : {}) },
      body: JSON.stringify(request()),
    });
    return { status: res.status, body: (await res.json()) as SqlBody };
  };
  t.equal((await ask('reader')).status, 200);
  const writer = await ask('writer');
  t.equal(writer.status, 403);
  t.equal(writer.body.code, 7006);
  const anonymous = await ask(null);
  t.equal(anonymous.status, 401);
  t.equal(anonymous.body.code, 7003);
});
