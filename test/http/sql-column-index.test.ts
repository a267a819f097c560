/**
 * Column indexes over HTTP: the DDL forms and SHOW CREATE TABLE, pipelines that declare them, and
 * segments whose term indexes let `matches_term` and `=` skip blocks while every answer stays
 * equal to the same query over an unindexed copy (flushed, overwritten, compacted, restarted,
 * and with a corrupted index section).
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { SegmentFile } from '../../src/shard/segment/segment-reader.js';
import { metricSum, rowsOf, sql, startServer, type TestServer } from '../helpers/server.js';

const EXTRA_TOML = '[segment]\nblock_rows = 64\ncompaction_trigger = 100\n';
const HOSTS = ['h0', 'h1', 'h2'];
const ROWS_PER_HOST = 1200;

const INDEXED_DDL = `CREATE TABLE logs (
  ts TIMESTAMP TIME INDEX,
  host STRING INVERTED INDEX,
  msg STRING FULLTEXT INDEX WITH(analyzer = 'English', case_sensitive = 'false'),
  trace_id STRING SKIPPING INDEX WITH(granularity = '4096', type = 'BLOOM'),
  PRIMARY KEY (host)
)`;
const PLAIN_DDL =
  'CREATE TABLE plain (ts TIMESTAMP TIME INDEX, host STRING, msg STRING, trace_id STRING, PRIMARY KEY (host))';

const EXPECTED_SHOW = `CREATE TABLE IF NOT EXISTS "logs" (
  "ts" TIMESTAMP(3) NOT NULL,
  "host" STRING NULL INVERTED INDEX,
  "msg" STRING NULL FULLTEXT INDEX WITH(analyzer = 'English', backend = 'bloom', case_sensitive = 'false', false_positive_rate = '0.01', granularity = '10240'),
  "trace_id" STRING NULL SKIPPING INDEX WITH(false_positive_rate = '0.01', granularity = '4096', type = 'BLOOM'),
  TIME INDEX ("ts"),
  PRIMARY KEY ("host")
)

ENGINE=mito
`;

function message(host: number, i: number): string {
  if (i === 700 && host === 1) return 'kernel PANIC at cpu_3: Oops';
  if (i % 400 === 17) return `worker ${i} restarted after timeout`;
  return `GET /api/v1/items/${i % 50} status=200 took ${i % 97}ms`;
}

async function run(t: Test, url: string, statement: string): Promise<unknown[][]> {
  const res = await sql(url, statement);
  if (res.status !== 200) t.fail(`${statement.slice(0, 200)}: ${res.text}`);
  return res.body.output?.[0]?.records ? rowsOf(res.body) : [];
}

async function insertBoth(t: Test, url: string, rows: string[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const values = rows.slice(i, i + 500).join(', ');
    for (const table of ['logs', 'plain'])
      await run(t, url, `INSERT INTO ${table} (ts, host, msg, trace_id) VALUES ${values}`);
  }
}

const FILTERS = [
  "matches_term(msg, 'panic')",
  "matches_term(msg, 'PANIC')",
  "matches_term(msg, 'cpu_3')",
  "matches_term(msg, 'restarted after')",
  "matches_term(msg, 'items/7')",
  "matches_term(msg, 'absent')",
  "matches_term(msg, 'status') AND host = 'h2' AND ts < 500",
  "trace_id = 't-h1-700'",
  "msg = 'kernel PANIC at cpu_3: Oops'",
  "matches_term(msg, 'panic') OR matches_term(msg, 'timeout')",
];

/** Every filter gives the same rows on `logs` as on `plain`; returns the blocks skipped meanwhile. */
async function compareAll(t: Test, url: string, label: string): Promise<number> {
  const before = await metricSum(url, 'shoaldb_index_blocks_skipped_total');
  for (const f of FILTERS) {
    const q = (table: string) => `SELECT host, ts, msg, trace_id FROM ${table} WHERE ${f} ORDER BY host, ts`;
    t.same(await run(t, url, q('logs')), await run(t, url, q('plain')), `${label}: ${f}`);
  }
  return (await metricSum(url, 'shoaldb_index_blocks_skipped_total')) - before;
}

t.test('column indexes in DDL, segments and queries', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'shoaldb-index-'));
  let server: TestServer = await startServer({ dataDir, extraToml: EXTRA_TOML });
  t.teardown(() => server.stop());
  const url = () => server.url;

  await t.test('CREATE TABLE with index clauses round-trips through SHOW CREATE TABLE', async (t) => {
    await run(t, url(), INDEXED_DDL);
    await run(t, url(), PLAIN_DDL);
    const shown = (await run(t, url(), 'SHOW CREATE TABLE logs'))[0]?.[1] as string;
    t.equal(shown, EXPECTED_SHOW);
    await run(t, url(), shown.replace('"logs"', '"logs_copy"'));
    const copy = (await run(t, url(), 'SHOW CREATE TABLE logs_copy'))[0]?.[1] as string;
    t.equal(copy, EXPECTED_SHOW.replace('"logs"', '"logs_copy"'));
    const bad = await sql(url(), 'CREATE TABLE bad (ts TIMESTAMP TIME INDEX, n INT FULLTEXT INDEX)');
    t.equal(bad.status, 400);
    t.match(bad.body.error, /FULLTEXT index only supports string type/);
    const badOption = await sql(
      url(),
      "CREATE TABLE bad (ts TIMESTAMP TIME INDEX, s STRING FULLTEXT INDEX WITH(analyzer = 'Klingon'))",
    );
    t.equal(badOption.status, 400);
  });

  await t.test('ALTER TABLE sets and unsets a column index', async (t) => {
    await run(
      t,
      url(),
      "ALTER TABLE logs_copy MODIFY COLUMN trace_id SET FULLTEXT INDEX WITH(analyzer = 'Chinese', case_sensitive = 'true')",
    );
    let shown = (await run(t, url(), 'SHOW CREATE TABLE logs_copy'))[0]?.[1] as string;
    t.match(
      shown,
      `"trace_id" STRING NULL FULLTEXT INDEX WITH(analyzer = 'Chinese', backend = 'bloom', case_sensitive = 'true', false_positive_rate = '0.01', granularity = '10240')`,
    );
    await run(t, url(), 'ALTER TABLE logs_copy MODIFY COLUMN trace_id UNSET FULLTEXT INDEX');
    shown = (await run(t, url(), 'SHOW CREATE TABLE logs_copy'))[0]?.[1] as string;
    t.match(shown, '"trace_id" STRING NULL,');
  });

  await t.test('flushed segments skip blocks and answer like an unindexed table', async (t) => {
    const rows: string[] = [];
    HOSTS.forEach((host, h) => {
      for (let i = 0; i < ROWS_PER_HOST; i++) rows.push(`(${i}, '${host}', '${message(h, i)}', 't-${host}-${i}')`);
    });
    await insertBoth(t, url(), rows);
    t.ok((await compareAll(t, url(), 'memtable')) === 0, 'memtables are scanned as before');
    await run(t, url(), "ADMIN flush_table('logs')");
    const skipped = await compareAll(t, url(), 'flushed');
    t.ok(skipped > 0, `blocks were skipped (${skipped})`);

    const before = await metricSum(url(), 'shoaldb_index_blocks_skipped_total');
    t.same(await run(t, url(), "SELECT count(*) FROM logs WHERE matches_term(msg, 'PANIC')"), [[1]]);
    const rare = (await metricSum(url(), 'shoaldb_index_blocks_skipped_total')) - before;
    t.ok(rare >= HOSTS.length * (ROWS_PER_HOST / 64) - 2, `a rare term skips nearly every block (${rare})`);
  });

  await t.test('newer rows in memtables and segments still hide older indexed ones', async (t) => {
    // Overwrite the PANIC row and a restarted row (same series and timestamp), first in the memtable.
    await insertBoth(t, url(), ["(700, 'h1', 'calm again', 't-h1-700')", "(17, 'h0', 'no news', 't-h0-17')"]);
    await compareAll(t, url(), 'overwritten in memtable');
    t.same(await run(t, url(), "SELECT count(*) FROM logs WHERE matches_term(msg, 'PANIC')"), [[0]]);
    await run(t, url(), "ADMIN flush_table('logs')");
    await compareAll(t, url(), 'overwritten in a newer segment');
    t.same(await run(t, url(), "SELECT count(*) FROM logs WHERE matches_term(msg, 'PANIC')"), [[0]]);
    await run(t, url(), "DELETE FROM logs WHERE host = 'h2' AND ts = 417");
    await run(t, url(), "DELETE FROM plain WHERE host = 'h2' AND ts = 417");
    await compareAll(t, url(), 'after a delete');
    await insertBoth(t, url(), ["(900, 'h2', 'second PANIC', 't-h2-900')"]);
    await run(t, url(), "ADMIN flush_table('logs')");
  });

  await t.test('compaction keeps the index', async (t) => {
    await run(t, url(), "ADMIN compact_table('logs')");
    const skipped = await compareAll(t, url(), 'compacted');
    t.ok(skipped > 0, `blocks were skipped after compaction (${skipped})`);
  });

  await t.test('after a restart the shards learn the indexes again', async (t) => {
    await server.stop();
    server = await startServer({ dataDir, extraToml: EXTRA_TOML });
    const skipped = await compareAll(t, url(), 'restarted');
    t.ok(skipped > 0, `blocks were skipped after restart (${skipped})`);
  });

  await t.test('a corrupted index section is detected and every block is read', async (t) => {
    await server.stop();
    let corrupted = 0;
    const shardsDir = path.join(dataDir, 'shards');
    for (const shard of fs.readdirSync(shardsDir)) {
      const segDir = path.join(shardsDir, shard, 'seg');
      if (!fs.existsSync(segDir)) continue;
      for (const table of fs.readdirSync(segDir)) {
        for (const name of fs.readdirSync(path.join(segDir, table))) {
          const abs = path.join(segDir, table, name);
          const file = SegmentFile.open(abs, name, 0, Number(table));
          const metas = [...file.indexes.values()];
          file.close();
          const meta = metas.find((m) => m.kind === 'fulltext');
          if (!meta) continue;
          const fd = fs.openSync(abs, 'r+');
          const byte = Buffer.alloc(1);
          fs.readSync(fd, byte, 0, 1, meta.offset + Math.floor(meta.length / 2));
          byte[0] = (byte[0] as number) ^ 0xff;
          fs.writeSync(fd, byte, 0, 1, meta.offset + Math.floor(meta.length / 2));
          fs.closeSync(fd);
          corrupted++;
        }
      }
    }
    t.ok(corrupted > 0, `corrupted ${corrupted} index sections`);
    server = await startServer({ dataDir, extraToml: EXTRA_TOML });
    await compareAll(t, url(), 'corrupted');
    t.ok((await metricSum(url(), 'shoaldb_index_sections_corrupt_total')) > 0, 'the corruption was counted');
  });
});

t.test('a pipeline with index: fulltext creates an indexed table', async (t) => {
  const server = await startServer({ extraToml: EXTRA_TOML });
  t.teardown(() => server.stop());
  const yaml = `processors:
  - epoch:
      field: t
      resolution: ms
transform:
  - field: msg
    type: string
    index: fulltext
  - field: code
    type: string
    index: skipping
  - field: t
    type: epoch, ms
    index: timestamp
`;
  const put = await fetch(`${server.url}/v1/pipelines/ft`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-yaml' },
    body: yaml,
  });
  t.equal(put.status, 200, await put.text());
  const records = Array.from({ length: 300 }, (_, i) => ({
    t: i,
    msg: i === 5 ? 'disk full' : `ok ${i}`,
    code: `c${i % 3}`,
  }));
  const ingest = await fetch(`${server.url}/v1/ingest?table=pl&pipeline_name=ft`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  t.equal(ingest.status, 200, await ingest.text());
  const shown = rowsOf((await sql(server.url, 'SHOW CREATE TABLE pl')).body)[0]?.[1] as string;
  t.match(
    shown,
    `"msg" STRING NULL FULLTEXT INDEX WITH(analyzer = 'English', backend = 'bloom', case_sensitive = 'false', false_positive_rate = '0.01', granularity = '10240')`,
  );
  t.match(
    shown,
    `"code" STRING NULL SKIPPING INDEX WITH(false_positive_rate = '0.01', granularity = '10240', type = 'BLOOM')`,
  );
  await sql(server.url, "ADMIN flush_table('pl')");
  const before = await metricSum(server.url, 'shoaldb_index_blocks_skipped_total');
  t.same(rowsOf((await sql(server.url, "SELECT t, msg FROM pl WHERE matches_term(msg, 'full')")).body), [
    [5, 'disk full'],
  ]);
  t.ok((await metricSum(server.url, 'shoaldb_index_blocks_skipped_total')) > before, 'the pipeline table was pruned');
});
