/**
 * `/api/v1/label/<name>/values`. Ordinary labels (and `__name__`, the metric names) are read from
 * the series of the time range as Prometheus does. GreptimeDB's extra names answer from the
 * catalog: `__field__` lists the value columns of the matched metrics, and the database labels
 * (`__database__`, `__schema__`, `x_greptime_database`) list databases, or the databases holding
 * the matched metrics.
 */
import type { PromqlLimits } from '../../query/promql/limits.js';
import type { Matcher } from '../../query/promql/types.js';
import { physicalKindOf, type TableSchema } from '../../shared/types.js';
import type { AuthedUser } from '../auth/user-provider.js';
import {
  type CatalogView,
  DATABASE_LABELS,
  FIELD_LABEL,
  METRIC_NAME_LABEL,
  type ShardQuery,
  ShardSampleSource,
} from '../promql-source.js';

export interface LabelValuesRequest {
  catalog: CatalogView & {
    listDatabases(): Array<{ name: string }>;
    getTable(db: string, name: string): TableSchema | undefined;
  };
  cluster: ShardQuery;
  limits: PromqlLimits;
  db: string;
  user: AuthedUser | null;
  matcherSets: Matcher[][];
  startMs: number;
  endMs: number;
  signal: AbortSignal;
}

function sourceOf(request: LabelValuesRequest, db: string): ShardSampleSource {
  return new ShardSampleSource(request.catalog, request.cluster, { db, user: request.user, limits: request.limits });
}

/** Metric names in `db` with data in range matching the sets (all selectable metrics without sets). */
async function metricNames(request: LabelValuesRequest, db: string): Promise<string[]> {
  return sourceOf(request, db).labelValues(
    METRIC_NAME_LABEL,
    request.matcherSets,
    request.startMs,
    request.endMs,
    request.signal,
  );
}

async function fieldNames(request: LabelValuesRequest): Promise<string[]> {
  const tables =
    request.matcherSets.length === 0
      ? request.catalog.listTables(request.db)
      : (await metricNames(request, request.db)).flatMap((name) => request.catalog.getTable(request.db, name) ?? []);
  const names = new Set<string>();
  for (const table of tables) {
    for (const c of table.columns) {
      if (c.semantic !== 'FIELD' || c.type === 'Date') continue;
      const kind = physicalKindOf(c.type);
      if (kind === 'f64' || kind === 'i64' || kind === 'u64') names.add(c.name);
    }
  }
  return [...names].sort();
}

async function databaseNames(request: LabelValuesRequest): Promise<string[]> {
  const all = request.catalog.listDatabases().map((d) => d.name);
  if (request.matcherSets.length === 0) return all.sort();
  const holding: string[] = [];
  for (const db of all) if ((await metricNames(request, db)).length > 0) holding.push(db);
  return holding.sort();
}

/** The sorted values of label `name`. */
export async function labelValues(name: string, request: LabelValuesRequest): Promise<string[]> {
  if (name === FIELD_LABEL) return fieldNames(request);
  if ((DATABASE_LABELS as readonly string[]).includes(name)) return databaseNames(request);
  return sourceOf(request, request.db).labelValues(
    name,
    request.matcherSets,
    request.startMs,
    request.endMs,
    request.signal,
  );
}
