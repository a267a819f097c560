/**
 * Table-driven SQL function cases over HTTP: each case is a statement and either the rows it
 * must return or the error (HTTP status and GreptimeDB code) it must fail with. One server per
 * test file keeps the family files fast.
 */
import type { Test } from 'tap';
import { rowsOf, sql, startServer } from './server.js';

/** What a failing statement must answer. */
export interface ExpectedError {
  status: number;
  code: number;
  /** A part of the error message, when the wording matters. */
  message?: string;
}

/** A statement and its rows, or its error. */
export type FunctionCase = [statement: string, expected: unknown[][] | ExpectedError];

/** Starts a server, runs `setup` (DDL and inserts, each must succeed), then checks every case. */
export async function checkFunctionCases(t: Test, cases: FunctionCase[], setup: string[] = []): Promise<void> {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  for (const statement of setup) {
    const r = await sql(server.url, statement);
    t.equal(r.status, 200, `setup: ${statement}: ${r.text}`);
  }
  for (const [statement, expected] of cases) {
    const r = await sql(server.url, statement);
    if (Array.isArray(expected)) {
      if (r.status !== 200) {
        t.fail(`${statement}: ${r.status} ${r.text}`);
        continue;
      }
      t.same(rowsOf(r.body), expected, statement);
    } else {
      t.equal(r.status, expected.status, `${statement}: status (${r.text})`);
      t.equal(r.body.code, expected.code, `${statement}: code`);
      if (expected.message) t.match(r.body.error ?? '', expected.message, `${statement}: message`);
    }
  }
}

/** A planning error: no signature of the function matches the arguments. */
export const NO_SIGNATURE: ExpectedError = { status: 400, code: 3000, message: 'No function matches' };
