/**
 * A per-query bound on the memory rows and groups may take, checked where a query accumulates
 * them (shard row and group sinks, the router's merge and joins). Sizes are estimates from row and
 * cell counts, not measured heap: the point is to fail one oversized query with a clear error
 * before it takes the whole process down, not to account bytes exactly.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { countRejection } from '../../../shared/rejections.js';

/** Estimated bytes per accumulated value (a JS value slot plus its share of boxing and strings). */
export const CELL_BYTES = 24;
/** Estimated fixed cost of one group of an aggregation (map entry, key array, state objects). */
export const GROUP_BYTES = 160;

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)}${units[unit]}`;
}

export class MemoryBudget {
  private usedBytes = 0;

  /** `limitBytes` 0 or undefined = unbounded. */
  constructor(private readonly limitBytes: number | undefined) {}

  /** Adds `bytes` held by `what` (e.g. "collecting rows"); throws 6000 once past the limit. */
  charge(bytes: number, what: string): void {
    if (!this.limitBytes) return;
    this.usedBytes += bytes;
    if (this.usedBytes > this.limitBytes) {
      countRejection('query_memory');
      throw new DbError(
        ErrorCode.RuntimeResourcesExhausted,
        `Resources exhausted: the query needs more than its memory limit of ${formatBytes(this.limitBytes)} (query.memory_limit) while ${what}; narrow it with filters, an aggregate or a LIMIT, or raise the limit`,
      );
    }
  }

  /** Gives back `bytes` (rows cut by a top-k, for example). */
  release(bytes: number): void {
    this.usedBytes = Math.max(0, this.usedBytes - bytes);
  }
}
