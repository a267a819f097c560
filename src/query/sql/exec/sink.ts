/**
 * Where a shard's plan fragment puts its filtered rows (rows, aggregates or RANGE slots); its own
 * module, so that shard-exec.ts and range-exec.ts do not import each other.
 */
import type { Batch } from '../plan/eval.js';
import type { ShardResult } from '../plan/plan.js';

/** What every output sink does. */
export interface Sink {
  /** Takes a filtered batch; false once no more rows are wanted. */
  add(batch: Batch): boolean;
  finish(): ShardResult;
}
