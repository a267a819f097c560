/**
 * Canonical SQL text of a syntax tree: keywords upper case, single spaces, identifiers quoted the
 * way they were written. Used by `/v1/sql/format` and as the stored form of column defaults.
 * Invariant (tested): `parse(print(parse(s)))` deep-equals `parse(s)`.
 */
import type {
  AlterOperation,
  ColumnDef,
  ColumnOption,
  Expr,
  FillSpec,
  FrameBound,
  FunctionCall,
  GroupingSetExpr,
  Ident,
  ObjectName,
  OptionEntry,
  OrderByItem,
  Query,
  QueryBody,
  SelectItem,
  SqlType,
  Statement,
  TableFactor,
  TqlParameter,
  WindowSpec,
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
    case 'is_distinct':
      return `${printExpr(expr.left)} IS ${expr.negated ? 'NOT ' : ''}DISTINCT FROM ${printExpr(expr.right)}`;
    case 'cast':
      if (expr.style === 'double_colon') return `${printExpr(expr.expr)}::${printDataType(expr.dataType)}`;
      return `${expr.style === 'cast' ? 'CAST' : 'TRY_CAST'}(${printExpr(expr.expr)} AS ${printDataType(expr.dataType)})`;
    case 'function':
      return printFunction(expr);
    case 'interval':
      return `INTERVAL ${printExpr(expr.value)}${expr.unit ? ` ${expr.unit}` : ''}`;
    case 'subquery':
      return `(${printQuery(expr.query)})`;
    case 'exists':
      return `${expr.negated ? 'NOT ' : ''}EXISTS (${printQuery(expr.query)})`;
    case 'in_subquery':
      return `${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${printQuery(expr.query)})`;
    case 'grouping_set':
      return printGroupingSet(expr);
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

function printOrderBy(items: OrderByItem[]): string {
  return items
    .map((o) => {
      let item = printExpr(o.expr);
      if (o.asc !== null) item += o.asc ? ' ASC' : ' DESC';
      if (o.nullsFirst !== null) item += o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST';
      return item;
    })
    .join(', ');
}

function printFill(fill: FillSpec): string {
  return fill.kind === 'constant' ? printExpr(fill.value) : fill.kind.toUpperCase();
}

function printBound(bound: FrameBound): string {
  if (bound.kind === 'current_row') return 'CURRENT ROW';
  return `${bound.offset ? printExpr(bound.offset) : 'UNBOUNDED'} ${bound.kind === 'preceding' ? 'PRECEDING' : 'FOLLOWING'}`;
}

function printWindow(spec: WindowSpec): string {
  const parts: string[] = [];
  if (spec.partitionBy.length > 0) parts.push(`PARTITION BY ${spec.partitionBy.map(printExpr).join(', ')}`);
  if (spec.orderBy.length > 0) parts.push(`ORDER BY ${printOrderBy(spec.orderBy)}`);
  if (spec.frame)
    parts.push(`${spec.frame.units} BETWEEN ${printBound(spec.frame.start)} AND ${printBound(spec.frame.end)}`);
  return `(${parts.join(' ')})`;
}

function printFunction(expr: FunctionCall): string {
  if (expr.syntax === 'array_literal') return `[${expr.args.map(printExpr).join(', ')}]`;
  if (expr.syntax === 'subscript')
    return `${printExpr(expr.args[0] as Expr)}[${expr.args.slice(1).map(printExpr).join(':')}]`;
  const name = printObjectName(expr.name);
  if (!expr.parens) return name;
  let args = expr.star ? '*' : expr.args.map(printExpr).join(', ');
  if (expr.orderBy && expr.orderBy.length > 0) args += ` ORDER BY ${printOrderBy(expr.orderBy)}`;
  let out = `${name}(${expr.distinct ? 'DISTINCT ' : ''}${args})`;
  if (expr.over) out += ` OVER ${printWindow(expr.over)}`;
  if (expr.range) {
    out += ` RANGE ${printExpr(expr.range.duration)}`;
    if (expr.range.fill) out += ` FILL ${printFill(expr.range.fill)}`;
  }
  return out;
}

function printFactor(factor: TableFactor): string {
  switch (factor.kind) {
    case 'table':
    case 'derived': {
      let out = factor.kind === 'table' ? printObjectName(factor.name) : `(${printQuery(factor.query)})`;
      if (factor.alias) out += ` AS ${printIdent(factor.alias)}`;
      if (factor.columnAliases && factor.columnAliases.length > 0)
        out += ` (${factor.columnAliases.map(printIdent).join(', ')})`;
      return out;
    }
    case 'join': {
      const right = factor.right.kind === 'join' ? `(${printFactor(factor.right)})` : printFactor(factor.right);
      let out = `${printFactor(factor.left)} ${factor.joinType.toUpperCase()} JOIN ${right}`;
      if (factor.on) out += ` ON ${printExpr(factor.on)}`;
      if (factor.using) out += ` USING (${factor.using.map(printIdent).join(', ')})`;
      return out;
    }
  }
}

function printBody(body: QueryBody): string {
  switch (body.kind) {
    case 'nested_query':
      return `(${printQuery(body.query)})`;
    case 'set_operation': {
      // The parser is left-associative with INTERSECT binding tighter, so a right operand needs
      // parentheses only when it does not bind tighter than this operator.
      const precedence = (op: string): number => (op === 'INTERSECT' ? 20 : 10);
      const tighter = body.right.kind === 'set_operation' && precedence(body.right.op) > precedence(body.op);
      const right =
        body.right.kind === 'set_operation' && !tighter ? `(${printBody(body.right)})` : printBody(body.right);
      return `${printBody(body.left)} ${body.op}${body.all ? ' ALL' : ''} ${right}`;
    }
    case 'select': {
      const s = body;
      const distinctOn = s.distinctOn ? `DISTINCT ON (${s.distinctOn.map(printExpr).join(', ')}) ` : '';
      let out = `SELECT ${s.distinct ? 'DISTINCT ' : ''}${distinctOn}${s.projection.map(printSelectItem).join(', ')}`;
      if (s.from) out += ` FROM ${printFactor(s.from)}`;
      if (s.where) out += ` WHERE ${printExpr(s.where)}`;
      if (s.groupBy.length > 0) out += ` GROUP BY ${s.groupBy.map(printExpr).join(', ')}`;
      if (s.having) out += ` HAVING ${printExpr(s.having)}`;
      if (s.align) {
        out += ` ALIGN ${printExpr(s.align.duration)}`;
        if (s.align.to) out += ` TO ${printExpr(s.align.to)}`;
        if (s.align.by) out += ` BY (${s.align.by.map(printExpr).join(', ')})`;
        if (s.align.fill) out += ` FILL ${printFill(s.align.fill)}`;
      }
      return out;
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
  let out = '';
  if (query.with) {
    const ctes = query.with.ctes.map((c) => {
      const columns = c.columns.length > 0 ? ` (${c.columns.map(printIdent).join(', ')})` : '';
      return `${printIdent(c.name)}${columns} AS (${printQuery(c.query)})`;
    });
    out += `WITH ${query.with.recursive ? 'RECURSIVE ' : ''}${ctes.join(', ')} `;
  }
  out += printBody(query.body);
  if (query.orderBy.length > 0) out += ` ORDER BY ${printOrderBy(query.orderBy)}`;
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
    case 'index':
      return `${option.index.toUpperCase()} INDEX${option.options.length > 0 ? ` WITH${printOptions(option.options)}` : ''}`;
  }
}

function printColumnDef(column: ColumnDef): string {
  return [printIdent(column.name), printDataType(column.dataType), ...column.options.map(printColumnOption)].join(' ');
}

function printOptionKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(key) ? key : printString(key);
}

function printAlterOperation(op: AlterOperation): string {
  switch (op.kind) {
    case 'add_column': {
      let out = `ADD COLUMN ${op.ifNotExists ? 'IF NOT EXISTS ' : ''}${printColumnDef(op.column)}`;
      if (op.location?.kind === 'first') out += ' FIRST';
      if (op.location?.kind === 'after') out += ` AFTER ${printIdent(op.location.column)}`;
      return out;
    }
    case 'drop_column':
      return `DROP COLUMN ${printIdent(op.name)}`;
    case 'rename_table':
      return `RENAME ${printIdent(op.newName)}`;
    case 'modify_column_type':
      return `MODIFY COLUMN ${printIdent(op.name)} ${printDataType(op.dataType)}`;
    case 'set_default':
      return `MODIFY COLUMN ${printIdent(op.name)} SET DEFAULT ${printExpr(op.expr)}`;
    case 'drop_default':
      return `MODIFY COLUMN ${printIdent(op.name)} DROP DEFAULT`;
    case 'set_index':
      return `MODIFY COLUMN ${printIdent(op.name)} SET ${op.index.toUpperCase()} INDEX${op.options.length > 0 ? ` WITH${printOptions(op.options)}` : ''}`;
    case 'unset_index':
      return `MODIFY COLUMN ${printIdent(op.name)} UNSET ${op.index.toUpperCase()} INDEX`;
    case 'set_options':
      return `SET ${op.options.map((o) => `${printOptionKey(o.key)} = ${o.quoted ? printString(o.value) : o.value}`).join(', ')}`;
    case 'unset_options':
      return `UNSET ${op.keys.map(printOptionKey).join(', ')}`;
  }
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
    case 'delete':
      return `DELETE FROM ${printObjectName(statement.table)}${statement.where ? ` WHERE ${printExpr(statement.where)}` : ''}`;
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
    case 'show_create_database':
      return `SHOW CREATE DATABASE ${printObjectName(statement.name)}`;
    case 'describe':
      return `DESCRIBE TABLE ${printObjectName(statement.name)}`;
    case 'use':
      return `USE ${printIdent(statement.db)}`;
    case 'set':
      return `SET ${statement.variable} = ${printExpr(statement.value)}`;
    case 'alter_table':
      return `ALTER TABLE ${printObjectName(statement.name)} ${statement.operations.map(printAlterOperation).join(', ')}`;
    case 'alter_database':
      return `ALTER DATABASE ${printObjectName(statement.name)} ${printAlterOperation(statement.operation)}`;
    case 'truncate_table':
      return `TRUNCATE TABLE ${printObjectName(statement.name)}`;
    case 'explain':
      return `EXPLAIN ${statement.analyze ? 'ANALYZE ' : ''}${statement.verbose ? 'VERBOSE ' : ''}${printStatement(statement.statement)}`;
    case 'show_collation':
    case 'show_charset': {
      let out = statement.kind === 'show_collation' ? 'SHOW COLLATION' : 'SHOW CHARSET';
      if (statement.filter?.kind === 'like') out += ` LIKE ${printString(statement.filter.pattern)}`;
      if (statement.filter?.kind === 'where') out += ` WHERE ${printExpr(statement.filter.expr)}`;
      return out;
    }
    case 'admin':
      return `ADMIN ${printExpr(statement.call)}`;
    case 'tql':
      return printTql(statement);
    default: {
      const never: never = statement;
      throw new Error(`unknown statement ${JSON.stringify(never)}`);
    }
  }
}

function printTqlParameter(parameter: TqlParameter): string {
  return parameter.kind === 'text' ? printString(parameter.text) : printExpr(parameter.expr);
}

/** `TQL EVAL ('0', '10', '5s') <promql> AS alias`: times as strings, which parse back the same. */
function printTql(statement: Extract<Statement, { kind: 'tql' }>): string {
  let out = `TQL ${statement.mode.toUpperCase()}`;
  if (statement.verbose) out += ' VERBOSE';
  if (statement.format !== null) out += ` FORMAT ${statement.format}`;
  const parameters = [statement.start, statement.end, statement.step];
  if (statement.lookback) parameters.push(statement.lookback);
  out += ` (${parameters.map(printTqlParameter).join(', ')}) ${statement.query}`;
  if (statement.alias) out += ` AS ${printIdent(statement.alias)}`;
  return out;
}

/** `/v1/sql/format`: every statement in canonical form, each ending with `;`, joined by newlines. */
export function formatSql(sql: string): string {
  return parseSql(sql)
    .map((s) => `${printStatement(s)};`)
    .join('\n');
}

/** `ROLLUP (a, (b, c))`, `CUBE (a)`, `GROUPING SETS ((a, b), (a), ())`, as sqlparser prints them. */
function printGroupingSet(expr: GroupingSetExpr): string {
  const tuple = (set: Expr[]): string => `(${set.map(printExpr).join(', ')})`;
  const elements =
    expr.form === 'GROUPING SETS'
      ? expr.sets.map(tuple)
      : expr.sets.map((set) => (set.length === 1 ? printExpr(set[0] as Expr) : tuple(set)));
  return `${expr.form} (${elements.join(', ')})`;
}
