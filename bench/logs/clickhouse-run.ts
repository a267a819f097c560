/**
 * The log bench on a fresh ClickHouse: one MergeTree table per data set (`ORDER BY` its time
 * column), the pre-parsed JSONEachRow bodies posted as `INSERT INTO <table> FORMAT JSONEachRow`
 * with the same lines per request and requests in flight as ShoalDB, counts verified, bytes on
 * disk from `system.parts` after `OPTIMIZE TABLE ... FINAL`; then the same searches.
 *
 * ClickHouse 18.16 has no `hasToken` (19.x), no token or n-gram skip indexes and no DateTime64:
 * the term and phrase searches are case-sensitive substring scans with `position(col, '...')`,
 * which give the same counts on this data as ShoalDB's case-sensitive `matches_term`, and the page
 * is the `LIKE '%camera%'` ShoalDB's `/v1/logs` Contains filter becomes. Time columns are
 * DateTime (seconds). Inserts are not fsynced (no `fsync_after_insert` in 18.16), while ShoalDB
 * answers after its WAL fsync.
 */
import { type ClickHouseServer, startClickHouse } from './clickhouse.js';
import { RARE_TERM } from './generate.js';
import { bestOfThree, type IngestFigures, postAll, type RunFigures, type SearchFigures } from './load.js';
import type { LogSet } from './sets.js';

/** How the ClickHouse searches match text, for the printout. */
export const CLICKHOUSE_SEARCH_NOTE =
  "ClickHouse 18.16 has no hasToken: terms and phrase use position(col, '...') > 0 (case-sensitive substring, full scan), the page LIKE '%camera%'";

const quoted = (name: string) => `\`${name.replaceAll('`', '\\`')}\``;

function createTable(set: LogSet): string {
  const columns = set.clickhouse?.columns ?? [];
  const sortKey = columns[0]?.[0] as string;
  return `CREATE TABLE ${set.table} (${columns.map(([name, type]) => `${quoted(name)} ${type}`).join(', ')}) ENGINE = MergeTree() ORDER BY ${quoted(sortKey)}`;
}

async function activePartBytes(server: ClickHouseServer, table: string): Promise<number> {
  const text = await server.query(
    `SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = currentDatabase() AND table = '${table}'`,
  );
  return Number(text.trim());
}

/** One ClickHouse run on a fresh server, always stopped. Needs `addClickHouseBodies` first. */
export async function runClickHouse(sets: LogSet[], concurrency: number): Promise<RunFigures> {
  const server = await startClickHouse();
  try {
    const ingest: IngestFigures[] = [];
    for (const set of sets) {
      if (!set.clickhouse) throw new Error(`${set.table}: no ClickHouse bodies`);
      await server.query(createTable(set));
      const f = await postAll({
        url: new URL(`${server.url}/?query=${encodeURIComponent(`INSERT INTO ${set.table} FORMAT JSONEachRow`)}`),
        headers: { 'content-type': 'application/x-ndjson' },
        bodies: set.clickhouse.bodies,
        rawBytes: set.rawBytes,
        lines: set.lines,
        concurrency,
        pid: server.pid,
        healthUrl: `${server.url}/ping`,
      });
      f.stored = Number((await server.query(`SELECT count() FROM ${set.table}`)).trim());
      if (f.firstFailure) console.log(`  ClickHouse ${set.name}: first failure: ${f.firstFailure}`);
      ingest.push(f);
    }
    for (const [i, set] of sets.entries()) {
      await server.query(`OPTIMIZE TABLE ${set.table} FINAL`);
      (ingest[i] as IngestFigures).diskBytesPerLine = (await activePartBytes(server, set.table)) / set.lines;
    }

    const count = (where: string) => async () =>
      (await server.query(`SELECT count() FROM access WHERE ${where}`)).trim();
    const page = async () => {
      const text = await server.query(
        "SELECT ts, path, status FROM access WHERE ts >= toDateTime('2024-01-01 00:00:00', 'UTC') AND ts < toDateTime('2025-01-01 00:00:00', 'UTC') AND path LIKE '%camera%' LIMIT 100 FORMAT JSONCompact",
      );
      return `${(JSON.parse(text) as { data: unknown[] }).data.length} rows`;
    };
    const queries: Array<[string, () => Promise<string>]> = [
      ['rare term', count(`position(path, '${RARE_TERM}') > 0`)],
      ['frequent term', count(`position(agent, 'Mozilla') > 0`)],
      ['phrase', count(`position(agent, 'Linux x86_64') > 0`)],
      ['page of 100 matches', page],
    ];
    const searches: SearchFigures[] = [];
    for (const [search, run] of queries) searches.push({ search, ...(await bestOfThree(run)) });
    return { ingest, searches };
  } finally {
    await server.stop();
  }
}
