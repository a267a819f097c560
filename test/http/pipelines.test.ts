/**
 * Pipeline management over HTTP (reference ingest §8): versions that survive a restart and show
 * in SQL, every refusal with its status and message, the DDL a pipeline implies, and the dry run
 * in both request forms, which writes nothing.
 */
import t from 'tap';
import { rowsOf, sql, startServer, type TestServer } from '../helpers/server.js';

const ACCESS_YAML = `processors:
  - dissect:
      fields:
        - line
      patterns:
        - '%{ip} %{method} %{path} %{status}'
transform:
  - fields:
      - ip
    type: string
    index: inverted
    tag: true
  - fields:
      - method
    type: string
  - field: path
    type: string
    index: fulltext
  - field: status
    type: uint32
`;
const AUTO_YAML = `processors:
  - epoch:
      field: ts
      resolution: ms
`;

async function post(url: string, path: string, body: string | Uint8Array, contentType?: string) {
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function get(url: string, path: string, method = 'GET') {
  const res = await fetch(`${url}${path}`, { method });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

t.test('pipeline management', async (t) => {
  let server: TestServer = await startServer();
  t.teardown(() => server.stop());
  const url = () => server.url;

  await t.test('create refusals: status and message', async (t) => {
    const cases: Array<{ name: string; path: string; body: string; type?: string; status: number; error?: RegExp }> = [
      { name: 'no content type', path: '/v1/pipelines/p', body: AUTO_YAML, status: 415 },
      { name: 'json content type', path: '/v1/pipelines/p', body: AUTO_YAML, type: 'application/json', status: 415 },
      {
        name: 'reserved name',
        path: '/v1/pipelines/greptime_x',
        body: AUTO_YAML,
        type: 'application/x-yaml',
        status: 400,
        error: /pipeline_name cannot start with greptime_/,
      },
      {
        name: 'empty body',
        path: '/v1/pipelines/p',
        body: '  ',
        type: 'text/yaml',
        status: 400,
        error: /pipeline is required in body/,
      },
      {
        name: 'invalid YAML names line and column',
        path: '/v1/pipelines/p',
        body: 'processors:\n  - date: {field: a\n',
        type: 'application/x-yaml',
        status: 400,
        error: /line \d+, column \d+/,
      },
      {
        // Found by fuzzing: the YAML library throws a ReferenceError only when building the value.
        name: 'an alias without its anchor names its line and column',
        path: '/v1/pipelines/p',
        body: 'processors:\n  - letter:\n      fields: [*nowhere]\n      method: upper\n',
        type: 'application/x-yaml',
        status: 400,
        error: /Unresolved alias.*line 3, column 16/,
      },
      {
        name: 'unknown processor named',
        path: '/v1/pipelines/p',
        body: 'processors:\n  - frobnicate:\n      field: a\n',
        type: 'application/x-yaml',
        status: 400,
        error: /frobnicate/,
      },
      {
        name: 'unknown option named with its position',
        path: '/v1/pipelines/p',
        body: 'processors:\n  - letter:\n      field: a\n      colour: red\n',
        type: 'application/x-yaml',
        status: 400,
        error: /colour.*line 4/,
      },
      {
        name: 'v2 without a time index',
        path: '/v1/pipelines/p',
        body: 'version: 2\nprocessors: []\ntransform:\n  - field: a\n    type: string\n',
        type: 'application/x-yaml',
        status: 400,
      },
    ];
    for (const c of cases) {
      const res = await post(url(), c.path, c.body, c.type);
      t.equal(res.status, c.status, `${c.name}: status`);
      if (c.error) t.match(JSON.parse(res.text).error, c.error, `${c.name}: message`);
    }
    t.equal((await get(url(), '/v1/pipelines/p')).status, 400, 'nothing was stored');
  });

  const created: string[] = [];
  await t.test('versions: create, read latest and by version, multipart', async (t) => {
    for (const body of [AUTO_YAML, ACCESS_YAML]) {
      const res = await post(url(), '/v1/pipelines/access', body, 'application/x-yaml');
      t.equal(res.status, 200);
      t.equal(res.headers.get('x-greptime-format'), 'greptimedb_manage');
      const out = JSON.parse(res.text) as { pipelines: Array<{ name: string; version: string }> };
      t.equal(out.pipelines[0]?.name, 'access');
      t.match(out.pipelines[0]?.version, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?$/);
      created.push(out.pipelines[0]?.version as string);
    }
    const latest = JSON.parse((await get(url(), '/v1/pipelines/access')).text);
    t.same(latest.pipelines, [{ name: 'access', version: created[1], pipeline: ACCESS_YAML }], 'latest is the last');
    const first = JSON.parse(
      (await get(url(), `/v1/pipelines/access?version=${encodeURIComponent(created[0] as string)}`)).text,
    );
    t.equal(first.pipelines[0].pipeline, AUTO_YAML, 'an older version by its text');
    const form = new FormData();
    form.append('file', new Blob([AUTO_YAML]), 'p.yaml');
    const res = await fetch(`${url()}/v1/pipelines/multi`, { method: 'POST', body: form });
    t.equal(res.status, 200, 'multipart body');
    t.equal(JSON.parse((await get(url(), '/v1/pipelines/multi')).text).pipelines[0].pipeline, AUTO_YAML);
    t.match(JSON.parse((await get(url(), '/v1/pipelines/nope')).text).error, /Pipeline not found, name: nope/);
    t.equal((await get(url(), '/v1/pipelines/access?version=yesterday')).status, 400, 'a bad version text');
  });

  await t.test('stored in greptime_private.pipelines and kept over a restart', async (t) => {
    const rows = rowsOf(
      (
        await sql(
          url(),
          "SELECT name, pipeline FROM greptime_private.pipelines WHERE name = 'access' ORDER BY created_at",
        )
      ).body,
    );
    t.same(rows, [
      ['access', AUTO_YAML],
      ['access', ACCESS_YAML],
    ]);
    await server.stop();
    server = await startServer({ dataDir: server.dataDir });
    const latest = JSON.parse((await get(url(), '/v1/pipelines/access')).text);
    t.equal(latest.pipelines[0].version, created[1], 'the same latest version after a restart');
  });

  await t.test('delete one version', async (t) => {
    t.match(JSON.parse((await get(url(), '/v1/pipelines/access', 'DELETE')).text).error, /version is required/);
    const v = encodeURIComponent(created[1] as string);
    const del = JSON.parse((await get(url(), `/v1/pipelines/access?version=${v}`, 'DELETE')).text);
    t.same(del.pipelines, [{ name: 'access', version: created[1] }]);
    t.same(JSON.parse((await get(url(), `/v1/pipelines/access?version=${v}`, 'DELETE')).text).pipelines, [], 'gone');
    t.equal(
      JSON.parse((await get(url(), '/v1/pipelines/access')).text).pipelines[0].version,
      created[0],
      'the older is latest',
    );
    const rows = rowsOf(
      (await sql(url(), "SELECT count(*) FROM greptime_private.pipelines WHERE name = 'access'")).body,
    );
    t.equal(Number(rows[0]?.[0]), 1, 'one row left in the table');
    t.equal((await post(url(), '/v1/pipelines/access', ACCESS_YAML, 'application/x-yaml')).status, 200);
  });

  await t.test('DDL', async (t) => {
    const ddl = JSON.parse((await get(url(), '/v1/pipelines/access/ddl?table=weblog')).text);
    t.match(ddl.sql.sql, /^CREATE TABLE IF NOT EXISTS `weblog` \(/);
    t.match(ddl.sql.sql, /`ip` STRING NULL INVERTED INDEX/);
    t.match(ddl.sql.sql, /`path` STRING NULL FULLTEXT INDEX WITH\(analyzer = 'English'/);
    t.match(ddl.sql.sql, /`status` INT UNSIGNED NULL/);
    t.match(ddl.sql.sql, /`greptime_timestamp` TIMESTAMP\(9\) NOT NULL/);
    t.match(ddl.sql.sql, /PRIMARY KEY \(`ip`\)/);
    t.match(ddl.sql.sql, /append_mode = 'true'/);
    t.notOk(ddl.sql.message, 'no message for a new table');
    t.match(JSON.parse((await get(url(), '/v1/pipelines/access/ddl')).text).error, /table is required/);
    t.match(
      JSON.parse((await get(url(), '/v1/pipelines/greptime_identity/ddl?table=x')).text).error,
      /built-in pipelines/,
    );
    t.equal((await post(url(), '/v1/pipelines/auto', AUTO_YAML, 'application/x-yaml')).status, 200);
    t.match(JSON.parse((await get(url(), '/v1/pipelines/auto/ddl?table=x')).text).error, /auto transform/);
    await sql(url(), 'CREATE TABLE weblog (ts TIMESTAMP TIME INDEX, v DOUBLE)');
    t.match(
      JSON.parse((await get(url(), '/v1/pipelines/access/ddl?table=weblog')).text).sql.message,
      /table already exists/,
    );
  });

  await t.test('dry run: both forms, nothing written', async (t) => {
    const data = JSON.stringify([{ line: '1.2.3.4 GET /a 200' }]);
    const formA = await post(
      url(),
      '/v1/pipelines/_dryrun',
      JSON.stringify({ pipeline_name: 'access', data }),
      'application/json',
    );
    t.equal(formA.status, 200);
    const [table] = JSON.parse(formA.text);
    t.equal(table.table_name, 'dry_run');
    t.same(
      table.schema.map((c: { name: string; data_type: string; column_type: string }) => [
        c.name,
        c.data_type,
        c.column_type,
      ]),
      [
        ['ip', 'STRING', 'TAG'],
        ['method', 'STRING', 'FIELD'],
        ['path', 'STRING', 'FIELD'],
        ['status', 'UINT32', 'FIELD'],
        ['greptime_timestamp', 'TIMESTAMP_NANOSECOND', 'TIMESTAMP'],
      ],
    );
    t.same(
      table.rows[0].slice(0, 4).map((c: { value: unknown }) => c.value),
      ['1.2.3.4', 'GET', '/a', 200],
    );
    const inline = await post(
      url(),
      '/v1/pipelines/_dryrun',
      JSON.stringify({ pipeline: AUTO_YAML, data: JSON.stringify({ ts: 1716668197217, x: 'y' }) }),
      'application/json',
    );
    t.equal(inline.status, 200, 'an inline pipeline');
    const cols = JSON.parse(inline.text)[0].schema.map(
      (c: { name: string; data_type: string }) => `${c.name}:${c.data_type}`,
    );
    t.same(cols.sort(), ['ts:TIMESTAMP_MILLISECOND', 'x:STRING']);
    const broken = await post(
      url(),
      '/v1/pipelines/_dryrun',
      JSON.stringify({ pipeline: 'processors: 7', data: '{}' }),
      'application/json',
    );
    t.equal(broken.status, 400);
    t.match(JSON.parse(broken.text).error, /^Failed to build pipeline/);
    const formB = await post(url(), '/v1/pipelines/_dryrun?pipeline_name=access', '1.2.3.4 GET /b 404\n', 'text/plain');
    t.equal(formB.status, 400, 'form B with text lines: the record has no `line` key');
    const formB2 = await post(
      url(),
      '/v1/pipelines/_dryrun?pipeline_name=access',
      `{"line":"5.6.7.8 PUT /c 201"}`,
      'application/x-ndjson',
    );
    t.equal(JSON.parse(formB2.text)[0].rows[0][3].value, 201, 'form B with NDJSON');
    const many = Array.from({ length: 11 }, () => ({ line: '1.2.3.4 GET /a 200' }));
    const tooMany = await post(
      url(),
      '/v1/pipelines/_dryrun',
      JSON.stringify({ pipeline_name: 'access', data: JSON.stringify(many) }),
      'application/json',
    );
    t.equal(tooMany.status, 400, 'more than 10 records');
    const traced = await post(
      url(),
      '/v1/pipelines/_dryrun?trace=true',
      JSON.stringify({
        pipeline:
          'processors:\n  - dissect:\n      field: line\n      pattern: "%{a} %{b}"\n  - letter:\n      field: a\n      method: upper\ntransform:\n  - fields: [a, b]\n    type: string\n',
        data: JSON.stringify([{ line: 'x y' }, { line: 'nospace' }]),
      }),
      'application/json',
    );
    t.equal(traced.status, 200, `a trace does not fail on a bad record: ${traced.text}`);
    const tr = JSON.parse(traced.text);
    t.same(
      tr.trace[0].steps,
      [
        { processor: 'dissect', output: { a: 'x', b: 'y', line: 'x y' } },
        { processor: 'letter', output: { a: 'X', b: 'y', line: 'x y' } },
      ],
      'each processor output of a record that goes through',
    );
    t.equal(tr.trace[1].steps.length, 1, 'the trace stops where the record fails');
    t.match(tr.trace[1].steps[0], { processor: 'dissect', error: /No matching pattern/ });
    t.same(
      tr.failures.map((f: { record: number }) => f.record),
      [1],
    );
    t.equal(tr.results[0].rows.length, 1, 'rows of the records that made it');
    const tables = rowsOf((await sql(url(), "SHOW TABLES LIKE 'dry_run%'")).body);
    t.same(tables, [], 'the dry run wrote nothing');
  });
});
