/**
 * TIME, Duration and Interval end to end over HTTP: TIME columns stored and compared, casts to
 * TIME, `timestamp - timestamp` as a Duration, INTERVAL literals selected as values, with
 * GreptimeDB's type names, JSON encodings (counts of the unit; intervals packed into an i128),
 * Arrow types, text forms (`08:30:00`, `PT63930.25S`, `1 mons 2 days 3 hours`), and the refusals.
 */
import { tableFromIPC } from 'apache-arrow';
import t from 'tap';
import { parseJsonExact } from '../helpers/json.js';
import { type SqlBody, sql, startServer } from '../helpers/server.js';

const schemaOf = (b: SqlBody) => b.output?.[0]?.records?.schema.column_schemas.map((c) => c.data_type);
const rowsOf = (b: SqlBody) => b.output?.[0]?.records?.rows;

async function fetchFormat(url: string, statement: string, format: string): Promise<Uint8Array> {
  const res = await fetch(`${url}/v1/sql?format=${format}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: statement }).toString(),
  });
  if (res.status !== 200) throw new Error(`${statement}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const server = await startServer({ shards: 2 });
t.teardown(() => server.stop());
const q = (s: string) => sql(server.url, s);

await q('CREATE TABLE shifts (ts TIMESTAMP TIME INDEX, worker STRING PRIMARY KEY, starts TIME(3), ends TIMESTAMP(3))');
await q(`INSERT INTO shifts VALUES
  (1000, 'ann', '08:30:00', '2024-01-01 17:45:30.250'),
  (2000, 'bob', '22:00:00.125', '2024-01-02 06:00:00'),
  (3000, 'cid', NULL, NULL)`);

t.test('TIME columns are stored, compared and cast', async (t) => {
  const all = await q(
    'SELECT worker, starts, CAST(starts AS STRING), ends::TIME, CAST(ends::TIME AS STRING) FROM shifts ORDER BY ts',
  );
  t.same(schemaOf(all.body), ['String', 'TimeMillisecond', 'String', 'TimeNanosecond', 'String']);
  t.same(rowsOf(all.body), [
    ['ann', 30_600_000, '08:30:00', 63_930_250_000_000, '17:45:30.250'],
    ['bob', 79_200_125, '22:00:00.125', 21_600_000_000_000, '06:00:00'],
    ['cid', null, null, null, null],
  ]);

  const later = await q("SELECT worker FROM shifts WHERE starts > '12:00:00' ORDER BY starts");
  t.same(rowsOf(later.body), [['bob']], 'text compares as a time of day');

  const arrow = tableFromIPC(
    await fetchFormat(server.url, 'SELECT starts, ends::TIME AS t FROM shifts ORDER BY ts', 'arrow'),
  );
  t.same(
    arrow.schema.fields.map((f) => String(f.type)),
    ['Time32<MILLISECOND>', 'Time64<NANOSECOND>'],
  );
  t.same([...(arrow.getChild('starts')?.data[0]?.values ?? [])].slice(0, 2), [30_600_000, 79_200_125]);
});

t.test('timestamp - timestamp is a Duration of the finer unit', async (t) => {
  const diff = await q(
    "SELECT worker, ends - '2024-01-01 00:00:00'::TIMESTAMP, CAST(ends - '2024-01-01 00:00:00'::TIMESTAMP AS STRING), ts - ts FROM shifts ORDER BY ts",
  );
  t.same(schemaOf(diff.body), ['String', 'DurationMillisecond', 'String', 'DurationMillisecond']);
  t.same(rowsOf(diff.body), [
    ['ann', 63_930_250, 'PT63930.25S', 0],
    ['bob', 108_000_000, 'PT108000S', 0],
    ['cid', null, null, 0],
  ]);
  const arrow = tableFromIPC(await fetchFormat(server.url, 'SELECT ends - ts AS d FROM shifts ORDER BY ts', 'arrow'));
  t.same(
    arrow.schema.fields.map((f) => String(f.type)),
    ['Duration<MILLISECOND>'],
  );
  t.same([...(arrow.getChild('d')?.data[0]?.values ?? [])].slice(0, 2), [1_704_131_129_250n, 1_704_175_198_000n]);
});

t.test('INTERVAL literals are values of type IntervalMonthDayNano', async (t) => {
  const statement =
    "SELECT INTERVAL '1 month 2 days 3 hours' AS i, CAST(INTERVAL '-1h5m' AS STRING) AS s, INTERVAL '1 day' + INTERVAL '2 hours' AS sum";
  const res = await q(statement);
  t.same(schemaOf(res.body), ['IntervalMonthDayNano', 'String', 'IntervalMonthDayNano']);
  const packed = (months: bigint, days: bigint, nanos: bigint): string =>
    ((months << 96n) | (days << 64n) | nanos).toString();
  const exact = parseJsonExact(res.text) as { output: Array<{ records: { rows: unknown[][] } }> };
  t.same(
    exact.output[0]?.records.rows,
    [[packed(1n, 2n, 10_800_000_000_000n), '-55 mins', packed(0n, 1n, 7_200_000_000_000n)]],
    'JSON carries the interval packed as GreptimeDB does (months, days, nanoseconds in one i128)',
  );

  const csv = Buffer.from(await fetchFormat(server.url, statement, 'csv')).toString();
  t.equal(csv, `${packed(1n, 2n, 10_800_000_000_000n)},-55 mins,${packed(0n, 1n, 7_200_000_000_000n)}\r\n`);

  const arrow = tableFromIPC(await fetchFormat(server.url, statement, 'arrow'));
  t.same(
    arrow.schema.fields.map((f) => String(f.type)),
    ['Interval<MONTH_DAY_NANO>', 'Utf8', 'Interval<MONTH_DAY_NANO>'],
  );
  // Months and days, then the nanoseconds as two signed 32-bit words, low word first.
  const nanos = 10_800_000_000_000;
  t.same([...(arrow.getChild('i')?.get(0) ?? [])], [1, 2, (nanos % 2 ** 32) | 0, Math.floor(nanos / 2 ** 32)]);
});

t.test('unsupported temporal input is refused with the right code and status', async (t) => {
  const column = await q('CREATE TABLE bad (ts TIMESTAMP TIME INDEX, i INTERVAL)');
  t.equal(column.status, 400);
  t.equal(column.body.code, 1004);
  t.equal(column.body.error, 'Invalid SQL, error: column name `i` is interval type, which is not supported');

  const time = await q("SELECT '25:00:00'::TIME");
  t.equal(time.status, 500);
  t.equal(time.body.code, 3001);
  t.equal(time.body.error, "Cast error: Cannot cast string '25:00:00' to value of Time64(ns) type");

  const scaled = await q("SELECT INTERVAL '6 years' * 2");
  t.equal(scaled.status, 400);
  t.equal(scaled.body.code, 3000);
  t.match(scaled.body.error, 'Cannot get result type for temporal operation Interval(MonthDayNano) * Int64');

  const sum = await q('SELECT ts + ts FROM shifts');
  t.equal(sum.status, 400);
  t.equal(sum.body.code, 3000);
});
