/**
 * Where a shard's filtered rows go when the query returns rows: the output columns, pre-sorted
 * and cut to the query's top rows when ORDER BY/LIMIT allow.
 *
 * An output that is a plain scan column keeps the storage vector's type: its rows are copied out
 * of the vector by the filter's selection into typed arrays, and nothing is boxed. Other outputs
 * are evaluated into values.
 */
import { type Column, cellAt, columnBytes, concatColumns, copyVector } from '../../columns.js';
import type { EvalContext } from '../functions/types.js';
import { type Batch, evaluate, takeRows } from '../plan/eval.js';
import { CELL_BYTES, type MemoryBudget } from '../plan/memory-budget.js';
import type { PlanExpr, ShardOutput, ShardResult } from '../plan/plan.js';
import type { Value } from '../types/values.js';
import type { Sink } from './sink.js';
import { applyOrder, compareRowToKeys, sortPermutation } from './sort.js';

/** Rows a sorted top-k may collect beyond twice its limit before cutting back to the limit. */
const TOP_K_SLACK_ROWS = 4096;

export class RowSink implements Sink {
  /** Per output column, the parts collected from each batch (joined at a cut and at the end). */
  private readonly parts: Column[][];
  private readonly partRows: number[] = [];
  private rowCount = 0;
  private heldBytes = 0;
  /** Once the top-k is full: the sort-key values of its last row. */
  private boundary: Value[] | null = null;

  constructor(
    private readonly output: Extract<ShardOutput, { kind: 'rows' }>,
    private readonly ctx: EvalContext,
    private readonly budget: MemoryBudget,
    /** This shard alone answers (ShardPlan.sole): send the visible columns only, in final order. */
    private readonly sole = false,
  ) {
    this.parts = output.exprs.map(() => []);
  }

  add(batch: Batch): boolean {
    const { exprs, sort, limit } = this.output;
    // Without a sort, or when the scan yields rows in sort order, the first `limit` rows are the
    // answer and scanning can stop early.
    const inOrder = sort.length === 0 || this.output.scanOrdered === true;
    const take = inOrder && limit !== null ? Math.min(batch.rowCount, limit - this.rowCount) : batch.rowCount;
    let rows = take < batch.rowCount ? takeRows(batch, firstRows(take)) : batch;
    const evaluated: Array<Value[] | undefined> = new Array(exprs.length);
    if (this.boundary) {
      // A full top-k keeps only rows that sort strictly before its current last row: evaluate
      // the sort keys first and drop the rest before computing anything else for them.
      for (const key of sort) evaluated[key.index] ??= evaluate(exprs[key.index] as PlanExpr, rows, this.ctx);
      const keep: number[] = [];
      for (let r = 0; r < rows.rowCount; r++) {
        if (compareRowToKeys(evaluated as Value[][], r, sort, this.boundary) < 0) keep.push(r);
      }
      if (keep.length === 0) return true;
      if (keep.length < rows.rowCount) {
        rows = takeRows(rows, keep);
        for (const key of sort) {
          const all = evaluated[key.index] as Value[];
          evaluated[key.index] = keep.map((r) => all[r] as Value);
        }
      }
    }
    let added = 0;
    exprs.forEach((e, i) => {
      const column = typedColumn(e, rows) ?? evaluated[i] ?? evaluate(e, rows, this.ctx);
      (this.parts[i] as Column[]).push(column);
      added += columnBytes(column, rows.rowCount, CELL_BYTES);
    });
    this.partRows.push(rows.rowCount);
    this.rowCount += rows.rowCount;
    this.charge(this.heldBytes + added);
    // A sorted top-k only ever needs its best `limit` rows: cut back whenever twice that piles up.
    if (sort.length > 0 && limit !== null && this.rowCount >= 2 * limit + TOP_K_SLACK_ROWS) this.cut();
    return !(inOrder && limit !== null && this.rowCount >= limit);
  }

  /** Keeps the budget's charge equal to the bytes held (a cut releases). */
  private charge(held: number): void {
    if (held > this.heldBytes) this.budget.charge(held - this.heldBytes, 'collecting rows in a shard');
    else this.budget.release(this.heldBytes - held);
    this.heldBytes = held;
  }

  private joined(): Column[] {
    return this.parts.map((parts) => concatColumns(parts, this.partRows));
  }

  private cut(): void {
    const { sort, limit } = this.output;
    const columns = this.joined();
    const order = sortPermutation(columns, this.rowCount, sort);
    const kept = applyOrder(columns, order, 0, limit);
    this.reset(kept.columns, kept.rowCount);
    if (limit !== null && limit > 0 && this.rowCount === limit) {
      this.boundary = sort.map((key) => cellAt(kept.columns[key.index] as Column, limit - 1) as Value);
    }
  }

  private reset(columns: Column[], rowCount: number): void {
    columns.forEach((c, i) => {
      this.parts[i] = [c];
    });
    this.partRows.splice(0, this.partRows.length, rowCount);
    this.rowCount = rowCount;
    this.charge(columns.reduce((sum, c) => sum + columnBytes(c, rowCount, CELL_BYTES), 0));
  }

  finish(): ShardResult {
    if (this.output.sort.length > 0) this.cut();
    const columns = this.rowCount === 0 ? this.parts.map(() => []) : this.joined();
    const visible = this.output.visible;
    // The sort keys past the visible columns (a table's tags, mostly) only order rows against
    // other shards' rows: a sole shard's are in order already, and they cost most of the answer.
    if (this.sole && visible !== undefined) {
      return { kind: 'rows', rowCount: this.rowCount, columns: columns.slice(0, visible), final: true };
    }
    return { kind: 'rows', rowCount: this.rowCount, columns };
  }
}

/** A plain scan column backed by a storage vector, copied out typed; null otherwise. */
function typedColumn(e: PlanExpr, rows: Batch): Column | null {
  if (e.kind !== 'column') return null;
  const vector = rows.vectors?.[e.index];
  if (vector === undefined) return null;
  return copyVector(vector, rows.selection ?? null, rows.rowCount);
}

function firstRows(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}
