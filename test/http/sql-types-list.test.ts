/**
 * List results end to end over HTTP: `array_agg` runs as a partial aggregate in both shards and
 * merges in the router (ordered by its ORDER BY, else by scan order, so the answer does not depend
 * on how series spread), with DISTINCT and NULL items; `regexp_match` returns `List<String>`.
 * Lists print as JSON arrays in greptimedb_v1, as JSON text in csv and table, and as Arrow lists.
 */
import { tableFromIPC } from 'apache-arrow';
import t from 'tap';
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

await q(
  'CREATE TABLE logs (ts TIMESTAMP TIME INDEX, host STRING, zone STRING, msg STRING, n INT, PRIMARY KEY (host, zone))',
);
// Eight series, so both shards hold some of every group.
await q(`INSERT INTO logs VALUES
  (1000, 'h1', 'eu', 'GET /a 200', 5),
  (2000, 'h2', 'eu', 'GET /b 404', 3),
  (3000, 'h3', 'us', 'POST /c 500', NULL),
  (4000, 'h4', 'us', 'GET /d 200', 1),
  (5000, 'h5', 'eu', 'PUT /e 201', 3),
  (6000, 'h6', 'us', 'noise', 7),
  (7000, 'h7', 'eu', 'GET /g 200', 2),
  (8000, 'h8', 'us', 'GET /h 302', 3)`);

t.test('array_agg gathers values from both shards in a deterministic order', async (t) => {
  const grouped = await q(
    'SELECT zone, array_agg(n), array_agg(n ORDER BY n DESC), array_agg(DISTINCT n) FROM logs GROUP BY zone ORDER BY zone',
  );
  t.same(schemaOf(grouped.body), ['String', 'List<Int32>', 'List<Int32>', 'List<Int32>']);
  t.same(rowsOf(grouped.body), [
    ['eu', [5, 3, 3, 2], [5, 3, 3, 2], [2, 3, 5]],
    ['us', [null, 1, 7, 3], [null, 7, 3, 1], [1, 3, 7]],
  ]);

  const all = await q('SELECT array_agg(host ORDER BY ts DESC), array_agg(DISTINCT zone ORDER BY zone DESC) FROM logs');
  t.same(rowsOf(all.body), [
    [
      ['h8', 'h7', 'h6', 'h5', 'h4', 'h3', 'h2', 'h1'],
      ['us', 'eu'],
    ],
  ]);

  const empty = await q('SELECT array_agg(n) FROM logs WHERE n > 100');
  t.same(rowsOf(empty.body), [[null]], 'no rows: NULL, not an empty list');
});

t.test('regexp_match returns the first match groups as a list', async (t) => {
  const matched = await q(
    "SELECT host, regexp_match(msg, '^([A-Z]+) (\\S+) (\\d+)$'), regexp_match(msg, 'o+'), regexp_match(msg, 'get', 'i') FROM logs WHERE ts <= 3000 OR ts = 6000 ORDER BY ts",
  );
  t.same(schemaOf(matched.body), ['String', 'List<String>', 'List<String>', 'List<String>']);
  t.same(rowsOf(matched.body), [
    ['h1', ['GET', '/a', '200'], null, ['GET']],
    ['h2', ['GET', '/b', '404'], null, ['GET']],
    ['h3', ['POST', '/c', '500'], null, null],
    ['h6', null, ['o'], null],
  ]);
});

t.test('lists print as JSON text in csv and table and as Arrow lists', async (t) => {
  const statement = 'SELECT zone, array_agg(n), array_agg(host) FROM logs GROUP BY zone ORDER BY zone';
  const csv = Buffer.from(await fetchFormat(server.url, statement, 'csvWithNamesAndTypes')).toString();
  t.equal(
    csv,
    'zone,array_agg(logs.n),array_agg(logs.host)\r\n' +
      'String,List<Int32>,List<String>\r\n' +
      'eu,"[5,3,3,2]","[""h1"",""h2"",""h5"",""h7""]"\r\n' +
      'us,"[null,1,7,3]","[""h3"",""h4"",""h6"",""h8""]"\r\n',
  );

  const table = Buffer.from(await fetchFormat(server.url, statement, 'table')).toString();
  t.match(table, '│ "eu" │ [5,3,3,2]         │ ["h1","h2","h5","h7"] │');

  const arrow = tableFromIPC(await fetchFormat(server.url, statement, 'arrow'));
  t.same(
    arrow.schema.fields.map((f) => String(f.type)),
    ['Utf8', 'List<Int32>', 'List<Utf8>'],
    'Arrow columns are lists of the item type',
  );
  const numbers = arrow.getChild('array_agg(logs.n)');
  t.same([...(numbers?.get(0) ?? [])], [5, 3, 3, 2]);
  t.same([...(numbers?.get(1) ?? [])], [null, 1, 7, 3]);
  t.same([...(arrow.getChild('array_agg(logs.host)')?.get(1) ?? [])], ['h3', 'h4', 'h6', 'h8']);
});
