/**
 * A real log shipper: syslog-ng (Debian's package) receives syslog lines over TCP and posts them
 * in JSON batches with its http() destination to `/v1/ingest`, once through greptime_identity
 * and once through a stored dissect pipeline. Every line sent must be stored once, with its
 * fields.
 */
import net from 'node:net';
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';
import { startSyslogNg, syslogNgMissingReason } from '../helpers/syslog-ng.js';

const LINES = 60;

async function waitForCount(url: string, table: string, want: number): Promise<number> {
  const deadline = Date.now() + 20_000;
  let n = -1;
  while (Date.now() < deadline) {
    const res = await sql(url, `SELECT count(*) FROM ${table}`);
    n = res.status === 200 ? Number(rowsOf(res.body)[0]?.[0]) : -1;
    if (n >= want) return n;
    await new Promise((r) => setTimeout(r, 200));
  }
  return n;
}

const missing = syslogNgMissingReason();
t.test('syslog-ng ships syslog lines to /v1/ingest', { skip: missing ?? false }, async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const yaml = [
    'processors:',
    '  - dissect:',
    '      field: message',
    "      pattern: 'user=%{user} action=%{action} n=%{n}'",
    'transform:',
    '  - fields: [host, program, user, action]',
    '    type: string',
    '  - field: n',
    '    type: int64',
    '  - field: timestamp',
    '    type: string',
  ].join('\n');
  const created = await fetch(`${server.url}/v1/pipelines/syslog_dissect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-yaml' },
    body: yaml,
  });
  t.equal(created.status, 200, await created.clone().text());
  const http = (table: string, pipeline: string) => `http(
    url("${server.url}/v1/ingest?db=public&table=${table}&pipeline_name=${pipeline}")
    method("POST")
    headers("Content-Type: application/json")
    body-prefix("[")
    delimiter(",")
    body-suffix("]")
    body("$(format-json host=\${HOST} program=\${PROGRAM} message=\${MESSAGE} timestamp=\${ISODATE})")
    batch-lines(25)
    batch-timeout(200)
  )`;
  const syslog = await startSyslogNg(
    `destination d_identity { ${http('syslog_raw', 'greptime_identity')}; };\ndestination d_piped { ${http('syslog_parsed', 'syslog_dissect')}; };`,
    ['d_identity', 'd_piped'],
  );
  t.teardown(() => syslog.stop());
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(syslog.port, '127.0.0.1', () => {
      let text = '';
      for (let i = 0; i < LINES; i++) {
        text += `<13>Nov 25 10:00:${String(i % 60).padStart(2, '0')} web-${i % 3} billing[42]: user=u${i} action=${i % 2 ? 'login' : 'logout'} n=${i}\n`;
      }
      socket.end(text, () => resolve());
    });
    socket.once('error', reject);
  });
  t.equal(
    await waitForCount(server.url, 'syslog_raw', LINES),
    LINES,
    `all lines through greptime_identity\n${syslog.output()}`,
  );
  t.equal(await waitForCount(server.url, 'syslog_parsed', LINES), LINES, 'all lines through the dissect pipeline');
  const raw = rowsOf(
    (await sql(server.url, 'SELECT host, program, message FROM syslog_raw ORDER BY message LIMIT 2')).body,
  );
  t.same(raw, [
    ['web-0', 'billing', 'user=u0 action=logout n=0'],
    ['web-1', 'billing', 'user=u1 action=login n=1'],
  ]);
  const parsed = rowsOf((await sql(server.url, 'SELECT host, "user", action, n FROM syslog_parsed ORDER BY n')).body);
  t.equal(parsed.length, LINES);
  t.same(parsed[7], ['web-1', 'u7', 'login', 7]);
  const sum = rowsOf((await sql(server.url, 'SELECT sum(n), count(DISTINCT "user") FROM syslog_parsed')).body)[0];
  t.same(sum, [(LINES * (LINES - 1)) / 2, LINES], 'each line once');
});
