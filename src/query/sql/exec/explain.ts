/**
 * EXPLAIN: this engine's own plan text, in GreptimeDB's two-column layout (`plan_type`, `plan`).
 * A SELECT over one stored table shows the router's merge (`logical_plan`) and the fragment every
 * shard runs (`physical_plan`). Anything the router materialises (joins, derived tables, CTEs,
 * set operations, subqueries) is described structurally, since its inner plans depend on data
 * read at execution time. EXPLAIN never runs the query.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type StatementResult, stringRecords } from '../../result.js';
import type { Query, QueryBody, Statement, TableFactor } from '../parse/ast.js';
import { printExpr, printObjectName, printQuery } from '../parse/printer.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import type { MergePlan, PlanExpr, ShardPlan } from '../plan/plan.js';
import { NO_FROM, planSelect, tableInput } from '../plan/planner.js';
import { collectSubqueries } from './subquery.js';

/** Compact text of a bound expression: columns as `#slot`, literals typed. */
export function exprText(e: PlanExpr): string {
  switch (e.kind) {
    case 'column':
      return `#${e.index}`;
    case 'literal':
      return e.value === null ? 'NULL' : typeof e.value === 'string' ? `'${e.value}'` : `${e.type}(${e.value})`;
    case 'arithmetic':
    case 'compare':
      return `(${exprText(e.left)} ${e.op} ${exprText(e.right)})`;
    case 'and':
    case 'or':
      return `(${exprText(e.left)} ${e.kind.toUpperCase()} ${exprText(e.right)})`;
    case 'not':
      return `NOT ${exprText(e.arg)}`;
    case 'negate':
      return `-${exprText(e.arg)}`;
    case 'is':
      return `${exprText(e.arg)} IS ${e.negated ? 'NOT ' : ''}${e.test}`;
    case 'in':
      return `${exprText(e.arg)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(exprText).join(', ')})`;
    case 'like':
      return `${exprText(e.arg)} ${e.negated ? 'NOT ' : ''}${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${exprText(e.pattern)}`;
    case 'cast':
      return `CAST(${exprText(e.arg)} AS ${e.type})`;
    case 'call':
    case 'aggregate':
      return `${e.name}(${e.args.map(exprText).join(', ')})`;
    case 'case':
      return `CASE ${e.whens.map((w) => `WHEN ${exprText(w.when)} THEN ${exprText(w.result)}`).join(' ')}${e.elseResult ? ` ELSE ${exprText(e.elseResult)}` : ''} END`;
    case 'add_interval':
      return `${exprText(e.arg)} + INTERVAL(${e.months} months, ${e.days} days, ${e.nanos} ns)`;
    case 'lookup':
      return `subquery#${e.id}(${e.keys.map(exprText).join(', ')})`;
    case 'window':
      return `${e.call.name}(...) OVER (...)`;
  }
}

function mergeText(merge: MergePlan): string[] {
  const sort = merge.sort.map(
    (k) => `#${k.index} ${k.descending ? 'DESC' : 'ASC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`,
  );
  const lines: string[] = [];
  if (merge.limit !== null || merge.offset > 0)
    lines.push(`Limit: skip=${merge.offset}, fetch=${merge.limit ?? 'None'}`);
  if (sort.length > 0) lines.push(`Sort: ${sort.join(', ')}`);
  if (merge.kind === 'aggregate') {
    if (merge.windows) lines.push(`Window: ${merge.windows.map((w) => w.name).join(', ')}`);
    if (merge.having) lines.push(`Filter (HAVING): ${exprText(merge.having)}`);
    if (merge.range)
      lines.push(
        `RangeFill: align=${merge.range.alignNanos}ns, fills=[${merge.range.fills.map((f) => f.kind).join(', ')}]`,
      );
    lines.push(
      `Aggregate (final): groups=${merge.groupCount}, aggregates=[${merge.aggregates.map((a) => `${a.name}${a.distinct ? ' DISTINCT' : ''}`).join(', ')}]`,
    );
  } else if (merge.windowed) {
    lines.push(`Window: ${merge.windowed.windows.map((w) => w.name).join(', ')}`);
  }
  lines.push('MergeShards');
  return lines.map((l, i) => `${'  '.repeat(i)}${l}`);
}

function shardText(shard: ShardPlan): string[] {
  const lines: string[] = [];
  const out = shard.output;
  if (out.kind === 'rows') {
    lines.push(
      `Project: ${out.exprs.length} columns${out.sort.length > 0 ? `, top-k by ${out.sort.length} keys` : ''}${out.limit !== null ? `, limit ${out.limit}` : ''}`,
    );
  } else if (out.kind === 'aggregate') {
    lines.push(
      `PartialAggregate: groups=${out.groupBy.length}${out.groupingSets ? `, grouping_sets=${out.groupingSets.length}` : ''}, aggregates=[${out.aggregates.map((a) => a.name).join(', ')}]`,
    );
  } else {
    lines.push(
      `RangeAggregate: align=${out.alignNanos}ns, by=${out.by.length}, aggregates=[${out.aggregates.map((a) => `${a.name} range=${a.rangeNanos ?? out.alignNanos}ns`).join(', ')}]`,
    );
  }
  if (shard.filter) lines.push(`Filter: ${exprText(shard.filter)}`);
  const scan = shard.scan;
  if (scan) {
    const parts = [`table_id=${scan.tableId}`, `columns=[${scan.columns.map((c) => `${c.role}:${c.id}`).join(', ')}]`];
    if (scan.timeMin !== undefined || scan.timeMax !== undefined)
      parts.push(`time=[${scan.timeMin ?? '-inf'}, ${scan.timeMax ?? '+inf'})`);
    if (scan.seriesFilter.length > 0) parts.push(`series_filter=${scan.seriesFilter.length}`);
    lines.push(`Scan: ${parts.join(', ')}`);
  } else {
    lines.push('EmptyRelation: one row');
  }
  return lines.map((l, i) => `${'  '.repeat(i)}${l}`);
}

function factorText(factor: TableFactor, depth: number): string[] {
  const pad = '  '.repeat(depth);
  switch (factor.kind) {
    case 'table':
      return [`${pad}Scan (via shards): ${printObjectName(factor.name)}`];
    case 'derived':
      return [`${pad}Derived table:`, ...queryText(factor.query, depth + 1)];
    case 'join':
      return [
        `${pad}HashJoin (router): ${factor.joinType.toUpperCase()}${factor.on ? ` ON ${printExpr(factor.on)}` : ''}`,
        ...factorText(factor.left, depth + 1),
        ...factorText(factor.right, depth + 1),
      ];
  }
}

function bodyText(body: QueryBody, depth: number): string[] {
  const pad = '  '.repeat(depth);
  switch (body.kind) {
    case 'nested_query':
      return queryText(body.query, depth);
    case 'set_operation':
      return [
        `${pad}${body.op}${body.all ? ' ALL' : ''} (router)`,
        ...bodyText(body.left, depth + 1),
        ...bodyText(body.right, depth + 1),
      ];
    case 'select':
      return [`${pad}Select (router over materialised input)`, ...(body.from ? factorText(body.from, depth + 1) : [])];
  }
}

function queryText(query: Query, depth: number): string[] {
  const lines: string[] = [];
  const pad = '  '.repeat(depth);
  for (const cte of query.with?.ctes ?? []) lines.push(`${pad}CTE ${cte.name.value}: ${printQuery(cte.query)}`);
  return [...lines, ...bodyText(query.body, depth)];
}

/** EXPLAIN [VERBOSE] <query>. */
export function explainStatement(
  stmt: Extract<Statement, { kind: 'explain' }>,
  session: SqlSession,
  env: SqlEnv,
  now: bigint,
): StatementResult {
  if (stmt.analyze) throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: EXPLAIN ANALYZE');
  const inner = stmt.statement;
  if (inner.kind !== 'query')
    throw new DbError(ErrorCode.Unsupported, `This feature is not implemented: EXPLAIN ${inner.kind}`);
  const query = inner.query;
  const body = query.body;
  const simple =
    !query.with &&
    body.kind === 'select' &&
    (body.from === null || (body.from.kind === 'table' && !body.from.columnAliases)) &&
    collectSubqueries(body, query).length === 0;
  if (simple && body.kind === 'select') {
    const input = body.from?.kind === 'table' ? tableInput(body.from, session, env) : NO_FROM;
    const plan = planSelect(query, body, input, session, now);
    return stringRecords(
      ['plan_type', 'plan'],
      [
        ['logical_plan', mergeText(plan.merge).join('\n')],
        ['physical_plan', shardText(plan.shard).join('\n')],
      ],
    );
  }
  return stringRecords(['plan_type', 'plan'], [['logical_plan', queryText(query, 0).join('\n')]]);
}
