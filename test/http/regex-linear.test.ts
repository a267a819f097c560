/**
 * Query regexes run on a linear-time RE2 engine: a row that makes a backtracking engine take
 * exponential time (`^(a+)+$` against 64 `a`s and a `b`) is answered at once over SQL and PromQL,
 * while health checks and writes keep being served. Also pins the RE2 semantics users see
 * (scoped flags, `\pL`, POSIX classes, replacement templates) and how bad patterns are refused.
 */
import t from 'tap';
import { rowsOf, type SqlBody, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const T_SECONDS = 1_700_000_000;
const EVIL_HOST = `${'a'.repeat(64)}b`;
const HOSTS = [EVIL_HOST, 'aaaa', 'web-1', 'Web-2', 'héllo'];
const API = '/v1/metricsapi/api/v1';
/** Far above a linear-time answer, far below the time a backtracking engine would need. */
const ANSWER_MS_MAX = 5_000;
const HEALTH_MS_MAX = 100;

async function started(): Promise<TestServer> {
  const server = await startServer();
  const lines = HOSTS.map((host, i) => `m,host=${host} v=${i + 1} ${T_SECONDS}`).join('\n');
  const written = await writeLines(server.url, lines, 'db=public&precision=s');
  if (written.status !== 204) throw new Error(`write failed: ${written.status} ${written.text}`);
  return server;
}

/** Stops the server, killing it if a stuck thread keeps it from shutting down. */
async function stopped(server: TestServer): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => resolve(server.kill()), 10_000);
  });
  await Promise.race([server.stop(), killed]);
  clearTimeout(timer);
}

async function sqlWithin(url: string, statement: string): Promise<{ status: number; body: SqlBody; ms: number }> {
  const began = performance.now();
  const res = await sql(url, statement, undefined);
  return { status: res.status, body: res.body, ms: performance.now() - began };
}

async function promql(url: string, query: string) {
  const began = performance.now();
  const params = new URLSearchParams({ query, time: String(T_SECONDS) });
  const res = await fetch(`${url}${API}/query?${params}`, { signal: AbortSignal.timeout(ANSWER_MS_MAX * 2) });
  // biome-ignore lint/suspicious/noExplicitAny: Prometheus JSON answers are checked field by field.
  const body = (await res.json()) as any;
  return { status: res.status, body, ms: performance.now() - began };
}

/** The single value of a `count(...)` instant query, or null for an empty vector. */
function countOf(body: { data?: { result?: Array<{ value: [number, string] }> } }): number | null {
  const result = body.data?.result ?? [];
  return result.length === 0 ? null : Number(result[0]?.value[1]);
}

async function healthMs(url: string): Promise<number> {
  const began = performance.now();
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(ANSWER_MS_MAX) });
  await res.text();
  return res.status === 200 ? performance.now() - began : Number.POSITIVE_INFINITY;
}

t.test('catastrophic-backtracking patterns answer at once and leave the server responsive', async (t) => {
  const server = await started();
  t.teardown(() => stopped(server));
  const url = server.url;
  // The first query of each language pays for JIT and catalog loading on the router thread;
  // warm up with harmless patterns so the timing below measures the regexes alone.
  t.ok((await healthMs(url)) < ANSWER_MS_MAX, 'warm-up health check');
  t.equal((await sqlWithin(url, "SELECT count(*) FROM m WHERE host ~ '^x$' OR host LIKE 'x%'")).status, 200);
  t.equal((await promql(url, 'count(m{host=~"x"})')).status, 200);

  const evilSql = sqlWithin(url, "SELECT count(*) FROM m WHERE host ~ '^(a+)+$'");
  const evilPromql = promql(url, 'count(m{host=~"(a+)+"})');
  const evilLike = sqlWithin(url, "SELECT count(*) FROM m WHERE host LIKE '%a%a%a%a%a%a%a%a%a%a%a%a%c'");
  const health = await healthMs(url);
  const write = await writeLines(url, `m,host=later v=9 ${T_SECONDS + 1}`, 'db=public&precision=s');
  t.ok(health < HEALTH_MS_MAX, `/health answers in ${health.toFixed(1)} ms while the queries run`);
  t.equal(write.status, 204, 'a write is acknowledged while the queries run');

  const s = await evilSql;
  t.equal(s.status, 200);
  t.same(rowsOf(s.body), [[1]], 'only aaaa matches; the 64 a + b host does not');
  t.ok(s.ms < ANSWER_MS_MAX, `SQL answered in ${s.ms.toFixed(0)} ms`);

  const p = await evilPromql;
  t.equal(p.status, 200);
  t.equal(countOf(p.body), 1, 'PromQL counts only aaaa');
  t.ok(p.ms < ANSWER_MS_MAX, `PromQL answered in ${p.ms.toFixed(0)} ms`);

  const l = await evilLike;
  t.same(rowsOf(l.body), [[0]], 'a LIKE with many % runs is no slower');
  t.ok(l.ms < ANSWER_MS_MAX, `LIKE answered in ${l.ms.toFixed(0)} ms`);

  t.ok((await healthMs(url)) < HEALTH_MS_MAX, '/health still answers fast afterwards');
});

t.test('SQL regexes follow RE2 syntax', async (t) => {
  const server = await started();
  t.teardown(() => stopped(server));
  const count = async (where: string): Promise<unknown> => {
    const r = await sqlWithin(server.url, `SELECT count(*) FROM m WHERE ${where}`);
    t.equal(r.status, 200, `${where}: ${JSON.stringify(r.body)}`);
    return rowsOf(r.body)[0]?.[0];
  };
  t.equal(await count("host ~ '(?i)^WEB-'"), 2, 'inline (?i)');
  t.equal(await count("host ~* '^web-'"), 2, '~* is case-insensitive');
  t.equal(await count("host !~ '^(a+)+$'"), 4, '!~ negates');
  t.equal(await count("host ~ '^(?i:W)eb'"), 2, 'a scoped flag applies inside its group');
  t.equal(await count("host ~ '^(?i:w)EB'"), 0, 'and only there');
  t.equal(await count("host ~ '^\\pL+$'"), 3, '\\pL is any letter');
  t.equal(await count("host ~ '^[[:alpha:]]+-[[:digit:]]$'"), 2, 'POSIX classes');
  t.equal(await count("host LIKE 'a%b'"), 1);
  t.equal(await count("host ILIKE 'WEB-_'"), 2);
  t.equal(await count("host LIKE 'h_llo'"), 1, '_ is one character, é included');

  const replaced = await sqlWithin(
    server.url,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: `${1}` is a regex replacement template.
    "SELECT regexp_replace('web-1', '^(\\w+)-(\\d)$', '$2:${1}'), regexp_replace('web-1', '(\\w+)-(\\d)', '\\2/\\1'), regexp_count('aaa', 'a*'), regexp_like('Ab', '^ab$', 'i')",
  );
  t.same(rowsOf(replaced.body), [['1:web', '1/web', 1, true]], 'templates $N, {N} and \\N; Rust match counting');

  const bad = await sqlWithin(server.url, "SELECT count(*) FROM m WHERE host ~ '(a'");
  t.equal(bad.status, 500, 'EngineExecuteQuery, as GreptimeDB maps it');
  t.equal(bad.body.code, 3001);
  t.match(bad.body.error, /Regular expression did not compile: error parsing regexp: missing closing \): `\(a`/);
  const lookahead = await sqlWithin(server.url, "SELECT count(*) FROM m WHERE host ~ 'a(?=b)'");
  t.equal(lookahead.body.code, 3001, 'RE2 has no lookaround');
});

t.test('PromQL regexes follow RE2 syntax', async (t) => {
  const server = await started();
  t.teardown(() => stopped(server));
  const count = async (query: string): Promise<number | null> => {
    const r = await promql(server.url, query);
    t.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
    return countOf(r.body);
  };
  t.equal(await count('count(m{host=~"(?i)WEB-.*"})'), 2, 'inline (?i)');
  t.equal(await count('count(m{host=~"web-.*"})'), 1, 'anchored: no partial match');
  t.equal(await count('count(m{host!~"a+|web.*"})'), 3);
  t.equal(await count('count(m{host=~"\\\\pL+"})'), 3, '\\pL is any letter');
  t.equal(await count('count(m{host=~"[[:alpha:]]+-[[:digit:]]"})'), 2, 'POSIX classes');

  const relabelled = await promql(
    server.url,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: `${1}` is a Go replacement template.
    'label_replace(m{host="web-1"}, "num", "$2-${1}", "host", "(\\\\w+)-(\\\\d)")',
  );
  t.equal(relabelled.body.data?.result?.[0]?.metric?.num, '1-web', 'label_replace expands $2 and {1}');

  const bad = await promql(server.url, 'count(m{host=~"(a"})');
  t.equal(bad.status, 400);
  t.equal(bad.body.errorType, 'bad_data');
  t.match(bad.body.error, /error parsing regexp: missing closing \): `\(a`/);
  const lookahead = await promql(server.url, 'count(m{host=~"a(?=b)"})');
  t.equal(lookahead.body.errorType, 'bad_data', 'RE2 has no lookaround');
});
