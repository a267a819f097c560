/**
 * Every /v1/sql output format over real HTTP (reference §4.1, §4.2): byte-exact bodies for
 * records, DML, empty results and awkward values, each read back by its real consumer (Arrow with
 * apache-arrow, CSV with csv-parse, JSON with JSON.parse), plus epoch, limit, compression and the
 * multi-statement refusals.
 */

import { decompress as zstdDecompressReference, init as zstdInit } from '@bokuweb/zstd-wasm';
import {
  CompressionType,
  compressionRegistry,
  type Table,
  TimeUnit,
  Type,
  tableFromIPC,
  type Vector,
} from 'apache-arrow';
import { parse as parseCsv } from 'csv-parse/sync';
import t from 'tap';
import { lz4FrameDecompress } from '../../src/router/respond/lz4-frame.js';
import { parseJsonExact } from '../helpers/json.js';
import { sql, startServer } from '../helpers/server.js';

interface Answer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** `x-greptime-execution-time`, which the bodies that carry a time must repeat. */
  ms: string;
}

/** POSTs `sql` (and `form` fields) as a form, with `params` in the URL. */
async function query(
  url: string,
  statement: string,
  params: Record<string, string> = {},
  form: Record<string, string> = {},
): Promise<Answer> {
  const qs = new URLSearchParams(params).toString();
  const res = await fetch(`${url}/v1/sql${qs ? `?${qs}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: statement, ...form }).toString(),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    text: Buffer.from(bytes).toString('utf8'),
    ms: res.headers.get('x-greptime-execution-time') ?? 'missing',
  };
}

const CSV_OPTIONS = { record_delimiter: '\r\n' as const, relax_column_count: true };

/** Raw stored values of a column (BigInts stay exact; Arrow's `get` turns timestamps into ms floats). */
function rawValues(vector: Vector | null): unknown[] {
  if (!vector) throw new Error('missing column');
  return Array.from(vector.data[0]?.values ?? []);
}

function typeNames(table: Table): string[] {
  return table.schema.fields.map((f) => `${f.name}:${String(f.type)}`);
}

const server = await startServer({ shards: 2 });
t.teardown(() => server.stop());
const url = server.url;

async function setup(statement: string): Promise<void> {
  const r = await sql(url, statement);
  if (r.status !== 200) throw new Error(`${statement}: ${r.text}`);
}

await setup(
  'CREATE TABLE metrics (ts TIMESTAMP TIME INDEX, host STRING, cpu DOUBLE, n BIGINT, ok BOOLEAN, PRIMARY KEY (host))',
);
await setup(`INSERT INTO metrics (ts, host, cpu, n, ok) VALUES
  (1700000000000, 'web-1', 0.5, 3, true),
  (1700000005000, 'a,"b"', 1, NULL, false),
  (1700000010000, 'é', NULL, 9007199254740993, NULL)`);
await setup('CREATE TABLE sink (ts TIMESTAMP TIME INDEX, v DOUBLE)');

const RECORDS_SQL = 'SELECT host, cpu, n, ok, ts FROM metrics ORDER BY ts';
const EMPTY_SQL = "SELECT host, cpu FROM metrics WHERE host = 'nobody'";

t.test('every format answers a records result byte-exact, with its format and time headers', async (t) => {
  const expectFormat = (a: Answer, header: string, contentType: string) => {
    t.equal(a.status, 200, a.text);
    t.equal(a.headers.get('x-greptime-format'), header);
    t.equal(a.headers.get('content-type'), contentType);
    t.match(a.ms, /^\d+$/);
  };

  const v1 = await query(url, RECORDS_SQL);
  expectFormat(v1, 'greptimedb_v1', 'application/json');
  t.equal(
    v1.text,
    '{"output":[{"records":{"schema":{"column_schemas":[{"name":"host","data_type":"String"},' +
      '{"name":"cpu","data_type":"Float64"},{"name":"n","data_type":"Int64"},{"name":"ok","data_type":"Boolean"},' +
      '{"name":"ts","data_type":"TimestampMillisecond"}]},"rows":[["web-1",0.5,3,true,1700000000000],' +
      '["a,\\"b\\"",1.0,null,false,1700000005000],["é",null,9007199254740993,null,1700000010000]],' +
      `"total_rows":3}}],"execution_time_ms":${v1.ms}}`,
  );

  const influx = await query(url, RECORDS_SQL, { format: 'influxdb_v1' });
  expectFormat(influx, 'influxdb_v1', 'application/json');
  t.equal(
    influx.text,
    '{"results":[{"statement_id":0,"series":[{"name":"","columns":["host","cpu","n","ok","ts"],' +
      '"values":[["web-1",0.5,3,true,1700000000000],["a,\\"b\\"",1.0,null,false,1700000005000],' +
      `["é",null,9007199254740993,null,1700000010000]]}]}],"execution_time_ms":${influx.ms}}`,
  );
  t.same(parseJsonExact(influx.text), {
    results: [
      {
        statement_id: 0,
        series: [
          {
            name: '',
            columns: ['host', 'cpu', 'n', 'ok', 'ts'],
            values: [
              ['web-1', 0.5, 3, true, 1700000000000],
              ['a,"b"', 1, null, false, 1700000005000],
              ['é', null, '9007199254740993', null, 1700000010000],
            ],
          },
        ],
      },
    ],
    execution_time_ms: Number(influx.ms),
  });

  const dataLines =
    'web-1,0.5,3,true,1700000000000\r\n' +
    '"a,""b""",1.0,,false,1700000005000\r\n' +
    'é,,9007199254740993,,1700000010000\r\n';
  const csv = await query(url, RECORDS_SQL, { format: 'csv' });
  expectFormat(csv, 'csv', 'text/csv; charset=utf-8');
  t.equal(csv.text, dataLines);
  const parsedRows = [
    ['web-1', '0.5', '3', 'true', '1700000000000'],
    ['a,"b"', '1.0', '', 'false', '1700000005000'],
    ['é', '', '9007199254740993', '', '1700000010000'],
  ];
  t.same(parseCsv(csv.text, CSV_OPTIONS), parsedRows);

  const withNames = await query(url, RECORDS_SQL, { format: 'csvWithNames' });
  expectFormat(withNames, 'csv', 'text/csv; charset=utf-8');
  t.equal(withNames.text, `host,cpu,n,ok,ts\r\n${dataLines}`);
  t.same(parseCsv(withNames.text, { ...CSV_OPTIONS, columns: true }), [
    { host: 'web-1', cpu: '0.5', n: '3', ok: 'true', ts: '1700000000000' },
    { host: 'a,"b"', cpu: '1.0', n: '', ok: 'false', ts: '1700000005000' },
    { host: 'é', cpu: '', n: '9007199254740993', ok: '', ts: '1700000010000' },
  ]);

  const withTypes = await query(url, RECORDS_SQL, { format: 'csvWithNamesAndTypes' });
  expectFormat(withTypes, 'csv', 'text/csv; charset=utf-8');
  t.equal(withTypes.text, `host,cpu,n,ok,ts\r\nString,Float64,Int64,Boolean,TimestampMillisecond\r\n${dataLines}`);
  t.same(parseCsv(withTypes.text, CSV_OPTIONS), [
    ['host', 'cpu', 'n', 'ok', 'ts'],
    ['String', 'Float64', 'Int64', 'Boolean', 'TimestampMillisecond'],
    ...parsedRows,
  ]);

  const table = await query(url, RECORDS_SQL, { format: 'table' });
  expectFormat(table, 'table', 'text/plain; charset=utf-8');
  // Widths are byte lengths ("é" counts 2), padding is per character: the é row is one wider.
  t.equal(
    table.text,
    [
      '┌─host──────┬─cpu──┬─n────────────────┬─ok────┬─ts────────────┐',
      '│ "web-1"   │ 0.5  │ 3                │ true  │ 1700000000000 │',
      '│ "a,\\"b\\"" │ 1.0  │ null             │ false │ 1700000005000 │',
      '│ "é"       │ null │ 9007199254740993 │ null  │ 1700000010000 │',
      '└───────────┴──────┴──────────────────┴───────┴───────────────┘',
      '',
    ].join('\n'),
  );

  const json = await query(url, RECORDS_SQL, { format: 'json' });
  expectFormat(json, 'json', 'application/json');
  t.equal(
    json.text,
    '{"data":[{"cpu":0.5,"host":"web-1","n":3,"ok":true,"ts":1700000000000},' +
      '{"cpu":1.0,"host":"a,\\"b\\"","n":null,"ok":false,"ts":1700000005000},' +
      '{"cpu":null,"host":"é","n":9007199254740993,"ok":null,"ts":1700000010000}],' +
      `"execution_time_ms":${json.ms}}`,
  );
  t.same(parseJsonExact(json.text), {
    data: [
      { cpu: 0.5, host: 'web-1', n: 3, ok: true, ts: 1700000000000 },
      { cpu: 1, host: 'a,"b"', n: null, ok: false, ts: 1700000005000 },
      { cpu: null, host: 'é', n: '9007199254740993', ok: null, ts: 1700000010000 },
    ],
    execution_time_ms: Number(json.ms),
  });

  const nul = await query(url, RECORDS_SQL, { format: 'null' });
  expectFormat(nul, 'null', 'text/plain; charset=utf-8');
  t.equal(nul.text, `3 rows in set.\nElapsed: ${(Number(nul.ms) / 1000).toFixed(3)} sec.\n`);

  const arrow = await query(url, RECORDS_SQL, { format: 'arrow' });
  expectFormat(arrow, 'arrow', 'application/arrow');
  const at = tableFromIPC(arrow.bytes);
  t.same(typeNames(at), ['host:Utf8', 'cpu:Float64', 'n:Int64', 'ok:Bool', 'ts:Timestamp<MILLISECOND>']);
  t.equal(at.numRows, 3);
  t.same(at.getChild('host')?.toArray(), ['web-1', 'a,"b"', 'é']);
  t.same([...(at.getChild('cpu') ?? [])], [0.5, 1, null]);
  t.same([...(at.getChild('n') ?? [])], [3n, null, 9007199254740993n]);
  t.same([...(at.getChild('ok') ?? [])], [true, false, null]);
  t.same(rawValues(at.getChild('ts')), [1700000000000n, 1700000005000n, 1700000010000n]);
  t.equal(at.getChild('ts')?.type.typeId, Type.Timestamp);
  t.equal(at.getChild('ts')?.type.unit, TimeUnit.MILLISECOND);
});

t.test('DML answers the affected count in every format, and an empty arrow body', async (t) => {
  let ts = 1000;
  const insert = (format: string) => query(url, `INSERT INTO sink VALUES (${ts++}, 1.5)`, { format });
  const v1 = await insert('greptimedb_v1');
  t.equal(v1.text, `{"output":[{"affectedrows":1}],"execution_time_ms":${v1.ms}}`);
  const influx = await insert('influxdb_v1');
  t.equal(influx.text, `{"results":[{"statement_id":0,"series":[]}],"execution_time_ms":${influx.ms}}`);
  for (const format of ['csv', 'csvWithNames', 'csvWithNamesAndTypes', 'table']) {
    const a = await insert(format);
    t.equal(a.status, 200);
    t.equal(a.text, '1\n', format);
  }
  const json = await insert('json');
  t.equal(json.text, `{"affected_rows":1,"data":[],"execution_time_ms":${json.ms}}`);
  t.same(JSON.parse(json.text), { affected_rows: 1, data: [], execution_time_ms: Number(json.ms) });
  const nul = await insert('null');
  t.equal(nul.text, `1 rows affected.\nElapsed: ${(Number(nul.ms) / 1000).toFixed(3)} sec.\n`);
  const arrow = await insert('arrow');
  t.equal(arrow.status, 200);
  t.equal(arrow.headers.get('content-type'), 'application/arrow');
  t.equal(arrow.headers.get('x-greptime-format'), 'arrow');
  t.equal(arrow.bytes.length, 0);
  const count = await query(url, 'SELECT count(*) FROM sink', { format: 'csv' });
  t.equal(count.text, '9\r\n', 'all nine inserts happened');
  const ddl = await query(url, 'CREATE TABLE ddl_csv (ts TIMESTAMP TIME INDEX)', { format: 'csv' });
  t.equal(ddl.text, '0\n', 'DDL reports 0');
});

t.test('an empty result keeps its schema where the format has one', async (t) => {
  const v1 = await query(url, EMPTY_SQL);
  t.equal(
    v1.text,
    '{"output":[{"records":{"schema":{"column_schemas":[{"name":"host","data_type":"String"},' +
      `{"name":"cpu","data_type":"Float64"}]},"rows":[],"total_rows":0}}],"execution_time_ms":${v1.ms}}`,
  );
  const influx = await query(url, EMPTY_SQL, { format: 'influxdb_v1' });
  t.equal(
    influx.text,
    `{"results":[{"statement_id":0,"series":[{"name":"","columns":[],"values":[]}]}],"execution_time_ms":${influx.ms}}`,
  );
  t.equal((await query(url, EMPTY_SQL, { format: 'csv' })).text, '');
  t.equal((await query(url, EMPTY_SQL, { format: 'csvWithNames' })).text, 'host,cpu\r\n');
  const typed = await query(url, EMPTY_SQL, { format: 'csvWithNamesAndTypes' });
  t.same(parseCsv(typed.text, CSV_OPTIONS), [
    ['host', 'cpu'],
    ['String', 'Float64'],
  ]);
  t.equal((await query(url, EMPTY_SQL, { format: 'table' })).text, '┌─host─┬─cpu─┐\n└──────┴─────┘\n');
  const json = await query(url, EMPTY_SQL, { format: 'json' });
  t.equal(json.text, `{"data":[],"execution_time_ms":${json.ms}}`);
  const nul = await query(url, EMPTY_SQL, { format: 'null' });
  t.match(nul.text, /^0 rows in set\.\nElapsed: \d+\.\d{3} sec\.\n$/);
  const arrow = await query(url, EMPTY_SQL, { format: 'arrow' });
  const at = tableFromIPC(arrow.bytes);
  t.equal(at.numRows, 0);
  t.same(typeNames(at), ['host:Utf8', 'cpu:Float64']);
});

t.test('floats keep a fraction as Rust prints them, NaN and infinities are null', async (t) => {
  const floats =
    'SELECT 1.0 / 0 AS inf, 0.0 / 0 AS nan, CAST(1 AS DOUBLE) AS one, 1e16 AS big, 1e-7 AS tiny, ' +
    '0.00001 AS small, -0.0 AS negzero, 123456789012345680000.0 AS huge, 2.5e-3 AS milli';
  const v1 = await query(url, floats);
  t.match(v1.text, '"rows":[[null,null,1.0,1e16,1e-7,0.00001,-0.0,1.2345678901234568e20,0.0025]]');
  const csv = await query(url, floats, { format: 'csv' });
  t.equal(csv.text, ',,1.0,1e16,1e-7,0.00001,-0.0,1.2345678901234568e20,0.0025\r\n');
  t.same(
    (parseCsv(csv.text, CSV_OPTIONS) as string[][])[0]?.map((s) => (s === '' ? null : Number(s))),
    [null, null, 1, 1e16, 1e-7, 0.00001, -0, 123456789012345680000, 0.0025],
  );
  const json = await query(url, floats, { format: 'json' });
  t.same(JSON.parse(json.text).data, [
    {
      inf: null,
      nan: null,
      one: 1,
      big: 1e16,
      tiny: 1e-7,
      small: 0.00001,
      negzero: -0,
      huge: 1.2345678901234568e20,
      milli: 0.0025,
    },
  ]);
  t.match(json.text, '"big":1e16,"huge":1.2345678901234568e20,"inf":null,"milli":0.0025,"nan":null,"negzero":-0.0,');
  const table = await query(url, 'SELECT 1.0 / 0 AS inf, CAST(2 AS DOUBLE) AS two', { format: 'table' });
  t.equal(table.text, '┌─inf──┬─two─┐\n│ null │ 2.0 │\n└──────┴─────┘\n');
  const arrow = tableFromIPC((await query(url, floats, { format: 'arrow' })).bytes);
  const row = arrow.get(0)?.toJSON() as Record<string, number>;
  t.equal(row.inf, Number.POSITIVE_INFINITY, 'arrow keeps the real float');
  t.ok(Number.isNaN(row.nan));
  t.equal(row.big, 1e16);
});

t.test('strings that need quoting survive csv, json, table and arrow', async (t) => {
  await setup('CREATE TABLE texts (ts TIMESTAMP TIME INDEX, s STRING)');
  const samples = ['plain', 'with,comma', 'with "quotes"', 'line\r\nbreak', 'tab\there', '', '  spaced  ', 'ünï 🙂 中'];
  const values = samples.map((s, i) => `(${i}, '${s}')`).join(', ');
  await setup(`INSERT INTO texts VALUES ${values}, (${samples.length}, NULL)`);
  const q = 'SELECT s FROM texts ORDER BY ts';

  const csv = await query(url, q, { format: 'csv' });
  t.equal(
    csv.text,
    'plain\r\n"with,comma"\r\n"with ""quotes"""\r\n"line\r\nbreak"\r\ntab\there\r\n""\r\n  spaced  \r\nünï 🙂 中\r\n""\r\n',
    'a lone empty field is written "" so the record is not an empty line',
  );
  t.same(
    parseCsv(csv.text, CSV_OPTIONS),
    [...samples, ''].map((s) => [s]),
  );
  const named = await query(url, q, { format: 'csvWithNames' });
  t.same(parseCsv(named.text, { ...CSV_OPTIONS, columns: true }), [...samples.map((s) => ({ s })), { s: '' }]);

  const json = await query(url, q, { format: 'json' });
  t.same(JSON.parse(json.text).data, [...samples.map((s) => ({ s })), { s: null }]);

  const table = await query(
    url,
    "SELECT s FROM texts WHERE s IN ('with \"quotes\"', 'line\r\nbreak', 'ünï 🙂 中') ORDER BY ts",
    {
      format: 'table',
    },
  );
  // The cell `"ünï 🙂 中"` is 9 characters but 16 bytes: the column is 17 wide (the quotes cell) and
  // this cell is padded by characters, 8 spaces. JSON escapes keep CR LF on one line.
  t.equal(
    table.text,
    [
      '┌─s─────────────────┐',
      '│ "with \\"quotes\\"" │',
      '│ "line\\r\\nbreak"   │',
      '│ "ünï 🙂 中"         │',
      '└───────────────────┘',
      '',
    ].join('\n'),
  );

  const arrow = tableFromIPC((await query(url, q, { format: 'arrow' })).bytes);
  t.same(arrow.getChild('s')?.toArray(), [...samples, null]);
});

t.test('arrow gives every GreptimeDB type its Arrow type, values exact', async (t) => {
  await setup(
    'CREATE TABLE every_type (ts TIMESTAMP(9) TIME INDEX, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, ' +
      'u8 UINT8, u16 UINT16, u32 UINT32, u64 UINT64, f32 FLOAT, f64 DOUBLE, s STRING, b BOOLEAN, d DATE, ' +
      't_s TIMESTAMP(0), t_ms TIMESTAMP(3), t_us TIMESTAMP(6))',
  );
  await setup(
    "INSERT INTO every_type VALUES (1700000000123456789, -128, -32768, -2147483648, -9223372036854775808, 255, 65535, 4294967295, 18446744073709551615, 1.5, 0.25, 'x', true, '2024-01-02', -1, -1, -1)," +
      ' (1700000000123456790, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)',
  );
  const answer = await query(url, 'SELECT * FROM every_type ORDER BY ts', { format: 'arrow' });
  const at = tableFromIPC(answer.bytes);
  t.same(typeNames(at), [
    'ts:Timestamp<NANOSECOND>',
    'i8:Int8',
    'i16:Int16',
    'i32:Int32',
    'i64:Int64',
    'u8:Uint8',
    'u16:Uint16',
    'u32:Uint32',
    'u64:Uint64',
    'f32:Float32',
    'f64:Float64',
    's:Utf8',
    'b:Bool',
    'd:Date32<DAY>',
    't_s:Timestamp<SECOND>',
    't_ms:Timestamp<MILLISECOND>',
    't_us:Timestamp<MICROSECOND>',
  ]);
  t.ok(
    at.schema.fields.every((f) => f.nullable),
    'every field is nullable',
  );
  t.same(rawValues(at.getChild('ts')), [1700000000123456789n, 1700000000123456790n]);
  const first = at.get(0)?.toJSON() as Record<string, unknown>;
  t.same(
    [first.i8, first.i16, first.i32, first.i64, first.u8, first.u16, first.u32, first.u64, first.f32, first.f64],
    [-128, -32768, -2147483648, -9223372036854775808n, 255, 65535, 4294967295, 18446744073709551615n, 1.5, 0.25],
  );
  t.same([first.s, first.b], ['x', true]);
  t.same(rawValues(at.getChild('d')).slice(0, 1), [19724], 'Date32 holds days since the epoch');
  t.same(rawValues(at.getChild('t_s')).slice(0, 1), [-1n]);
  t.same(rawValues(at.getChild('t_us')).slice(0, 1), [-1n]);
  const second = at.get(1)?.toJSON() as Record<string, unknown>;
  t.ok(
    Object.entries(second)
      .filter(([k]) => k !== 'ts')
      .every(([, v]) => v === null),
    'the all-NULL row reads back as nulls',
  );
  t.equal(at.getChild('i8')?.nullCount, 1);

  const csv = await query(url, 'SELECT * FROM every_type ORDER BY ts', { format: 'csvWithNamesAndTypes' });
  const rows = parseCsv(csv.text, CSV_OPTIONS) as string[][];
  t.same(rows[1], [
    'TimestampNanosecond',
    'Int8',
    'Int16',
    'Int32',
    'Int64',
    'UInt8',
    'UInt16',
    'UInt32',
    'UInt64',
    'Float32',
    'Float64',
    'String',
    'Boolean',
    'Date',
    'TimestampSecond',
    'TimestampMillisecond',
    'TimestampMicrosecond',
  ]);
  t.same(rows[2], [
    '1700000000123456789',
    '-128',
    '-32768',
    '-2147483648',
    '-9223372036854775808',
    '255',
    '65535',
    '4294967295',
    '18446744073709551615',
    '1.5',
    '0.25',
    'x',
    'true',
    '19724',
    '-1',
    '-1',
    '-1',
  ]);
  t.same(rows[3], ['1700000000123456790', ...new Array(16).fill('')]);
});

t.test('epoch converts every timestamp column of influxdb_v1, and only there', async (t) => {
  await setup(
    'CREATE TABLE times (ts TIMESTAMP(3) TIME INDEX, t_s TIMESTAMP(0), t_us TIMESTAMP(6), t_ns TIMESTAMP(9), v INT)',
  );
  await setup(
    'INSERT INTO times VALUES (1700000000123, 1700000000, 1700000000123456, 1700000000123456789, 7), (-1500, -1, -1, -1, 8)',
  );
  const q = 'SELECT ts, t_s, t_us, t_ns, v FROM times ORDER BY ts DESC';
  const valuesOf = async (params: Record<string, string>, form: Record<string, string> = {}) => {
    const a = await query(url, q, { format: 'influxdb_v1', ...params }, form);
    t.equal(a.status, 200, a.text);
    const body = parseJsonExact(a.text) as { results: Array<{ series: Array<{ values: unknown[][] }> }> };
    return body.results[0]?.series[0]?.values;
  };
  const asIs = [
    [1700000000123, 1700000000, 1700000000123456, '1700000000123456789', 7],
    [-1500, -1, -1, -1, 8],
  ];
  t.same(await valuesOf({}), asIs, 'no epoch: each column keeps its own unit');
  t.same(
    await valuesOf({ epoch: 's' }),
    [
      [1700000000, 1700000000, 1700000000, 1700000000, 7],
      [-2, -1, -1, -1, 8],
    ],
    'coarser units round toward minus infinity',
  );
  const ms = [
    [1700000000123, 1700000000000, 1700000000123, 1700000000123, 7],
    [-1500, -1000, -1, -1, 8],
  ];
  t.same(await valuesOf({ epoch: 'ms' }), ms);
  t.same(await valuesOf({ epoch: 'MS' }), ms, 'case-insensitive');
  t.same(await valuesOf({ epoch: 'h' }), ms, 'unknown epoch means ms');
  const us = [
    [1700000000123000, 1700000000000000, 1700000000123456, 1700000000123456, 7],
    [-1500000, -1000000, -1, -1, 8],
  ];
  t.same(await valuesOf({ epoch: 'u' }), us);
  t.same(await valuesOf({ epoch: 'µ' }), us);
  t.same(await valuesOf({}, { epoch: 'U' }), us, 'epoch may come from the form');
  t.same(await valuesOf({ epoch: 'ns' }, { epoch: 's' }), [
    ['1700000000123000000', '1700000000000000000', '1700000000123456000', '1700000000123456789', 7],
    [-1500000000, -1000000000, -1000, -1, 8],
  ]);

  const v1 = await query(url, q, { epoch: 's' });
  t.match(
    v1.text,
    '"rows":[[1700000000123,1700000000,1700000000123456,1700000000123456789,7]',
    'greptimedb_v1 ignores epoch',
  );
  const csv = await query(url, q, { format: 'csv', epoch: 's' });
  t.match(csv.text, /^1700000000123,1700000000,1700000000123456,1700000000123456789,7\r\n/, 'csv ignores epoch');
});

t.test('limit truncates greptimedb_v1, csv, table and json but not influxdb_v1, arrow or null', async (t) => {
  const v1 = JSON.parse((await query(url, RECORDS_SQL, { limit: '2' })).text);
  t.equal(v1.output[0].records.rows.length, 2);
  t.equal(v1.output[0].records.total_rows, 2);
  const all = JSON.parse((await query(url, RECORDS_SQL, { limit: '10' })).text);
  t.equal(all.output[0].records.total_rows, 3, 'a larger limit changes nothing');
  const zero = JSON.parse((await query(url, RECORDS_SQL, { limit: '0' })).text);
  t.same([zero.output[0].records.rows, zero.output[0].records.total_rows], [[], 0]);
  t.equal((await query(url, RECORDS_SQL, { format: 'csv', limit: '1' })).text, 'web-1,0.5,3,true,1700000000000\r\n');
  const table = (await query(url, RECORDS_SQL, { format: 'table', limit: '1' })).text;
  t.equal(table.split('\n').length, 4, 'header, one row, footer');
  t.equal(JSON.parse((await query(url, RECORDS_SQL, { format: 'json', limit: '2' })).text).data.length, 2);
  const influx = JSON.parse((await query(url, RECORDS_SQL, { format: 'influxdb_v1', limit: '1' })).text);
  t.equal(influx.results[0].series[0].values.length, 3);
  t.equal(tableFromIPC((await query(url, RECORDS_SQL, { format: 'arrow', limit: '1' })).bytes).numRows, 3);
  t.match((await query(url, RECORDS_SQL, { format: 'null', limit: '1' })).text, /^3 rows in set\./);
  const fromForm = JSON.parse((await query(url, RECORDS_SQL, {}, { limit: '1' })).text);
  t.equal(fromForm.output[0].records.total_rows, 3, 'limit is read from the URL only');

  for (const [bad, detail] of [
    ['abc', 'invalid digit found in string'],
    ['-1', 'invalid digit found in string'],
    ['', 'cannot parse integer from empty string'],
    ['99999999999999999999999', 'number too large to fit in target type'],
  ]) {
    const a = await query(url, RECORDS_SQL, { limit: bad as string });
    t.equal(a.status, 400, `limit=${bad}`);
    t.equal(a.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.equal(a.text, `Failed to deserialize query string: limit: ${detail}`);
  }
});

t.test('only greptimedb_v1 and influxdb_v1 carry several results', async (t) => {
  const two = 'SELECT 1 AS a; SELECT 2 AS b';
  const v1 = JSON.parse((await query(url, two)).text);
  t.same(
    v1.output.map((o: { records: { rows: unknown[][] } }) => o.records.rows),
    [[[1]], [[2]]],
  );
  const influx = await query(url, `INSERT INTO sink VALUES (5000, 2); ${two}`, {
    format: 'influxdb_v1',
  });
  t.equal(
    influx.text,
    '{"results":[{"statement_id":0,"series":[]},' +
      '{"statement_id":1,"series":[{"name":"","columns":["a"],"values":[[1]]}]},' +
      `{"statement_id":2,"series":[{"name":"","columns":["b"],"values":[[2]]}]}],"execution_time_ms":${influx.ms}}`,
  );
  for (const [format, name] of [
    ['csv', 'csv'],
    ['csvWithNames', 'csv'],
    ['csvWithNamesAndTypes', 'csv'],
    ['table', 'table'],
    ['json', 'json'],
    ['null', 'null'],
    ['arrow', 'arrow'],
  ]) {
    const a = await query(url, two, { format: format as string });
    t.equal(a.status, 400, String(format));
    t.equal(a.headers.get('x-greptime-err-code'), '1004');
    t.equal(a.headers.get('x-greptime-format'), null, 'errors carry no format header');
    const body = JSON.parse(a.text);
    t.equal(body.code, 1004);
    t.equal(body.error, `cannot output multi-statements result in ${name} format`);
  }
});

t.test('an empty statement list answers per format', async (t) => {
  const v1 = await query(url, ';');
  t.equal(v1.text, `{"execution_time_ms":${v1.ms}}`);
  const influx = await query(url, ';', { format: 'influxdb_v1' });
  t.equal(influx.text, `{"results":[],"execution_time_ms":${influx.ms}}`);
  for (const format of ['csv', 'table', 'json', 'arrow']) {
    const a = await query(url, ';', { format });
    t.equal(a.status, 200, format);
    t.equal(a.bytes.length, 0, `${format} body is empty`);
  }
  const nul = await query(url, ';', { format: 'null' });
  t.equal(nul.status, 500);
  t.equal(JSON.parse(nul.text).code, 1002, 'GreptimeDB has no null answer for no statement');
});

t.test('format is case-insensitive, unknown means greptimedb_v1, and the URL wins over the form', async (t) => {
  t.equal((await query(url, RECORDS_SQL, { format: 'JSON' })).headers.get('x-greptime-format'), 'json');
  t.equal((await query(url, RECORDS_SQL, { format: 'CsvWithNames' })).text.split('\r\n')[0], 'host,cpu,n,ok,ts');
  const unknown = await query(url, RECORDS_SQL, { format: 'xml' });
  t.equal(unknown.headers.get('x-greptime-format'), 'greptimedb_v1');
  t.match(unknown.text, /^\{"output":\[/);
  t.equal((await query(url, RECORDS_SQL, {}, { format: 'table' })).headers.get('x-greptime-format'), 'table');
  const urlWins = await query(url, RECORDS_SQL, { format: 'null' }, { format: 'table' });
  t.equal(urlWins.headers.get('x-greptime-format'), 'null');
  const get = await fetch(`${url}/v1/sql?format=csv&sql=${encodeURIComponent('SELECT 1 AS one')}`);
  t.equal(await get.text(), '1\r\n', 'GET works too');
});

t.test('arrow compression: lz4 and zstd bodies, read back by apache-arrow with the codecs registered', async (t) => {
  await setup('CREATE TABLE bulk (ts TIMESTAMP TIME INDEX, host STRING, v BIGINT, PRIMARY KEY (host))');
  const rows = Array.from({ length: 3000 }, (_, i) => `(${1700000000000 + i * 1000}, 'host-${i % 5}', ${i % 7})`);
  await setup(`INSERT INTO bulk VALUES ${rows.join(', ')}`);
  const big = 'SELECT ts, host, v FROM bulk ORDER BY ts';
  const plain = await query(url, big, { format: 'arrow' });
  const zstd = await query(url, big, { format: 'arrow', compression: 'zstd' });
  t.equal(zstd.status, 200);
  t.ok(zstd.bytes.length < plain.bytes.length / 2, `zstd shrinks ${plain.bytes.length} to ${zstd.bytes.length} bytes`);
  const lz4 = await query(url, big, { format: 'arrow', compression: 'LZ4' });
  t.equal(lz4.status, 200);
  t.ok(lz4.bytes.length < plain.bytes.length / 2, `lz4 shrinks ${plain.bytes.length} to ${lz4.bytes.length} bytes`);
  t.throws(() => tableFromIPC(lz4.bytes), /codec not found/, 'the body declares LZ4_FRAME compression');
  const formOnly = await query(url, big, { format: 'arrow' }, { compression: 'lz4' });
  t.same(Buffer.from(formOnly.bytes), Buffer.from(plain.bytes), 'compression is read from the URL only');

  t.throws(() => tableFromIPC(zstd.bytes), /codec not found/, 'the body declares ZSTD compression');

  compressionRegistry.set(CompressionType.LZ4_FRAME, { decode: lz4FrameDecompress });
  await zstdInit();
  compressionRegistry.set(CompressionType.ZSTD, { decode: (bytes) => zstdDecompressReference(bytes) });
  const b = tableFromIPC(plain.bytes);
  for (const [codec, body] of [
    ['lz4', lz4.bytes],
    ['zstd', zstd.bytes],
  ] as const) {
    const a = tableFromIPC(body);
    t.equal(a.numRows, 3000, codec);
    t.same(typeNames(a), typeNames(b));
    for (const column of ['ts', 'v']) t.same(rawValues(a.getChild(column)), rawValues(b.getChild(column)), column);
    t.same(a.getChild('host')?.toArray(), b.getChild('host')?.toArray());
    t.equal(a.getChild('host')?.get(2999), 'host-4');
  }
});

t.test('the lz4 decoder reads frames written by the reference lz4 tool', async (t) => {
  // `printf '...' | lz4 -c` (lz4 1.9): content checksum flag set, one compressed block with matches.
  const frame = Buffer.from(
    '04224d186440a7200000008f53686f616c444220080015f003737065616b73204c5a34206672616d65732e00000000325462e7',
    'hex',
  );
  t.equal(
    Buffer.from(lz4FrameDecompress(frame)).toString(),
    'ShoalDB ShoalDB ShoalDB ShoalDB ShoalDB ShoalDB speaks LZ4 frames.',
  );
  t.throws(() => lz4FrameDecompress(Buffer.from('00000000', 'hex')), /bad magic/);
});
