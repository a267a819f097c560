/**
 * The dashboard's only way to the server. Every URL is relative to the page's base, so the
 * dashboard keeps working when a reverse proxy mounts the server under a path prefix.
 */

/** The server root as seen by the browser: `/dashboard/`'s parent, prefix included. */
export const ROOT = new URL('../', document.baseURI);

export function url(path: string): string {
  return new URL(path, ROOT).toString();
}

const AUTH_KEY = 'shoaldb.auth';

/** Basic credentials of the login form, kept for the tab's session only. */
export function setCredentials(user: string, password: string): void {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  sessionStorage.setItem(AUTH_KEY, btoa(binary));
}

export function clearCredentials(): void {
  sessionStorage.removeItem(AUTH_KEY);
}

export function hasCredentials(): boolean {
  return sessionStorage.getItem(AUTH_KEY) !== null;
}

/** A refused request, with the position in the query when the server's message names one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly position: { line: number; column: number } | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * `at Line: L, Column: C` (SQL, as sqlparser says it), `at line L, column C` (a pipeline's YAML)
 * or `L:C: parse error` (PromQL, after the Prometheus API's `invalid parameter "query": `).
 */
export function positionOf(message: string): { line: number; column: number } | null {
  const sqlAt = /at line:? (\d+), column:? (\d+)/i.exec(message);
  if (sqlAt) return { line: Number(sqlAt[1]), column: Number(sqlAt[2]) };
  const promAt = /(?:^|: )(\d+):(\d+): parse error/.exec(message);
  if (promAt) return { line: Number(promAt[1]), column: Number(promAt[2]) };
  return null;
}

/** Listeners told when the server asks for credentials (the login form opens). */
const authListeners: Array<() => void> = [];
export function onAuthRequired(listener: () => void): void {
  authListeners.push(listener);
}

/** fetch with the session's credentials; a 401 opens the login form and throws. */
export async function authedFetch(input: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const auth = sessionStorage.getItem(AUTH_KEY);
  if (auth !== null) headers.set('authorization', `Basic ${auth}`);
  const res = await fetch(input, { ...init, headers });
  if (res.status === 401) {
    for (const listener of authListeners) listener();
    throw new ApiError(await errorText(res), 401);
  }
  return res;
}

async function errorText(res: Response): Promise<string> {
  const body = await res.text();
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // a plain-text refusal
  }
  return body || `${res.status} ${res.statusText}`;
}

async function checked(res: Response): Promise<Response> {
  if (res.ok) return res;
  const message = await errorText(res);
  throw new ApiError(message, res.status, positionOf(message));
}

export interface Column {
  name: string;
  type: string;
}

export interface Records {
  columns: Column[];
  rows: unknown[][];
}

export interface SqlAnswer {
  /** The last statement's records; null when it only changed rows. */
  records: Records | null;
  affectedRows: number | null;
  serverMs: number;
}

interface SqlBody {
  output?: Array<{
    records?: { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: unknown[][] };
    affectedrows?: number;
  }>;
  execution_time_ms?: number;
}

function recordsOf(body: SqlBody): SqlAnswer {
  const last = body.output?.[body.output.length - 1];
  const rec = last?.records;
  return {
    records: rec
      ? { columns: rec.schema.column_schemas.map((c) => ({ name: c.name, type: c.data_type })), rows: rec.rows }
      : null,
    affectedRows: last?.affectedrows ?? null,
    serverMs: body.execution_time_ms ?? 0,
  };
}

export async function sql(statement: string, db = 'public', signal?: AbortSignal): Promise<SqlAnswer> {
  const res = await authedFetch(url(`v1/sql?db=${encodeURIComponent(db)}`), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: statement }).toString(),
    signal: signal ?? null,
  });
  return recordsOf((await (await checked(res)).json()) as SqlBody);
}

/** The rows of a query as objects keyed by column name. */
export async function sqlObjects(statement: string, db = 'public'): Promise<Array<Record<string, unknown>>> {
  const { records } = await sql(statement, db);
  if (!records) return [];
  return records.rows.map((row) => Object.fromEntries(records.columns.map((c, i) => [c.name, row[i]])));
}

export interface Series {
  labels: Record<string, string>;
  /** [unix seconds, value] pairs as Prometheus sends them. */
  values: Array<[number, string]>;
}

export async function promRange(
  query: string,
  startS: number,
  endS: number,
  stepS: number,
  signal?: AbortSignal,
): Promise<Series[]> {
  const params = new URLSearchParams({ query, start: String(startS), end: String(endS), step: String(stepS) });
  const res = await authedFetch(url('v1/metricsapi/api/v1/query_range'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: params.toString(),
    signal: signal ?? null,
  });
  const body = (await (await checked(res)).json()) as {
    data?: { result?: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
  };
  return (body.data?.result ?? []).map((r) => ({ labels: r.metric, values: r.values }));
}

/** `/v1/logs`: a structured log query, answered like SQL. */
export async function logs(body: unknown, signal?: AbortSignal): Promise<SqlAnswer> {
  const res = await authedFetch(url('v1/logs'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: signal ?? null,
  });
  return recordsOf((await (await checked(res)).json()) as SqlBody);
}

export async function json<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await authedFetch(url(path), init);
  return (await (await checked(res)).json()) as T;
}

export async function textOf(path: string, init: RequestInit = {}): Promise<string> {
  const res = await authedFetch(url(path), init);
  return (await checked(res)).text();
}
