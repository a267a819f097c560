/**
 * ShoalDB's side of every section: its SQL endpoint as the sections call it, and the flush that
 * moves what was loaded out of the memtables, so queries read segments as they would for data
 * older than a few minutes.
 */
import { timedFetch } from './load.js';
import { countAnswer } from './timing.js';

interface SqlBody {
  output?: Array<{ records?: { rows: unknown[][] } }>;
  error?: string;
}

/** Runs one statement; the answer's rows, with the client-side milliseconds. */
export async function shoalSql(url: string, sql: string): Promise<{ ms: number; rows: unknown[][] }> {
  const r = await timedFetch(`${url}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql }).toString(),
  });
  if (r.status !== 200) throw new Error(`ShoalDB ${r.status} for ${sql.slice(0, 80)}: ${r.text.slice(0, 300)}`);
  const body = JSON.parse(r.text) as SqlBody;
  return { ms: r.ms, rows: body.output?.[0]?.records?.rows ?? [] };
}

/** A timed SQL query whose answer is its row count (and with `exact`, the sum of its last column). */
export function shoalSqlQuery(url: string, sql: string, exact = false) {
  return async () => {
    const r = await shoalSql(url, sql);
    return {
      ms: r.ms,
      answer: countAnswer(r.rows.length, 'rows', exact ? r.rows.map((row) => row.at(-1)) : undefined),
    };
  };
}

export async function flushTables(url: string, tables: string[]): Promise<void> {
  for (const table of tables) await shoalSql(url, `ADMIN flush_table('${table}')`);
}

export async function countRows(url: string, tables: string[]): Promise<number> {
  let rows = 0;
  for (const table of tables)
    rows += Number((await shoalSql(url, `SELECT count(*) FROM "${table}"`)).rows[0]?.[0] ?? 0);
  return rows;
}
