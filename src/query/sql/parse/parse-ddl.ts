/**
 * DDL parsing: `CREATE DATABASE`, `CREATE TABLE` (GreptimeDB's `TIME INDEX` and `PRIMARY KEY`
 * forms, `ENGINE=`, `WITH (...)`, `PARTITION ON COLUMNS`), `DROP TABLE`, `DROP DATABASE`, `ALTER TABLE`.
 * Semantic checks (one time index, where primary keys may be declared) happen at execution time,
 * where GreptimeDB makes them, so the error codes match.
 */
import type {
  AlterOperation,
  ColumnDef,
  ColumnOption,
  IndexKind,
  OptionEntry,
  Statement,
  TableConstraint,
} from './ast.js';
import { describeToken } from './lexer.js';
import { parseDataType } from './parse-data-type.js';
import { parseExpr, parseSubexpr } from './parse-expr.js';
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

/** `name type [options]` of CREATE TABLE and ALTER TABLE ADD COLUMN. */
export function parseColumnDef(ts: TokenStream): ColumnDef {
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
    else if (isIndexKind(ts)) {
      const index = parseIndexKind(ts);
      options.push({ kind: 'index', index, options: parseIndexOptions(ts, index) });
    } else if (ts.consumeKeyword('COMMENT')) {
      const t = ts.next();
      if (t.kind !== 'string') ts.expected('string', t);
      options.push({ kind: 'comment', text: t.value });
    } else break;
  }
  return { name, dataType, options };
}

function isIndexKind(ts: TokenStream): boolean {
  return ts.isKeyword('FULLTEXT') || ts.isKeyword('INVERTED') || ts.isKeyword('SKIPPING');
}

/** `FULLTEXT [INDEX]`, `INVERTED INDEX` or `SKIPPING INDEX`. */
function parseIndexKind(ts: TokenStream): IndexKind {
  let index: IndexKind;
  if (ts.consumeKeyword('FULLTEXT')) {
    // GreptimeDB before 0.12 wrote `FULLTEXT WITH(...)`; both forms are accepted.
    ts.consumeKeyword('INDEX');
    return 'fulltext';
  }
  if (ts.consumeKeyword('INVERTED')) index = 'inverted';
  else {
    ts.expectKeyword('SKIPPING');
    index = 'skipping';
  }
  ts.expectKeyword('INDEX');
  return index;
}

/** The `WITH (...)` of FULLTEXT and SKIPPING indexes (INVERTED has none). */
function parseIndexOptions(ts: TokenStream, index: IndexKind): OptionEntry[] {
  if (index === 'inverted' || !ts.consumeKeyword('WITH')) return [];
  return parseOptions(ts);
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

/** An option key: a string, or a dotted word (`compaction.twcs.time_window`). */
function parseOptionKey(ts: TokenStream): string {
  const k = ts.next();
  if (k.kind === 'string') return k.value;
  if (k.kind !== 'word') return ts.expected('option name', k);
  let key = k.value;
  while (ts.consumeOp('.')) key += `.${ts.parseIdent().value}`;
  return key;
}

function parseAlterOperation(ts: TokenStream): AlterOperation {
  if (ts.consumeKeyword('ADD')) {
    ts.consumeKeyword('COLUMN');
    const ifNotExists = ts.consumeKeywords('IF', 'NOT', 'EXISTS');
    const column = parseColumnDef(ts);
    let location: Extract<AlterOperation, { kind: 'add_column' }>['location'] = null;
    if (ts.consumeKeyword('FIRST')) location = { kind: 'first' };
    else if (ts.consumeKeyword('AFTER')) location = { kind: 'after', column: ts.parseIdent('column name') };
    return { kind: 'add_column', column, ifNotExists, location };
  }
  if (ts.consumeKeyword('DROP')) {
    ts.consumeKeyword('COLUMN');
    return { kind: 'drop_column', name: ts.parseIdent('column name') };
  }
  if (ts.consumeKeyword('RENAME')) {
    ts.consumeKeyword('TO');
    const t = ts.peek();
    if (t.kind === 'string') {
      ts.next();
      return { kind: 'rename_table', newName: { value: t.value, quote: "'" } };
    }
    return { kind: 'rename_table', newName: ts.parseIdent('table name') };
  }
  if (ts.consumeKeyword('MODIFY')) {
    ts.consumeKeyword('COLUMN');
    const name = ts.parseIdent('column name');
    if (ts.consumeKeywords('SET', 'DEFAULT')) return { kind: 'set_default', name, expr: parseExpr(ts) };
    if (ts.consumeKeywords('DROP', 'DEFAULT')) return { kind: 'drop_default', name };
    if (ts.isKeyword('SET') || ts.isKeyword('UNSET')) {
      const set = ts.consumeKeyword('SET');
      if (!set) ts.expectKeyword('UNSET');
      if (!isIndexKind(ts)) return ts.expected('DEFAULT or an index after SET or UNSET', ts.peek());
      const index = parseIndexKind(ts);
      if (!set) return { kind: 'unset_index', name, index };
      return { kind: 'set_index', name, index, options: parseIndexOptions(ts, index) };
    }
    return { kind: 'modify_column_type', name, dataType: parseDataType(ts) };
  }
  if (ts.consumeKeyword('SET')) {
    const options: OptionEntry[] = [];
    do {
      const key = parseOptionKey(ts);
      ts.expectOp('=');
      const v = ts.next();
      if (v.kind === 'string') options.push({ key, value: v.value, quoted: true });
      else if (v.kind === 'number' || v.kind === 'word') options.push({ key, value: v.value, quoted: false });
      else return ts.expected('option value', v);
    } while (ts.consumeOp(','));
    return { kind: 'set_options', options };
  }
  if (ts.consumeKeyword('UNSET')) {
    const keys: string[] = [];
    do keys.push(parseOptionKey(ts));
    while (ts.consumeOp(','));
    return { kind: 'unset_options', keys };
  }
  return ts.expected('ADD or DROP or MODIFY or RENAME or SET or UNSET after ALTER TABLE', ts.peek());
}

/**
 * `ALTER TABLE t <operation> [, <operation> ...]`. GreptimeDB combines several ADD COLUMN or
 * MODIFY COLUMN ... DEFAULT operations in one statement; the other forms stand alone.
 */
export function parseAlter(ts: TokenStream): Statement {
  ts.expectKeyword('ALTER');
  if (ts.consumeKeyword('DATABASE')) {
    const name = ts.parseObjectName();
    if (!ts.isKeyword('SET') && !ts.isKeyword('UNSET'))
      return ts.expected('SET or UNSET after ALTER DATABASE', ts.peek());
    const operation = parseAlterOperation(ts) as Extract<AlterOperation, { kind: 'set_options' | 'unset_options' }>;
    return { kind: 'alter_database', name, operation };
  }
  if (!ts.consumeKeyword('TABLE')) {
    const t = ts.peek();
    return ts.unsupported(`ALTER ${t.kind === 'eof' ? 'EOF' : t.value.toUpperCase()}`);
  }
  const name = ts.parseObjectName();
  const operations: AlterOperation[] = [parseAlterOperation(ts)];
  while (ts.consumeOp(',')) operations.push(parseAlterOperation(ts));
  return { kind: 'alter_table', name, operations };
}
