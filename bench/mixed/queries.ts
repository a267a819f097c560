/**
 * The queries of the mixed bench, as each server spells them. All are POSTed form bodies, so one
 * keep-alive client serves every endpoint.
 *
 * VictoriaMetrics names a line-protocol field `<measurement>_<field>` (`mixp_v`) and has no SQL,
 * so its "SQL" phases run the same MetricsQL as its PromQL phases. ShoalDB keeps the table `mixp`
 * as the metric, its only float field `v` as the value (docs/metrics-storage.md). The SQL has no
 * time bound, as in the issue, so it reads every row sent so far while the [1h] queries read one
 * hour (1.8 M samples): the first hour of steps, written during the warm-up.
 */
import type { Target } from '../peers/targets.js';

export type QueryKind = 'promql' | 'sql';

export interface Query {
  text: string;
  url: URL;
  body: Buffer;
  headers: Record<string, string>;
  /** Groups (hosts) in an answer: checked before measuring, so an empty selection is caught. */
  groups(answer: string): number;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const promGroups = (answer: string) =>
  (JSON.parse(answer) as { data?: { result?: unknown[] } }).data?.result?.length ?? 0;

const sqlGroups = (answer: string) =>
  (JSON.parse(answer) as { output?: Array<{ records?: { rows: unknown[] } }> }).output?.[0]?.records?.rows.length ?? 0;

function form(fields: Record<string, string>): Buffer {
  return Buffer.from(new URLSearchParams(fields).toString());
}

export function queryFor(target: Target, kind: QueryKind, timeMs: number): Query {
  const time = String(timeMs / 1000);
  const base = target.healthUrl.replace(/\/health$/, '');
  if (target.name === 'shoaldb' && kind === 'sql') {
    const text = 'SELECT host, avg(v) FROM mixp GROUP BY host';
    return {
      text,
      url: new URL(`${base}/v1/sql?db=public`),
      body: form({ sql: text }),
      headers: FORM,
      groups: sqlGroups,
    };
  }
  if (target.name === 'shoaldb') {
    const text = 'avg by (host) (avg_over_time(mixp[1h]))';
    const body = form({ query: text, time, timeout: '60s' });
    return { text, url: new URL(`${base}/v1/metricsapi/api/v1/query`), body, headers: FORM, groups: promGroups };
  }
  // nocache: the rollup cache would answer repeats of the same query from memory.
  const text = 'avg by (host) (avg_over_time(mixp_v[1h]))';
  const body = form({ query: text, time, timeout: '60s', nocache: '1' });
  return { text, url: new URL(`${base}/api/v1/query`), body, headers: FORM, groups: promGroups };
}
