/**
 * Bounds on what a range query (`RANGE ... ALIGN`) may allocate. A range query's output size is
 * set by its durations, not by its data: one row counts toward RANGE/ALIGN slots, and FILL makes
 * every slot between a BY group's first and last one a row. `ALIGN '1ms'` over a century is
 * billions of rows from a handful of stored ones, so every place that creates slots first
 * estimates how many it is about to create and refuses with 6000 past `query.range_max_rows`
 * (and past `query.memory_limit`, at the same estimated cost per row as other groups).
 */
import { RANGE_MAX_ROWS_DEFAULT } from '../../../shared/config.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { countRejection } from '../../../shared/rejections.js';
import type { SqlSession } from './env.js';
import { CELL_BYTES, GROUP_BYTES, MemoryBudget } from './memory-budget.js';

/** What one range query may hold, fixed at planning; 0 = unbounded. */
export interface RangeBounds {
  maxRows: number;
  memoryLimitBytes: number;
}

/** The bounds of a session: unset `rangeMaxRows` takes the default, unset memory is unbounded. */
export function rangeBoundsOf(session: SqlSession): RangeBounds {
  return { maxRows: session.rangeMaxRows ?? RANGE_MAX_ROWS_DEFAULT, memoryLimitBytes: session.memoryLimitBytes ?? 0 };
}

/** The 6000 error for `rows` slots (a count or an estimate) past the row limit. */
export function tooManyRangeRows(rows: bigint | number | string, bounds: RangeBounds, where: string): DbError {
  countRejection('query_memory');
  return new DbError(
    ErrorCode.RuntimeResourcesExhausted,
    `Resources exhausted: RANGE query would produce ${rows} rows (time slots × BY groups) ${where}, more than the limit of ${bounds.maxRows} (query.range_max_rows); use a coarser ALIGN, a shorter RANGE, a narrower time filter, or raise the limit`,
  );
}

/**
 * Refuses at planning a query whose every row alone would pass the limit: no data makes it
 * smaller, and refusing later would only waste the shards' time first. A row counts toward the
 * slots `origin + k·align` with `t - range < slot <= t`: ⌊range / align⌋ of them at least.
 */
export function checkRangeFanOut(rangeNanos: bigint, alignNanos: bigint, bounds: RangeBounds): void {
  const slots = rangeNanos / alignNanos;
  if (bounds.maxRows > 0 && slots > BigInt(bounds.maxRows)) {
    throw tooManyRangeRows(slots, bounds, `for each stored row (RANGE / ALIGN)`);
  }
}

/**
 * Counts the groups a shard's range sink creates against both limits. `reserve` runs before a
 * row's slots are expanded, with the number of new slots that row may add.
 */
export class RangeGroupGuard {
  private groups = 0;
  private readonly budget: MemoryBudget;

  constructor(
    private readonly bounds: RangeBounds,
    /** Cells of one group's key: BY values plus the slot. */
    private readonly keyCells: number,
  ) {
    this.budget = new MemoryBudget(bounds.memoryLimitBytes);
  }

  reserve(newGroups: number): void {
    if (newGroups <= 0) return;
    const total = this.groups + newGroups;
    if (this.bounds.maxRows > 0 && total > this.bounds.maxRows) {
      throw tooManyRangeRows(`at least ${total}`, this.bounds, 'in a shard');
    }
    this.budget.charge(newGroups * (GROUP_BYTES + this.keyCells * CELL_BYTES), 'grouping range slots in a shard');
    this.groups = total;
  }
}

/**
 * Checks the router's FILL grid, `rows` slots of `columns` cells each, before it is generated.
 * The grid is charged against a budget of its own: merged groups were charged already, and the
 * grid replaces them.
 */
export function checkFillGrid(rows: bigint, columns: number, bounds: RangeBounds): void {
  if (bounds.maxRows > 0 && rows > BigInt(bounds.maxRows)) {
    throw tooManyRangeRows(rows, bounds, 'after FILL');
  }
  const bytes = Number(rows) * (columns + 1) * CELL_BYTES;
  new MemoryBudget(bounds.memoryLimitBytes).charge(bytes, 'filling range slots');
}
