/**
 * DDL parsing: `CREATE DATABASE`, `CREATE TABLE` (GreptimeDB's `TIME INDEX` and `PRIMARY KEY`
 * forms, `ENGINE=`, `WITH (...)`, `PARTITION ON COLUMNS`), `DROP TABLE`, `DROP DATABASE`.
 * Semantic checks (one time index, where primary keys may be declared) happen at execution time,
 * where GreptimeDB makes them, so the error codes match.
 */
import type { ColumnDef, ColumnOption, OptionEntry, Statement, TableConstraint } from './ast.js';
import { describeToken } from './lexer.js';
import { parseDataType, parseSubexpr } from './parse-expr.js';
import type { TokenStream } from './parser-base.js';

/** Precedence that stops a DEFAULT expression before `NOT NULL`, `TIME INDEX`, ... */
const DEFAULT_EXPR_PRECEDENCE = 0;

/** `CREATE DATABASE|SCHEMA ...` and `CREATE TABLE ...` (including `LIKE`). */
export function parseCreate(ts: TokenStream): Statement {
  ts.expectKeyword('CREATE');
  if (ts.consumeKeyword('DATABASE') || ts.consumeKeyword('SCHEMA')) {
    const ifNotExists = ts.consumeKeywords('IF', 'NOT', 'EXISTS');
    const name = ts.parseObjectName(true);
    const options = ts.consumeKeyword('WITH') ? parseOptions(ts) : [];
    return { kind: 'create_database', name, ifNotExists, options };
  }
  if (ts.consumeKeyword('TABLE')) return parseCreateTable(ts);
  const t = ts.peek();
  return ts.unsupported(t.kind === 'eof' ? 'EOF' : t.value.toUpperCase());
}

function parseCreateTable(ts: TokenStream): Statement {
  const ifNotExists = ts.consumeKeywords('IF', 'NOT', 'EXISTS');
  const name = ts.parseObjectName(true);
  if (ts.consumeKeyword('LIKE')) {
    return { kind: 'create_table_like', name, source: ts.parseObjectName(), ifNotExists };
  }
  const columns: ColumnDef[] = [];
  const constraints: TableConstraint[] = [];
  ts.expectOp('(');
  while (!ts.isOp(')')) {
    if (ts.consumeKeywords('TIME', 'INDEX')) {
      constraints.push({ kind: 'time_index', columns: ts.parseParenthesizedIdents() });
    } else if (ts.consumeKeywords('PRIMARY', 'KEY')) {
      constraints.push({ kind: 'primary_key', columns: ts.parseParenthesizedIdents() });
    } else {
      columns.push(parseColumnDef(ts));
    }
    if (!ts.consumeOp(',')) break;
  }
  ts.expectOp(')');
  let partition: string | null = null;
  if (ts.isKeyword('PARTITION')) partition = skipPartition(ts);
  let engine: string | null = null;
  let options: OptionEntry[] = [];
  for (let round = 0; round < 2; round++) {
    if (engine === null && ts.consumeKeyword('ENGINE')) {
      ts.expectOp('=');
      engine = ts.parseIdent('engine name').value;
    } else if (options.length === 0 && ts.consumeKeyword('WITH')) {
      options = parseOptions(ts);
    }
  }
  return { kind: 'create_table', name, ifNotExists, columns, constraints, engine, options, partition };
}

function parseColumnDef(ts: TokenStream): ColumnDef {
  const name = ts.parseIdent('column name');
  const dataType = parseDataType(ts);
  const options: ColumnOption[] = [];
  for (;;) {
    if (ts.consumeKeywords('NOT', 'NULL')) options.push({ kind: 'not_null' });
    else if (ts.consumeKeyword('NULL')) options.push({ kind: 'null' });
    else if (ts.consumeKeyword('DEFAULT'))
      options.push({ kind: 'default', expr: parseSubexpr(ts, DEFAULT_EXPR_PRECEDENCE) });
    else if (ts.consumeKeywords('TIME', 'INDEX')) options.push({ kind: 'time_index' });
    else if (ts.consumeKeywords('PRIMARY', 'KEY')) options.push({ kind: 'primary_key' });
    else if (ts.consumeKeyword('COMMENT')) {
      const t = ts.next();
      if (t.kind !== 'string') ts.expected('string', t);
      options.push({ kind: 'comment', text: t.value });
    } else break;
  }
  return { name, dataType, options };
}

/** `( key = value, ... )`; keys may be dotted (`compaction.type`) or quoted. */
export function parseOptions(ts: TokenStream): OptionEntry[] {
  const out: OptionEntry[] = [];
  ts.expectOp('(');
  while (!ts.isOp(')')) {
    const k = ts.next();
    let key: string;
    if (k.kind === 'string') key = k.value;
    else if (k.kind === 'word') {
      key = k.value;
      while (ts.consumeOp('.')) key += `.${ts.parseIdent().value}`;
    } else return ts.expected('option name', k);
    ts.expectOp('=');
    const v = ts.next();
    if (v.kind === 'string') out.push({ key, value: v.value, quoted: true });
    else if (v.kind === 'number' || v.kind === 'word') out.push({ key, value: v.value, quoted: false });
    else if (v.kind === 'op' && v.value === '-' && ts.peek().kind === 'number')
      out.push({ key, value: `-${ts.next().value}`, quoted: false });
    else return ts.expected('option value', v);
    if (!ts.consumeOp(',')) break;
  }
  ts.expectOp(')');
  return out;
}

/** Skips `PARTITION ON COLUMNS (...) (...)`, returning its tokens joined by spaces. */
function skipPartition(ts: TokenStream): string {
  const parts: string[] = [];
  ts.expectKeyword('PARTITION');
  ts.expectKeyword('ON');
  ts.expectKeyword('COLUMNS');
  parts.push('PARTITION ON COLUMNS');
  for (let group = 0; group < 2; group++) {
    if (!ts.isOp('(')) ts.expected('(', ts.peek());
    let depth = 0;
    do {
      const t = ts.next();
      if (t.kind === 'eof') ts.expected(')', t);
      if (t.kind === 'op' && t.value === '(') depth++;
      if (t.kind === 'op' && t.value === ')') depth--;
      parts.push(describeToken(t));
    } while (depth > 0);
  }
  return parts.join(' ');
}

/** `DROP TABLE [IF EXISTS] a, b` and `DROP DATABASE|SCHEMA [IF EXISTS] d`. */
export function parseDrop(ts: TokenStream): Statement {
  ts.expectKeyword('DROP');
  if (ts.consumeKeyword('TABLE')) {
    const ifExists = ts.consumeKeywords('IF', 'EXISTS');
    const names = [ts.parseObjectName()];
    while (ts.consumeOp(',')) names.push(ts.parseObjectName());
    return { kind: 'drop_table', names, ifExists };
  }
  if (ts.consumeKeyword('DATABASE') || ts.consumeKeyword('SCHEMA')) {
    const ifExists = ts.consumeKeywords('IF', 'EXISTS');
    return { kind: 'drop_database', name: ts.parseObjectName(true), ifExists };
  }
  const t = ts.peek();
  return ts.unsupported(t.kind === 'eof' ? 'EOF' : t.value.toUpperCase());
}
