/**
 * Process-wide tallies of the groups shards returned for SQL (`/metrics`:
 * `shoaldb_sql_shard_groups_returned_total`), by the form their states crossed in: `packed`
 * when every aggregate's states came as number columns (src/query/sql/exec/group-wire.ts), else
 * `objects`. Its own module so that metrics.ts and sql-env.ts both reach it without a cycle.
 */
import type { ShardResult } from '../query/sql/plan/plan.js';

export const sqlShardGroups = { packed: 0, objects: 0 };

export function countGroups(results: readonly ShardResult[]): void {
  for (const r of results) {
    if (r.kind !== 'groups' || r.count === 0) continue;
    if (r.states.every((s) => s.kind === 'fields')) sqlShardGroups.packed += r.count;
    else sqlShardGroups.objects += r.count;
  }
}
