/**
 * `/v1/sql/format` and `/v1/sql/parse` over real HTTP (reference §5): success bodies, the native
 * versus short error bodies, and `format` round trips over every statement of the conformance
 * corpus (formatting formatted text must give the same text).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startServer } from '../helpers/server.js';

const CORPUS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/conformance/sql/common');

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function call(
  url: string,
  tool: 'format' | 'parse',
  form: Record<string, string> | null,
  query = '',
): Promise<Answer> {
  const target = `${url}/v1/sql/${tool}${query ? `?${query}` : ''}`;
  const res =
    form === null
      ? await fetch(target)
      : await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const q = (sql: string) => `sql=${encodeURIComponent(sql)}`;

/** Statements of one corpus file, split as conformance README §2.2 says. */
function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let lines: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('--')) continue;
    if (line.length === 0) continue;
    lines.push(line);
    if (line.endsWith(';')) {
      statements.push(lines.join('\n').trimStart());
      lines = [];
    }
  }
  return statements;
}

function corpusFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...corpusFiles(full));
    else if (entry.name.endsWith('.sql')) out.push(full);
  }
  return out.sort();
}

const server = await startServer({ shards: 1 });
t.teardown(() => server.stop());
const url = server.url;

t.test('format re-renders each statement in canonical form, one per line', async (t) => {
  const one = await call(url, 'format', null, q('select 1 as x'));
  t.equal(one.status, 200);
  t.equal(one.headers.get('content-type'), 'application/json');
  t.equal(one.text, '{"formatted":"SELECT 1 AS x;"}');
  t.equal(one.headers.get('x-greptime-format'), null, 'format is not a /v1/sql answer');
  const two = await call(url, 'format', null, q('select 1; select 2'));
  t.same(JSON.parse(two.text), { formatted: 'SELECT 1;\nSELECT 2;' });
  const posted = await call(url, 'format', { sql: 'select   host  from cpu where v>1' });
  t.equal(posted.status, 200);
  t.same(JSON.parse(posted.text), { formatted: 'SELECT host FROM cpu WHERE v > 1;' });
  const urlWins = await call(url, 'format', { sql: 'select 3' }, q('select 4'));
  t.same(JSON.parse(urlWins.text), { formatted: 'SELECT 4;' }, 'the URL wins over the form');
  const empty = await call(url, 'format', null, 'sql=');
  t.same([empty.status, JSON.parse(empty.text)], [200, { formatted: '' }], 'an empty sql is no statement');
});

t.test('format errors use the native body', async (t) => {
  const missing = await call(url, 'format', null);
  t.equal(missing.status, 400);
  t.equal(missing.headers.get('x-greptime-err-code'), '1004');
  // The time is whatever the request took (0 or 1 ms on a loaded machine): check its type only.
  const missingBody = JSON.parse(missing.text) as { execution_time_ms: unknown };
  t.same(
    { ...missingBody, execution_time_ms: 0 },
    { code: 1004, error: 'sql parameter is required.', execution_time_ms: 0 },
  );
  t.type(missingBody.execution_time_ms, 'number');
  const formMissing = await call(url, 'format', { db: 'public' });
  t.same(JSON.parse(formMissing.text).code, 1004);

  const bad = await call(url, 'format', null, q('selec 1'));
  t.equal(bad.status, 400);
  t.equal(bad.headers.get('x-greptime-err-code'), '2000');
  const body = JSON.parse(bad.text);
  t.equal(body.code, 2000);
  t.match(body.error, /^Invalid SQL syntax: sql parser error: /);
  t.type(body.execution_time_ms, 'number');

  const notForm = await fetch(`${url}/v1/sql/format`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'select 1',
  });
  t.equal(notForm.status, 415, 'POST needs the form content type');
  t.equal(await notForm.text(), 'Form requests must have `Content-Type: application/x-www-form-urlencoded`');
});

t.test('parse answers an array with one externally tagged object per statement', async (t) => {
  const desc = await call(url, 'parse', null, q('desc table cpu'));
  t.equal(desc.status, 200);
  t.equal(desc.headers.get('content-type'), 'application/json');
  const parsed = JSON.parse(desc.text);
  t.ok(Array.isArray(parsed));
  t.equal(parsed.length, 1);
  t.same(Object.keys(parsed[0]), ['DescribeTable']);
  t.match(JSON.stringify(parsed[0].DescribeTable), /"cpu"/);

  const many = JSON.parse((await call(url, 'parse', { sql: 'select 1; create database x; show tables' })).text);
  t.same(
    many.map((s: object) => Object.keys(s)),
    [['Query'], ['CreateDatabase'], ['ShowTables']],
  );
  const none = await call(url, 'parse', null, 'sql=');
  t.same([none.status, none.text], [200, '[]']);
});

t.test('parse errors use the short body', async (t) => {
  const missing = await call(url, 'parse', null);
  t.equal(missing.status, 400);
  t.equal(missing.text, '{"error":"Invalid query: sql parameter is required."}');
  t.equal(missing.headers.get('x-greptime-err-code'), null);
  const bad = await call(url, 'parse', { sql: 'select from where' });
  t.equal(bad.status, 400);
  const body = JSON.parse(bad.text);
  t.same(Object.keys(body), ['error'], 'no code field');
  t.match(body.error, /^Invalid SQL syntax: sql parser error: /);
  const notForm = await fetch(`${url}/v1/sql/parse`, { method: 'POST', body: 'sql=select 1' });
  t.equal(notForm.status, 415);
});

t.test('formatting a formatted statement gives the same text, across the SQL corpus', async (t) => {
  const files = corpusFiles(CORPUS_DIR);
  t.ok(files.length > 0, `corpus found at ${CORPUS_DIR}`);
  let statements = 0;
  let unparsed = 0;
  const unstable: string[] = [];
  for (const file of files) {
    for (const statement of splitStatements(fs.readFileSync(file, 'utf8'))) {
      statements++;
      const first = await call(url, 'format', { sql: statement });
      if (first.status !== 200) {
        const code = JSON.parse(first.text).code;
        // Statements the parser refuses (syntax or not yet supported) are skipped and counted.
        if (code !== 2000 && code !== 1001) unstable.push(`${path.basename(file)}: ${statement} → ${first.text}`);
        unparsed++;
        continue;
      }
      const formatted = JSON.parse(first.text).formatted as string;
      const second = await call(url, 'format', { sql: formatted });
      const again = second.status === 200 ? (JSON.parse(second.text).formatted as string) : second.text;
      if (again !== formatted)
        unstable.push(`${path.basename(file)}: ${statement}\n  1st: ${formatted}\n  2nd: ${again}`);
    }
  }
  t.comment(`format round trip: ${statements} statements, ${unparsed} unparsed`);
  t.ok(statements > 1000, 'the whole corpus was read');
  t.same(unstable, [], 'every parsed statement formats to a fixed point');
});
