/**
 * A minimal runner for GreptimeDB sqlness cases (shared/conformance/README.md §2): splits a `.sql`
 * file into statements, runs them through `executeSql`, renders each output the way the `.result`
 * transcripts do, and reports which statements match exactly.
 */
import fs from 'node:fs';
import { executeSql } from '../../../../src/query/sql/exec/execute.js';
import type { SqlEnv, SqlSession } from '../../../../src/query/sql/plan/env.js';
import { displayValue } from '../../../../src/query/sql/types/display.js';
import type { Value } from '../../../../src/query/sql/types/values.js';
import { codeName, DbError } from '../../../../src/shared/errors.js';
import type { DataType } from '../../../../src/shared/types.js';

export interface SqlnessStatement {
  comments: string[];
  text: string;
}

/** Splits a `.sql` file as README §2.2 describes. */
export function splitStatements(source: string): SqlnessStatement[] {
  const out: SqlnessStatement[] = [];
  let comments: string[] = [];
  let lines: string[] = [];
  for (const line of source.split('\n')) {
    if (line.startsWith('--')) {
      comments.push(line);
      continue;
    }
    if (line.length === 0) continue;
    lines.push(line);
    if (line.endsWith(';')) {
      out.push({ comments, text: lines.join('\n') });
      comments = [];
      lines = [];
    }
  }
  return out;
}

/** Splits the `.result` transcript into one expected output per statement. */
export function expectedOutputs(statements: SqlnessStatement[], transcript: string): string[] {
  const echoes = statements.map((s) => `${s.comments.map((c) => `${c}\n`).join('')}${s.text}\n\n`);
  const outputs: string[] = [];
  let pos = 0;
  for (let i = 0; i < statements.length; i++) {
    const echo = echoes[i] as string;
    if (!transcript.startsWith(echo, pos)) throw new Error(`transcript does not echo statement ${i + 1}`);
    pos += echo.length;
    const nextEcho = echoes[i + 1];
    let end: number;
    if (nextEcho === undefined) end = transcript.length - 2;
    else {
      end = transcript.indexOf(`\n\n${nextEcho}`, pos);
      if (end < 0) throw new Error(`cannot find the end of output ${i + 1}`);
    }
    outputs.push(transcript.slice(pos, end));
    pos = end + 2;
  }
  return outputs;
}

function cellText(v: unknown, type: DataType): string {
  if (v === null || v === undefined) return '';
  return displayValue(v as Value, type);
}

function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s)
    w +=
      /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1faff}]/u.test(
        ch,
      )
        ? 2
        : 1;
  return w;
}

/** Renders a result table the way sqlness does (multi-line cells take several lines). */
export function renderTable(names: string[], rows: string[][]): string {
  if (rows.length === 0) return '++\n++';
  const cellLines = rows.map((r) => r.map((c) => c.split('\n')));
  const widths = names.map((n, i) =>
    Math.max(displayWidth(n), ...cellLines.flatMap((r) => (r[i] as string[]).map(displayWidth))),
  );
  const border = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (cells: string[]): string =>
    `|${cells.map((c, i) => ` ${c}${' '.repeat((widths[i] as number) - displayWidth(c))} `).join('|')}|`;
  const body: string[] = [];
  for (const r of cellLines) {
    const height = Math.max(...r.map((c) => c.length));
    for (let k = 0; k < height; k++) body.push(line(r.map((c) => c[k] ?? '')));
  }
  return [border, line(names), border, ...body, border].join('\n');
}

function applyDirectives(output: string, comments: string[]): string {
  let out = output;
  for (const c of comments) {
    const m = /^-- SQLNESS SORT_RESULT(?: (\d+))?(?: (\d+))?/.exec(c);
    if (m) {
      const lines = out.split('\n');
      const head = Number(m[1] ?? 0);
      const tail = Number(m[2] ?? 0);
      const middle = lines.slice(head, lines.length - tail).sort();
      out = [...lines.slice(0, head), ...middle, ...lines.slice(lines.length - tail)].join('\n');
    }
    const r = /^-- SQLNESS REPLACE (\S+) ?(.*)$/.exec(c);
    if (r) out = out.replace(new RegExp(r[1] as string, 'g'), r[2] ?? '');
  }
  return out;
}

export interface CaseOutcome {
  statement: string;
  expected: string;
  actual: string;
  pass: boolean;
}

/** What a runner can do besides executing statements. */
export interface CaseHooks {
  /** `-- SQLNESS ARG restart=true`: restart storage before the statement (data must persist). */
  restart?: () => Promise<void>;
}

/** Renders what executing `sql` produces, the way the transcripts print it. */
export async function renderOutcome(sql: string, session: SqlSession, env: SqlEnv): Promise<string> {
  try {
    const results = await executeSql(sql, session, env);
    const r = results[results.length - 1];
    if (!r) return '';
    if (r.kind === 'affected') return `Affected Rows: ${r.rows}`;
    return renderTable(
      r.columns.map((c) => c.name),
      r.rows.map((row) => row.map((v, k) => cellText(v, (r.columns[k] as { type: DataType }).type))),
    );
  } catch (err) {
    if (err instanceof DbError) return `Error: ${err.code}(${codeName(err.code)}), ${err.message}`;
    return `Error: internal ${(err as Error).stack}`;
  }
}

/**
 * Runs every statement of a case file in order. `PROTOCOL` statements need a MySQL or PostgreSQL
 * listener this engine does not have: they are not run and never match.
 */
export async function runCase(
  sqlFile: string,
  resultFile: string,
  env: SqlEnv,
  hooks: CaseHooks = {},
): Promise<CaseOutcome[]> {
  const statements = splitStatements(fs.readFileSync(sqlFile, 'utf8'));
  const expected = expectedOutputs(statements, fs.readFileSync(resultFile, 'utf8'));
  const session: SqlSession = { db: 'public', timezone: 'UTC' };
  const outcomes: CaseOutcome[] = [];
  for (let i = 0; i < statements.length; i++) {
    const s = statements[i] as SqlnessStatement;
    const want = expected[i] as string;
    if (s.comments.some((c) => c.startsWith('-- SQLNESS PROTOCOL'))) {
      outcomes.push({ statement: s.text, expected: want, actual: '(not run: wire protocol)', pass: false });
      continue;
    }
    if (hooks.restart && s.comments.some((c) => /^-- SQLNESS ARG .*\brestart=true\b/.test(c))) await hooks.restart();
    const actual = applyDirectives(await renderOutcome(s.text.trimStart(), session, env), s.comments);
    outcomes.push({ statement: s.text, expected: want, actual, pass: actual === want });
  }
  return outcomes;
}
