/**
 * Decimal128 end to end over HTTP: DECIMAL(p, s), bare DECIMAL/NUMERIC (38, 10), stored as scaled
 * i64 (p ≤ 18) or digit strings (p > 18) across two shards, read back exactly in greptimedb_v1,
 * csv, json and Arrow (decoded with apache-arrow) before and after a flush and a restart; exact
 * arithmetic with DataFusion's result types, casts, aggregates, and the errors for bad input.
 */
import { tableFromIPC } from 'apache-arrow';
import t from 'tap';
import { type SqlBody, sql, startServer } from '../helpers/server.js';

const schemaOf = (b: SqlBody) => b.output?.[0]?.records?.schema.column_schemas.map((c) => c.data_type);
const rowsOf = (b: SqlBody) => b.output?.[0]?.records?.rows;

/** POSTs `statement` asking for `format`; the raw body. */
async function fetchFormat(url: string, statement: string, format: string): Promise<Uint8Array> {
  const res = await fetch(`${url}/v1/sql?format=${format}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: statement }).toString(),
  });
  if (res.status !== 200) throw new Error(`${statement}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** The unscaled Decimal128 values of an Arrow column (four little-endian 32-bit words each). */
function unscaledValues(words: Uint32Array, length: number): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; i < length; i++) {
    let v = 0n;
    for (let w = 3; w >= 0; w--) v = (v << 32n) | BigInt(words[i * 4 + w] as number);
    out.push(BigInt.asIntN(128, v));
  }
  return out;
}

const CREATE =
  'CREATE TABLE prices (ts TIMESTAMP TIME INDEX, item STRING PRIMARY KEY, price DECIMAL(10,2), total DECIMAL(30,5), rate NUMERIC)';
const INSERT = `INSERT INTO prices VALUES
  (1000, 'a', 12.3, '123456789012345678901.12345', 0.5),
  (2000, 'b', -0.05, -1, '1.23456789012'),
  (3000, 'c', NULL, 0, NULL),
  (4000, 'd', 99999999.99, '-0.000005', 3)`;
const SELECT_ALL = 'SELECT item, price, total, rate FROM prices ORDER BY ts';
const EXPECTED_ROWS = [
  ['a', '12.30', '123456789012345678901.12345', '0.5000000000'],
  ['b', '-0.05', '-1.00000', '1.2345678901'],
  ['c', null, '0.00000', null],
  ['d', '99999999.99', '-0.00001', '3.0000000000'],
];

t.test('decimals are stored exactly and come back with their scale in every format', async (t) => {
  let server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const q = (s: string) => sql(server.url, s);
  t.equal((await q(CREATE)).status, 200);
  t.same((await q(INSERT)).body.output, [{ affectedrows: 4 }]);

  const all = await q(SELECT_ALL);
  t.same(schemaOf(all.body), ['String', 'Decimal(10, 2)', 'Decimal(30, 5)', 'Decimal(38, 10)']);
  t.same(rowsOf(all.body), EXPECTED_ROWS, 'decimal values are JSON strings with exactly `scale` digits');

  const csv = Buffer.from(await fetchFormat(server.url, SELECT_ALL, 'csvWithNamesAndTypes')).toString();
  t.equal(
    csv,
    'item,price,total,rate\r\n' +
      'String,"Decimal(10, 2)","Decimal(30, 5)","Decimal(38, 10)"\r\n' +
      'a,12.30,123456789012345678901.12345,0.5000000000\r\n' +
      'b,-0.05,-1.00000,1.2345678901\r\n' +
      'c,,0.00000,\r\n' +
      'd,99999999.99,-0.00001,3.0000000000\r\n',
  );

  const json = Buffer.from(await fetchFormat(server.url, `${SELECT_ALL} LIMIT 1`, 'json')).toString();
  t.match(
    json,
    /^\{"data":\[\{"item":"a","price":"12\.30","rate":"0\.5000000000","total":"123456789012345678901\.12345"\}\]/,
  );

  const influx = Buffer.from(await fetchFormat(server.url, `${SELECT_ALL} LIMIT 2`, 'influxdb_v1')).toString();
  t.match(
    influx,
    '"values":[["a","12.30","123456789012345678901.12345","0.5000000000"],["b","-0.05","-1.00000","1.2345678901"]]',
  );

  const arrow = tableFromIPC(await fetchFormat(server.url, SELECT_ALL, 'arrow'));
  t.same(
    arrow.schema.fields.map((f) => String(f.type)),
    ['Utf8', 'Decimal[10e+2]', 'Decimal[30e+5]', 'Decimal[38e+10]'],
    'Arrow columns are Decimal128 with the column precision and scale',
  );
  const total = arrow.getChild('total')?.data[0];
  t.same(unscaledValues(total?.values as Uint32Array, 4), [12345678901234567890112345n, -100000n, 0n, -1n]);
  const price = arrow.getChild('price')?.data[0];
  t.same(
    unscaledValues(price?.values as Uint32Array, 4).filter((_, i) => i !== 2),
    [1230n, -5n, 9999999999n],
  );
  t.equal(price?.getValid(2), false, 'NULL stays NULL in Arrow');

  t.equal((await q("ADMIN flush_table('prices')")).status, 200);
  t.same(rowsOf((await q(SELECT_ALL)).body), EXPECTED_ROWS, 'values survive a flush to segments');

  await server.stop();
  server = await startServer({ shards: 2, dataDir: server.dataDir });
  t.same(rowsOf((await sql(server.url, SELECT_ALL)).body), EXPECTED_ROWS, 'values survive a restart');
  const show = await sql(server.url, 'SHOW CREATE TABLE prices');
  t.match(String(rowsOf(show.body)?.[0]?.[1]), /"price" DECIMAL\(10,2\) NULL,\n {2}"total" DECIMAL\(30,5\) NULL/);
});

t.test('decimal arithmetic is exact and typed as DataFusion types it', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const q = (s: string) => sql(server.url, s);
  await q(CREATE);
  await q(INSERT);

  const math = await q("SELECT price * 2, price + total, price / 3, -price, rate * rate FROM prices WHERE item = 'a'");
  t.same(schemaOf(math.body), [
    'Decimal(31, 2)',
    'Decimal(31, 5)',
    'Decimal(14, 6)',
    'Decimal(10, 2)',
    'Decimal(38, 20)',
  ]);
  t.same(rowsOf(math.body), [['24.60', '123456789012345678913.42345', '4.100000', '-12.30', '0.25000000000000000000']]);

  const exact = await q("SELECT '0.1'::DECIMAL(5,2) + '0.2'::DECIMAL(5,2) = '0.3'::DECIMAL(5,2), 0.1 + 0.2 = 0.3");
  t.same(rowsOf(exact.body), [[true, false]], 'decimals add exactly where floats do not');

  const casts = await q(
    "SELECT '1.005'::DECIMAL(5,2), CAST(price AS DOUBLE), CAST(price AS INT), CAST(price AS STRING), CAST(2.5 AS DECIMAL(3,1)) FROM prices WHERE item = 'a'",
  );
  t.same(schemaOf(casts.body), ['Decimal(5, 2)', 'Float64', 'Int32', 'String', 'Decimal(3, 1)']);
  t.same(rowsOf(casts.body), [['1.01', 12.3, 12, '12.30', '2.5']], 'text rounds half away from zero');

  const compare = await q("SELECT item FROM prices WHERE price > 0 AND total <> '0' ORDER BY price DESC");
  t.same(rowsOf(compare.body), [['d'], ['a']], 'decimals compare with numbers and with text');
  const sorted = await q('SELECT item FROM prices ORDER BY total, item');
  t.same(rowsOf(sorted.body), [['b'], ['d'], ['c'], ['a']], 'ORDER BY compares decimals numerically');

  const aggregates = await q('SELECT sum(price), avg(price), min(total), max(total), count(price) FROM prices');
  t.same(schemaOf(aggregates.body), ['Decimal(20, 2)', 'Decimal(14, 6)', 'Decimal(30, 5)', 'Decimal(30, 5)', 'Int64']);
  t.same(
    rowsOf(aggregates.body),
    [['100000012.24', '33333337.413333', '-1.00000', '123456789012345678901.12345', 3]],
    'sum and avg over rows of both shards stay exact (avg truncates at scale + 4)',
  );
});

t.test('bad decimal input is refused with the right code and status', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const q = (s: string) => sql(server.url, s);
  await q(CREATE);

  const tooWide = await q("INSERT INTO prices (ts, item, price) VALUES (1, 'x', 123456789.123)");
  t.equal(tooWide.status, 400);
  t.equal(tooWide.body.code, 1004);
  t.equal(
    tooWide.body.error,
    'Invalid argument error: 123456789.12 is too large to store in a Decimal128 of precision 10. Max is 99999999.99',
  );

  const notANumber = await q("INSERT INTO prices (ts, item, price) VALUES (1, 'x', 'abc')");
  t.equal(notANumber.status, 400);
  t.equal(notANumber.body.code, 2000);
  t.equal(notANumber.body.error, 'Failed to parse value: Fail to parse number abc to Decimal128 value');

  const precision = await q("SELECT '1'::DECIMAL(39,0)");
  t.equal(precision.status, 400);
  t.equal(precision.body.code, 1004);
  t.equal(
    precision.body.error,
    'Decimal(precision = 39, scale = 0) should satisfy `0 < precision <= 38`, and `scale <= precision`.',
  );

  const rounded = await q("SELECT '9.99'::DECIMAL(2,1)");
  t.equal(rounded.status, 500);
  t.equal(rounded.body.code, 3001);
  t.equal(
    rounded.body.error,
    'Invalid argument error: 10.0 is too large to store in a Decimal128 of precision 2. Max is 9.9',
  );

  const scale = await q("SELECT '1'::DECIMAL(38,30) * '1'::DECIMAL(38,30)");
  t.equal(scale.status, 400);
  t.equal(scale.body.code, 3000);
  t.match(
    scale.body.error,
    /Output scale of Decimal128\(38, 30\) \* Decimal128\(38, 30\) would exceed max scale of 38$/,
  );

  const nothingStored = await q('SELECT count(*) FROM prices');
  t.same(rowsOf(nothingStored.body), [[0]], 'refused rows were not written');
});
