/**
 * Which shards a query fragment must reach. A plan that reads only series carrying given tag values
 * (a PromQL selector with `label="value"`, SQL's `tag = 'v'` or `tag IN (...)`) needs only the
 * shards whose tag filter may hold those values (src/shared/tag-filter.ts); the others would scan
 * nothing and answer empty, so they are not asked. A plan this module cannot read needs every shard.
 */
import type { TableSelect } from '../query/promql/store/plan.js';
import type { ShardQueryPlan } from '../shared/messages.js';
import type { TagFilter } from '../shared/tag-filter.js';

/** Query fragments sent to shards and left out, since the start (`/metrics`). */
export const shardTasks = { sent: 0, skipped: 0 };

/** One table a plan reads, and per tag column the values one of which a series must carry. */
export interface TableNeed {
  tableId: number;
  tags: Array<{ columnId: number; values: readonly string[] }>;
}

/**
 * The tables of a plan with the tag values each requires, or null when the plan may read series
 * with any tag values (a table without such a condition, or a plan not a scan of tables).
 */
export function tableNeedsOf(query: ShardQueryPlan): TableNeed[] | null {
  if (query.lang === 'sql') {
    const scan = query.plan.scan;
    if (!scan || scan.seriesFilter.length === 0) return null;
    return [{ tableId: scan.tableId, tags: scan.seriesFilter }];
  }
  const plan = query.plan;
  const tables = plan.op === 'eval' ? plan.eval.selectors.flatMap((s) => s.tables) : plan.select.tables;
  const needs: TableNeed[] = [];
  for (const table of tables) {
    const need = promqlNeedOf(table);
    if (need === null) return null;
    needs.push(need);
  }
  return needs;
}

/** A PromQL table selection's equality matchers on non-empty values (the others can pass any series). */
function promqlNeedOf(table: TableSelect): TableNeed | null {
  const tags: TableNeed['tags'] = [];
  for (const m of table.matchers) {
    if (m.op === '=' && m.value !== '') tags.push({ columnId: m.columnId, values: [m.value] });
  }
  return tags.length === 0 ? null : { tableId: table.tableId, tags };
}

/** Whether a shard with this filter may hold a series some table of `needs` would read. */
export function mayServe(filter: TagFilter, needs: readonly TableNeed[]): boolean {
  if (!filter.complete) return true;
  return needs.some((table) =>
    table.tags.every((tag) => tag.values.some((value) => filter.mayHold(table.tableId, tag.columnId, value))),
  );
}

/**
 * The fragment as its targets get it: a SQL plan that only one shard answers is told so, and that
 * shard returns its rows in final order without the columns only the merge's sort needed.
 */
export function fragmentFor(query: ShardQueryPlan, targets: number): ShardQueryPlan {
  if (query.lang !== 'sql' || targets !== 1) return query;
  return { lang: 'sql', plan: { ...query.plan, sole: true } };
}

/** The shards of `shards` a fragment must reach: at least one, so that the answer keeps its shape. */
export function targetShards<S extends { tagFilter: TagFilter }>(
  shards: readonly S[],
  query: ShardQueryPlan,
): readonly S[] {
  const needs = tableNeedsOf(query);
  let targets = shards;
  if (needs !== null) {
    targets = shards.filter((s) => mayServe(s.tagFilter, needs));
    if (targets.length === 0) targets = shards.slice(0, 1);
  }
  shardTasks.sent += targets.length;
  shardTasks.skipped += shards.length - targets.length;
  return targets;
}
