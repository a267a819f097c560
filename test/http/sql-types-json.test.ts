/**
 * JSON columns end to end over HTTP: text is validated on insert and kept in GreptimeDB's
 * canonical form (keys sorted, no whitespace), documents come back inline in the JSON formats, as
 * JSON text in csv and Arrow (Utf8), GreptimeDB's JSON functions read them, and bad JSON is refused.
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

await q('CREATE TABLE events (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, doc JSON)');
const inserted = await q(`INSERT INTO events VALUES
  (1000, 'a', '{"b": {"c": 1}, "a": [1, 2.5, "x"], "flag": true}'),
  (2000, 'b', parse_json('{"name": "web", "tags": ["x", "y"], "n": null}')),
  (3000, 'c', '"just, text"'),
  (4000, 'd', NULL),
  (5000, 'e', '[{"k": 1}, {"k": 2}]')`);
const SELECT_ALL = 'SELECT host, doc FROM events ORDER BY ts';

t.test('JSON documents are stored canonically and returned inline', async (t) => {
  t.same(inserted.body.output, [{ affectedrows: 5 }], inserted.text);
  const all = await q(SELECT_ALL);
  t.same(schemaOf(all.body), ['String', 'Json']);
  t.same(rowsOf(all.body), [
    ['a', { a: [1, 2.5, 'x'], b: { c: 1 }, flag: true }],
    ['b', { n: null, name: 'web', tags: ['x', 'y'] }],
    ['c', 'just, text'],
    ['d', null],
    ['e', [{ k: 1 }, { k: 2 }]],
  ]);
  t.match(all.text, '["a",{"a":[1,2.5,"x"],"b":{"c":1},"flag":true}]', 'keys sorted, no whitespace, numbers kept');

  const csv = Buffer.from(await fetchFormat(server.url, SELECT_ALL, 'csv')).toString();
  t.equal(
    csv,
    'a,"{""a"":[1,2.5,""x""],""b"":{""c"":1},""flag"":true}"\r\n' +
      'b,"{""n"":null,""name"":""web"",""tags"":[""x"",""y""]}"\r\n' +
      'c,"just, text"\r\n' +
      'd,\r\n' +
      'e,"[{""k"":1},{""k"":2}]"\r\n',
  );

  const influx = Buffer.from(await fetchFormat(server.url, `${SELECT_ALL} LIMIT 1`, 'influxdb_v1')).toString();
  t.match(influx, '"values":[["a",{"a":[1,2.5,"x"],"b":{"c":1},"flag":true}]]');

  const table = Buffer.from(await fetchFormat(server.url, `${SELECT_ALL} LIMIT 1`, 'table')).toString();
  t.match(table, '│ "a"  │ {"a":[1,2.5,"x"],"b":{"c":1},"flag":true} │');

  const arrow = tableFromIPC(await fetchFormat(server.url, SELECT_ALL, 'arrow'));
  t.same(
    arrow.schema.fields.map((f) => String(f.type)),
    ['Utf8', 'Utf8'],
    'JSON travels as its text in Arrow',
  );
  t.same(arrow.getChild('doc')?.toArray(), [
    '{"a":[1,2.5,"x"],"b":{"c":1},"flag":true}',
    '{"n":null,"name":"web","tags":["x","y"]}',
    '"just, text"',
    null,
    '[{"k":1},{"k":2}]',
  ]);
});

t.test("GreptimeDB's JSON functions read stored documents", async (t) => {
  const get = await q(
    "SELECT json_get_int(doc, 'b.c'), json_get_float(doc, 'a[1]'), json_get_string(doc, 'a[2]'), json_get_bool(doc, 'flag'), json_get_string(doc, '$.tags[last]') FROM events ORDER BY ts",
  );
  t.same(schemaOf(get.body), ['Int64', 'Float64', 'String', 'Boolean', 'String']);
  t.same(rowsOf(get.body), [
    [1, 2.5, 'x', true, null],
    [null, null, null, null, 'y'],
    [null, null, null, null, null],
    [null, null, null, null, null],
    [null, null, null, null, null],
  ]);

  const kinds = await q(
    "SELECT host, json_is_object(doc), json_is_array(doc), json_is_string(doc), json_path_exists(doc, '$[1].k'), json_get_int(doc, '[*]?(@.k > 1).k') FROM events WHERE doc IS NOT NULL ORDER BY ts",
  );
  t.same(rowsOf(kinds.body), [
    ['a', true, false, false, false, null],
    ['b', true, false, false, false, null],
    ['c', false, false, true, false, null],
    ['e', false, true, false, true, 2],
  ]);

  const filtered = await q(
    "SELECT host, json_to_string(doc), json_object_keys(doc) FROM events WHERE json_get_string(doc, 'name') = 'web'",
  );
  t.same(schemaOf(filtered.body), ['String', 'String', 'List<String>']);
  t.same(rowsOf(filtered.body), [['b', '{"n":null,"name":"web","tags":["x","y"]}', ['n', 'name', 'tags']]]);

  const equal = await q(`SELECT host FROM events WHERE doc = '{ "flag": true, "b": {"c":1}, "a": [1, 2.5, "x"] }'`);
  t.same(rowsOf(equal.body), [['a']], 'documents compare equal whatever their spacing and key order');
});

t.test('bad JSON is refused with the right code and status', async (t) => {
  const badInsert = await q("INSERT INTO events VALUES (9000, 'z', '{bad')");
  t.equal(badInsert.status, 400);
  t.equal(badInsert.body.code, 1004);
  t.equal(badInsert.body.error, 'Invalid JSON: {bad');

  const badParse = await q(`SELECT parse_json('{"a":')`);
  t.equal(badParse.status, 500);
  t.equal(badParse.body.code, 3001);
  t.equal(badParse.body.error, `Execution error: cannot parse '{"a":': EOF while parsing a value, pos 5`);

  const wrongType = await q('SELECT json_to_string(host) FROM events');
  t.equal(wrongType.status, 400);
  t.equal(wrongType.body.code, 3000);

  t.same(rowsOf((await q("SELECT count(*) FROM events WHERE host = 'z'")).body), [[0]], 'nothing was written');
});
