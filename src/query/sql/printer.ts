/**
 * Canonical SQL text of a syntax tree: keywords upper case, single spaces, identifiers quoted the
 * way they were written. Used by `/v1/sql/format` and as the stored form of column defaults.
 * Invariant (tested): `parse(print(parse(s)))` deep-equals `parse(s)`.
 */
import type {
  ColumnDef,
  ColumnOption,
  Expr,
  Ident,
  ObjectName,
  OptionEntry,
  Query,
  SelectItem,
  SqlType,
  Statement,
} from './ast.js';
import { parseSql } from './parser.js';

/** An identifier with its original quoting. */
export function printIdent(ident: Ident): string {
  switch (ident.quote) {
    case null:
      return ident.value;
    case '"':
      return `"${ident.value.replaceAll('"', '""')}"`;
    case '`':
      return `\`${ident.value.replaceAll('`', '``')}\``;
    case "'":
      return printString(ident.value);
  }
}

/** A dotted name. */
export function printObjectName(name: ObjectName): string {
  return name.map(printIdent).join('.');
}

/** A string literal with `'` doubled. */
export function printString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A data type as written (upper case). */
export function printDataType(type: SqlType): string {
  const args = type.args.length > 0 ? `(${type.args.join(', ')})` : '';
  return `${type.name}${args}${type.unsigned ? ' UNSIGNED' : ''}`;
}

/** Canonical text of an expression; parentheses only where written. */
export function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case 'identifier':
      return expr.parts.map(printIdent).join('.');
    case 'number':
      return expr.text;
    case 'string':
      return printString(expr.value);
    case 'boolean':
      return expr.value ? 'true' : 'false';
    case 'null':
      return 'NULL';
    case 'default':
      return 'DEFAULT';
    case 'typed_string':
      return `${printDataType(expr.dataType)} ${printString(expr.value)}`;
    case 'unary': {
      if (expr.op === 'NOT') return `NOT ${printExpr(expr.expr)}`;
      const inner = printExpr(expr.expr);
      // `- -1` must not print as `--1`, which would start a comment.
      return inner.startsWith('-') || inner.startsWith('+') ? `${expr.op} ${inner}` : `${expr.op}${inner}`;
    }
    case 'binary':
      return `${printExpr(expr.left)} ${expr.op} ${printExpr(expr.right)}`;
    case 'between':
      return `${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}BETWEEN ${printExpr(expr.low)} AND ${printExpr(expr.high)}`;
    case 'in_list':
      return `${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${expr.list.map(printExpr).join(', ')})`;
    case 'like': {
      const op = expr.caseInsensitive ? 'ILIKE' : 'LIKE';
      const escapeClause = expr.escape === null ? '' : ` ESCAPE ${printString(expr.escape)}`;
      return `${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}${op} ${printExpr(expr.pattern)}${escapeClause}`;
    }
    case 'is':
      return `${printExpr(expr.expr)} IS ${expr.negated ? 'NOT ' : ''}${expr.test}`;
    case 'cast':
      if (expr.style === 'double_colon') return `${printExpr(expr.expr)}::${printDataType(expr.dataType)}`;
      return `${expr.style === 'cast' ? 'CAST' : 'TRY_CAST'}(${printExpr(expr.expr)} AS ${printDataType(expr.dataType)})`;
    case 'function': {
      const name = printObjectName(expr.name);
      if (!expr.parens) return name;
      const args = expr.star ? '*' : expr.args.map(printExpr).join(', ');
      return `${name}(${expr.distinct ? 'DISTINCT ' : ''}${args})`;
    }
    case 'case': {
      const parts = ['CASE'];
      if (expr.operand) parts.push(printExpr(expr.operand));
      for (const w of expr.whens) parts.push(`WHEN ${printExpr(w.when)} THEN ${printExpr(w.result)}`);
      if (expr.elseResult) parts.push(`ELSE ${printExpr(expr.elseResult)}`);
      parts.push('END');
      return parts.join(' ');
    }
    case 'nested':
      return `(${printExpr(expr.expr)})`;
    default: {
      const never: never = expr;
      throw new Error(`unknown expression ${JSON.stringify(never)}`);
    }
  }
}

function printSelectItem(item: SelectItem): string {
  if (item.kind === 'wildcard')
    return item.qualifier.length > 0 ? `${item.qualifier.map(printIdent).join('.')}.*` : '*';
  return item.alias ? `${printExpr(item.expr)} AS ${printIdent(item.alias)}` : printExpr(item.expr);
}

/** Canonical text of a query. */
export function printQuery(query: Query): string {
  const s = query.body;
  let out = `SELECT ${s.distinct ? 'DISTINCT ' : ''}${s.projection.map(printSelectItem).join(', ')}`;
  if (s.from) out += ` FROM ${printObjectName(s.from.name)}${s.from.alias ? ` AS ${printIdent(s.from.alias)}` : ''}`;
  if (s.where) out += ` WHERE ${printExpr(s.where)}`;
  if (s.groupBy.length > 0) out += ` GROUP BY ${s.groupBy.map(printExpr).join(', ')}`;
  if (s.having) out += ` HAVING ${printExpr(s.having)}`;
  if (query.orderBy.length > 0) {
    const items = query.orderBy.map((o) => {
      let item = printExpr(o.expr);
      if (o.asc !== null) item += o.asc ? ' ASC' : ' DESC';
      if (o.nullsFirst !== null) item += o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST';
      return item;
    });
    out += ` ORDER BY ${items.join(', ')}`;
  }
  if (query.limit) out += ` LIMIT ${printExpr(query.limit)}`;
  if (query.offset) out += ` OFFSET ${printExpr(query.offset)}`;
  return out;
}

function printOptions(options: OptionEntry[]): string {
  return `(${options.map((o) => `${o.key} = ${o.quoted ? printString(o.value) : o.value}`).join(', ')})`;
}

function printColumnOption(option: ColumnOption): string {
  switch (option.kind) {
    case 'null':
      return 'NULL';
    case 'not_null':
      return 'NOT NULL';
    case 'default':
      return `DEFAULT ${printExpr(option.expr)}`;
    case 'time_index':
      return 'TIME INDEX';
    case 'primary_key':
      return 'PRIMARY KEY';
    case 'comment':
      return `COMMENT ${printString(option.text)}`;
  }
}

function printColumnDef(column: ColumnDef): string {
  return [printIdent(column.name), printDataType(column.dataType), ...column.options.map(printColumnOption)].join(' ');
}

/** Canonical text of a statement (without the trailing `;`). */
export function printStatement(statement: Statement): string {
  switch (statement.kind) {
    case 'query':
      return printQuery(statement.query);
    case 'insert': {
      let out = `${statement.replace ? 'REPLACE' : 'INSERT'} INTO ${printObjectName(statement.table)}`;
      if (statement.columns.length > 0) out += ` (${statement.columns.map(printIdent).join(', ')})`;
      if (statement.source.kind === 'values') {
        out += ` VALUES ${statement.source.rows.map((r) => `(${r.map(printExpr).join(', ')})`).join(', ')}`;
      } else {
        out += ` ${printQuery(statement.source.query)}`;
      }
      return out;
    }
    case 'create_database': {
      let out = `CREATE DATABASE ${statement.ifNotExists ? 'IF NOT EXISTS ' : ''}${printObjectName(statement.name)}`;
      if (statement.options.length > 0) out += ` WITH ${printOptions(statement.options)}`;
      return out;
    }
    case 'create_table': {
      const elements = statement.columns.map(printColumnDef);
      for (const c of statement.constraints) {
        elements.push(
          `${c.kind === 'time_index' ? 'TIME INDEX' : 'PRIMARY KEY'} (${c.columns.map(printIdent).join(', ')})`,
        );
      }
      let out = `CREATE TABLE ${statement.ifNotExists ? 'IF NOT EXISTS ' : ''}${printObjectName(statement.name)} (${elements.join(', ')})`;
      if (statement.partition) out += ` ${statement.partition}`;
      if (statement.engine !== null) out += ` ENGINE=${statement.engine}`;
      if (statement.options.length > 0) out += ` WITH ${printOptions(statement.options)}`;
      return out;
    }
    case 'create_table_like':
      return `CREATE TABLE ${statement.ifNotExists ? 'IF NOT EXISTS ' : ''}${printObjectName(statement.name)} LIKE ${printObjectName(statement.source)}`;
    case 'drop_table':
      return `DROP TABLE ${statement.ifExists ? 'IF EXISTS ' : ''}${statement.names.map(printObjectName).join(', ')}`;
    case 'drop_database':
      return `DROP DATABASE ${statement.ifExists ? 'IF EXISTS ' : ''}${printObjectName(statement.name)}`;
    case 'show_databases':
    case 'show_tables': {
      let out = `SHOW ${statement.full ? 'FULL ' : ''}${statement.kind === 'show_databases' ? 'DATABASES' : 'TABLES'}`;
      if (statement.kind === 'show_tables' && statement.db) out += ` FROM ${printObjectName(statement.db)}`;
      if (statement.filter?.kind === 'like') out += ` LIKE ${printString(statement.filter.pattern)}`;
      if (statement.filter?.kind === 'where') out += ` WHERE ${printExpr(statement.filter.expr)}`;
      return out;
    }
    case 'show_columns': {
      let out = `SHOW ${statement.full ? 'FULL ' : ''}COLUMNS FROM ${printObjectName(statement.table)}`;
      if (statement.db) out += ` FROM ${printObjectName(statement.db)}`;
      if (statement.filter?.kind === 'like') out += ` LIKE ${printString(statement.filter.pattern)}`;
      if (statement.filter?.kind === 'where') out += ` WHERE ${printExpr(statement.filter.expr)}`;
      return out;
    }
    case 'show_create_table':
      return `SHOW CREATE TABLE ${printObjectName(statement.name)}`;
    case 'describe':
      return `DESCRIBE TABLE ${printObjectName(statement.name)}`;
    case 'use':
      return `USE ${printIdent(statement.db)}`;
    case 'set':
      return `SET ${statement.variable} = ${printExpr(statement.value)}`;
    default: {
      const never: never = statement;
      throw new Error(`unknown statement ${JSON.stringify(never)}`);
    }
  }
}

/** `/v1/sql/format`: every statement in canonical form, each ending with `;`, joined by newlines. */
export function formatSql(sql: string): string {
  return parseSql(sql)
    .map((s) => `${printStatement(s)};`)
    .join('\n');
}
