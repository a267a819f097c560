/**
 * The conditions of a shard plan's WHERE that segment indexes can check per block
 * (`ScanRequest.blockFilters`): top-level AND-ed `matches_term(col, 'text')` and
 * `col = 'text'` over a String field read as stored. The shard still evaluates the whole WHERE,
 * so these only let storage skip blocks that cannot hold a matching row.
 */
import type { BlockFilter } from '../../../shared/scan.js';
import type { PlanExpr, ShardScan } from '../plan/plan.js';

/** Slot of a String field the scan reads unchanged (no cast, fill or DEFAULT replaces values). */
function plainStringField(scan: ShardScan, e: PlanExpr): number | null {
  if (e.kind !== 'column' || scan.types[e.index] !== 'String') return null;
  const column = scan.columns[e.index];
  if (column?.role !== 'field' || column.kind !== 'str' || column.absentValue !== undefined) return null;
  if (scan.fills?.[e.index] != null || scan.casts?.some((c) => c.target === e.index)) return null;
  return column.id;
}

function stringLiteral(e: PlanExpr): string | null {
  return e.kind === 'literal' && typeof e.value === 'string' ? e.value : null;
}

/** Block filters implied by `filter` over `scan`'s columns (empty when none). */
export function blockFiltersOf(scan: ShardScan, filter: PlanExpr | null): BlockFilter[] {
  const out: BlockFilter[] = [];
  const visit = (e: PlanExpr): void => {
    if (e.kind === 'and') {
      visit(e.left);
      visit(e.right);
    } else if (e.kind === 'call' && e.name === 'matches_term' && e.args.length === 2) {
      const columnId = plainStringField(scan, e.args[0] as PlanExpr);
      const text = stringLiteral(e.args[1] as PlanExpr);
      if (columnId !== null && text !== null) out.push({ columnId, op: 'term', text });
    } else if (e.kind === 'compare' && e.op === '=') {
      const [column, literal] = e.left.kind === 'column' ? [e.left, e.right] : [e.right, e.left];
      const columnId = plainStringField(scan, column);
      const text = stringLiteral(literal);
      if (columnId !== null && text !== null) out.push({ columnId, op: 'equals', text });
    }
  };
  if (filter) visit(filter);
  return out;
}
