/**
 * Materialised intermediate results. Anything that needs all rows of its inputs at once (joins,
 * derived tables, CTEs, set operations, correlated subqueries) runs in the router over
 * `Relation`s: base tables are scanned through the shards first (filters and projections pushed
 * down), and the rest of the query is planned as if the relation were a table and executed with
 * the same shard-plan code, locally (`runPlanOnBatches`).
 *
 * A relation is column-major: `values[c][r]` is row r of column c.
 */

import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { TimeSlice } from '../../../shared/time-slice.js';
import type { DataType } from '../../../shared/types.js';
import type { Ident } from '../parse/ast.js';
import type { Value } from '../types/values.js';
import type { Batch } from './eval.js';
import type { ShardPlan } from './plan.js';
import { normalizeIdent, type ScopeColumn } from './scope.js';

/** One column of a relation, with how queries may qualify it. */
export interface RelationColumn {
  name: string;
  type: DataType;
  /** How the column's table is written inside expression names (`t.x`); empty for none. */
  qualifier: string[];
  /** What a written qualifier may match (`[alias]` or `['greptime', db, table]`). */
  path: string[];
}

/** Rows held in the router. */
export interface Relation {
  columns: RelationColumn[];
  /** Column-major values: `values[c]` has `rowCount` entries. */
  values: Value[][];
  rowCount: number;
}

/** A relation from a query result (row-major rows), unqualified; the copy checks `slice`. */
export async function relationOfRows(
  columns: Array<{ name: string; type: DataType }>,
  rows: unknown[][],
  slice: TimeSlice,
): Promise<Relation> {
  const values: Value[][] = [];
  for (let c = 0; c < columns.length; c++) {
    const column = new Array<Value>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      column[r] = (rows[r] as unknown[])[c] as Value;
      if (slice.tick()) await slice.next();
    }
    values.push(column);
  }
  return {
    columns: columns.map((c) => ({ name: c.name, type: c.type, qualifier: [], path: [] })),
    values,
    rowCount: rows.length,
  };
}

/** Row-major rows of a relation; the copy checks `slice`. */
export async function rowsOf(relation: Relation, slice: TimeSlice): Promise<Value[][]> {
  const out: Value[][] = new Array(relation.rowCount);
  for (let r = 0; r < relation.rowCount; r++) {
    out[r] = relation.values.map((c) => c[r] as Value);
    if (slice.tick()) await slice.next();
  }
  return out;
}

/**
 * The relation seen under an alias (`AS t` or `AS t(x, y)`): every column gets qualifier and path
 * `[alias]`, and column aliases rename columns by position. Without an alias the columns keep
 * `defaultQualifier` (a CTE's name) or none.
 */
export function aliasRelation(
  relation: Relation,
  alias: Ident | null,
  columnAliases: Ident[] | undefined,
  defaultQualifier: string[] = [],
): Relation {
  const names = (columnAliases ?? []).map(normalizeIdent);
  if (names.length > relation.columns.length) {
    throw new DbError(
      ErrorCode.PlanQuery,
      `Failed to plan SQL: Error during planning: Source table contains ${relation.columns.length} columns but only ${names.length} names given as column alias`,
    );
  }
  const qualifier = alias ? [normalizeIdent(alias)] : defaultQualifier;
  return {
    ...relation,
    columns: relation.columns.map((c, i) => ({
      name: names[i] ?? c.name,
      type: c.type,
      qualifier,
      path: qualifier,
    })),
  };
}

/** Scope columns of a relation (no storage schema behind them). */
export function scopeColumnsOf(relation: Relation): ScopeColumn[] {
  return relation.columns.map((c) => ({
    name: c.name,
    type: c.type,
    qualifier: c.qualifier,
    path: c.path,
    schema: null,
  }));
}

/** The "scan" of a relation: the columns a plan reads, by slot, as one batch. */
export function relationBatch(relation: Relation, plan: ShardPlan): Batch {
  const scan = plan.scan;
  if (!scan) return { rowCount: 1, columns: [] };
  return { rowCount: relation.rowCount, columns: scan.columns.map((c) => relation.values[c.id] as Value[]) };
}

/** Keeps the rows at `indexes` (in that order). */
export function takeRelationRows(relation: Relation, indexes: ArrayLike<number>): Relation {
  const n = indexes.length;
  return {
    columns: relation.columns,
    values: relation.values.map((c) => {
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = c[indexes[i] as number] as Value;
      return out;
    }),
    rowCount: n,
  };
}
