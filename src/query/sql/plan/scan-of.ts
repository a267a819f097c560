/**
 * What a SELECT reads: its source, and the scan request of its shard fragment (columns, the
 * defaults rows written without a column read, casts of rows written before a column changed
 * kind, pruning from the filter). Used by the planner and by RANGE/ALIGN planning alike.
 */
import type { ScanColumn } from '../../../shared/scan.js';
import { type DataType, type PhysicalKind, physicalKindOf, type TableSchema } from '../../../shared/types.js';
import type { EvalContext } from '../functions/types.js';
import type { Value } from '../types/values.js';
import { defaultValueOf } from './insert-values.js';
import { NUMBERS_TABLE } from './numbers-table.js';
import type { MergePlan, PlanExpr, ShardPlan } from './plan.js';
import type { Relation } from './relation.js';
import type { Scope, ScopeColumn } from './scope.js';
import { extractPruning } from './time-range.js';

/** Where a query's rows come from. */
export type QuerySource =
  | { kind: 'table'; table: TableSchema }
  | { kind: 'numbers' }
  | { kind: 'none' }
  /** Rows already in the router (joins, derived tables, CTEs): planned like a table, run locally. */
  | { kind: 'relation'; relation: Relation };

/** Everything needed to run a SELECT: result schema, source, shard fragment and merge. */
export interface SelectPlan {
  columns: Array<{ name: string; type: DataType }>;
  source: QuerySource;
  shard: ShardPlan;
  merge: MergePlan;
}

/** A SQL value in the form storage keeps for `kind`; undefined when it has no such form. */
function storedValueOf(value: Value, kind: PhysicalKind): number | bigint | string | undefined {
  if (value === null) return undefined;
  switch (kind) {
    case 'f64':
      return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined;
    case 'i64':
    case 'u64':
      if (typeof value === 'bigint') return value;
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : undefined;
    case 'bool':
      return typeof value === 'boolean' ? (value ? 1 : 0) : undefined;
    case 'str':
      return typeof value === 'string' ? value : undefined;
  }
}

/** The scan request part of the shard plan, with pruning derived from the filter. */
export function scanOf(
  source: QuerySource,
  scope: Scope,
  filter: PlanExpr | null,
  ctx: EvalContext,
): ShardPlan['scan'] {
  if (source.kind === 'relation') {
    const scanned = scope.scannedColumns();
    return {
      tableId: -2,
      columns: scanned.map((ci) => ({
        id: ci,
        kind: physicalKindOf((scope.columns[ci] as ScopeColumn).type),
        role: 'field',
      })),
      types: scanned.map((ci) => (scope.columns[ci] as ScopeColumn).type),
      seriesFilter: [],
    };
  }
  const table = source.kind === 'table' ? source.table : NUMBERS_TABLE;
  if (scope.scannedColumns().length === 0) {
    // Something must be read for rows to exist at all (`SELECT count(*)`): the time index is cheapest.
    const ti = scope.columns.findIndex((c) => c.schema?.semantic === 'TIMESTAMP');
    scope.slotOf(Math.max(ti, 0));
  }
  const scanned = scope.scannedColumns();
  const columns: ScanColumn[] = [];
  const types: DataType[] = [];
  const stringTags = new Map<number, number>();
  const fills: Array<Value | undefined> = [];
  let time: { slot: number; type: DataType } | null = null;
  scanned.forEach((ci, slot) => {
    const c = scope.columns[ci] as ScopeColumn;
    const schema = c.schema;
    const role = schema?.semantic === 'TIMESTAMP' ? 'time' : schema?.semantic === 'TAG' ? 'tag' : 'field';
    const kind = role === 'tag' ? 'str' : physicalKindOf(c.type);
    const column: ScanColumn = { id: schema?.id ?? 0, kind, role };
    // Rows written without this field (before ALTER TABLE added it, or by a writer that left it
    // out) read its DEFAULT, as in GreptimeDB; an explicit NULL stays NULL.
    if (role === 'field' && schema?.defaultSql !== undefined) {
      column.absentValue = storedValueOf(defaultValueOf(schema, ctx), kind);
    }
    columns.push(column);
    types.push(c.type);
    // A NOT NULL column with a default reads NULL only for rows written before ALTER TABLE added it.
    // A tag with a default too: a series key cannot hold a NULL tag apart from a missing one, and
    // writers fill the default for a tag they leave out, so a NULL tag is one that predates it.
    const fill =
      schema && role !== 'time' && (!schema.nullable || role === 'tag') && schema.defaultSql !== undefined
        ? defaultValueOf(schema, ctx)
        : undefined;
    fills.push(fill);
    if (role === 'time') time = { slot, type: c.type };
    if (role === 'tag' && c.type === 'String' && schema && fill === undefined) stringTags.set(slot, schema.id);
  });
  // Rows written before MODIFY COLUMN changed a field's kind are read from the old kind and cast.
  const casts: NonNullable<ShardPlan['scan']>['casts'] = [];
  scanned.forEach((ci, target) => {
    const c = scope.columns[ci] as ScopeColumn;
    if (c.schema?.semantic !== 'FIELD') return;
    for (const from of c.schema.priorTypes ?? []) {
      casts.push({ target, source: columns.length, from, to: c.type });
      columns.push({ id: c.schema.id, kind: physicalKindOf(from), role: 'field' });
      types.push(from);
    }
  });
  const pruning = extractPruning(filter, { time, stringTags });
  const scan: NonNullable<ShardPlan['scan']> = {
    tableId: table.id,
    columns,
    types,
    timeMin: pruning.timeMin,
    timeMax: pruning.timeMax,
    seriesFilter: pruning.seriesFilter,
  };
  if (fills.some((f) => f !== undefined)) scan.fills = fills;
  if (casts.length > 0) scan.casts = casts;
  return scan;
}
