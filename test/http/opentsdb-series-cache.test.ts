/**
 * OpenTSDB put resolves a point's series through a cache keyed by its metric and tags as sent.
 * A cached series must never let a point with other (or invalid) tags through as itself, tags in
 * another order are the same series, a cached series still gets its value and timestamp checked
 * per point, and the cache holds per database.
 */
import t from 'tap';
import { type SqlBody, sql, startServer } from '../helpers/server.js';

const PUT = '/v1/tsjson/api/put';
const T = 1_700_000_000;

async function put(url: string, body: unknown, query = '') {
  const res = await fetch(`${url}${PUT}${query ? `?${query}` : ''}`, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function rows(url: string, statement: string, db?: string): Promise<unknown[][]> {
  const res = await sql(url, statement, db);
  const out = (res.body as SqlBody).output?.[0]?.records?.rows;
  if (!out) throw new Error(`${statement}: ${res.text}`);
  return out;
}

t.test('the OpenTSDB series cache', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const url = server.url;
  const point = (timestamp: number, value: unknown, tags: Record<string, unknown>) => ({
    metric: 'cache.m',
    timestamp,
    value,
    tags,
  });

  t.equal((await put(url, [point(T, 1, { a: 'x', b: 'y' })])).status, 204);
  t.equal((await put(url, [point(T + 1, 2, { b: 'y', a: 'x' })])).status, 204, 'tags in another order');

  // Strings that would spell the cached key if parts were only concatenated are other series,
  // and illegal characters are refused even though the series' neighbours are cached.
  const crafted = await put(url, [point(T + 2, 3, { a: 'x1:b1:y' })], 'details');
  t.equal(crafted.status, 400);
  t.match(crafted.json, { success: 0, failed: 1, errors: [{ error: /illegal character/ }] });
  const nul = await put(url, [point(T + 3, 4, { a: 'x\u0000', b: 'y' })], 'details');
  t.equal(nul.status, 400);
  t.match(nul.json, { failed: 1, errors: [{ error: /illegal character/ }] });

  const badValue = await put(
    url,
    [point(T + 4, 'abc', { a: 'x', b: 'y' }), point(T + 5, 5, { a: 'x', b: 'y' })],
    'details',
  );
  t.equal(badValue.status, 400);
  t.match(badValue.json, { success: 1, failed: 1, errors: [{ error: /Unable to parse value/ }] });
  const badTime = await put(url, [point(-1, 6, { a: 'x', b: 'y' })]);
  t.equal(badTime.status, 400, 'a cached series still has its timestamp checked');

  t.same(
    await rows(url, 'SELECT a, b, greptime_value FROM "cache.m" ORDER BY greptime_timestamp'),
    [
      ['x', 'y', 1],
      ['x', 'y', 2],
      ['x', 'y', 5],
    ],
    'one series, only the good points',
  );

  // Series are guessed as the successor of the previous one: a changed order must not mix them.
  const other = (timestamp: number, value: number, host: string) => ({
    metric: 'cache.g',
    timestamp,
    value,
    tags: { host },
  });
  t.equal((await put(url, [other(T, 1, 'a'), other(T, 2, 'b'), other(T, 3, 'c')])).status, 204);
  t.equal((await put(url, [other(T + 1, 4, 'a'), other(T + 1, 5, 'c'), other(T + 1, 6, 'b')])).status, 204);
  t.equal((await put(url, [other(T + 2, 7, 'a'), other(T + 2, 8, 'b'), other(T + 2, 9, 'b')])).status, 204);
  t.same(
    await rows(url, 'SELECT host, greptime_value FROM "cache.g" ORDER BY host, greptime_timestamp'),
    [
      ['a', 1],
      ['a', 4],
      ['a', 7],
      ['b', 2],
      ['b', 6],
      ['b', 9],
      ['c', 3],
      ['c', 5],
    ],
    'each point in its own series whatever the order (and the last of two at one time wins)',
  );

  // Same metric and tags in another database: its own table, not the cached public one.
  t.equal((await sql(url, 'CREATE DATABASE other')).status, 200);
  t.equal((await put(url, [point(T, 7, { a: 'x', b: 'y' })], 'db=other')).status, 204);
  t.same(await rows(url, 'SELECT greptime_value FROM "cache.m"', 'other'), [[7]]);
  t.same((await rows(url, 'SELECT count(*) FROM "cache.m"'))[0], [3]);
});
