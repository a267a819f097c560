/**
 * What the PromQL pushdown tests share: in-process shard stores behind a `ShardSampleSource`
 * (plans and answers cross a structured clone, as between worker threads), and the comparison of
 * every query's pushed answer with the router-only one at several instants and ranges.
 */
import type { PromqlShardPlan } from '../../../../src/query/promql/distribute/shard-plan.js';
import { instantQuery, type QueryOutcome, rangeQuery } from '../../../../src/query/promql/engine.js';
import { type FloatHistogram, histogramsEqual } from '../../../../src/query/promql/histogram/float-histogram.js';
import { runPromqlShardPlan } from '../../../../src/query/promql/store/shard-entry.js';
import { type Labels, PromqlError } from '../../../../src/query/promql/types.js';
import type { Catalog } from '../../../../src/router/catalog.js';
import { type ShardQuery, ShardSampleSource } from '../../../../src/router/promql-source.js';
import type { ShardStore } from '../../../../src/shard/store.js';

export interface PushdownEnv {
  catalog: Catalog;
  stores: ShardStore[];
  /** Shard plan ops sent since the last reset, e.g. ['eval', 'eval', 'eval']. */
  ops: string[];
}

/** Tolerances: identical, or relative for partial sums added in another order. */
export const EXACT = 0;
export const SUMMED = 1e-9;

/** FNV-1a 32 of a text: where the tests place a series among the stores. */
export function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function sourceOf(env: PushdownEnv): ShardSampleSource {
  const shards: ShardQuery = {
    async query<T>({ plan }: { plan: PromqlShardPlan }): Promise<T[]> {
      env.ops.push(plan.op);
      return Promise.all(
        env.stores.map(async (store) => {
          const answer = await runPromqlShardPlan(structuredClone(plan), store);
          return structuredClone(answer.value, { transfer: answer.transfer }) as T;
        }),
      );
    },
  };
  return new ShardSampleSource(env.catalog, shards, { db: 'public' });
}

function labelText(labels: Labels): string {
  return labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(',');
}

/** Floats equal: identical (NaN = NaN, -0 ≠ 0), or within `tolerance` relative when one is given. */
function close(a: number, b: number, tolerance: number): boolean {
  if (Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b))) return true;
  if (tolerance === 0 || !Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b), 1);
}

/** Every field of a histogram in a fixed order, -0 told apart from 0. */
function fieldsOf(h: FloatHistogram | undefined): string {
  if (h === undefined) return 'none';
  const n = (x: number): string => (Object.is(x, -0) ? '-0' : String(x));
  const side = (b: FloatHistogram['positive']): string => `${b.index.join()}:${b.count.map(n).join()}`;
  return [h.schema, n(h.count), n(h.sum), n(h.zeroThreshold), n(h.zeroCount), h.hint]
    .concat([side(h.positive), side(h.negative), h.customValues.map(n).join()])
    .join('|');
}

/** Histograms equal: field for field, or within `tolerance`; the counter-reset hint always. */
function sameHistogram(a: FloatHistogram | undefined, b: FloatHistogram | undefined, tolerance: number): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (tolerance === 0) return fieldsOf(a) === fieldsOf(b);
  return a.hint === b.hint && histogramsEqual(a, b, (x, y) => close(x, y, tolerance));
}

/** Differences between two outcomes, as readable lines (empty when equal). */
export function differences(pushed: QueryOutcome, plain: QueryOutcome, tolerance: number): string[] {
  const out: string[] = [];
  if (pushed.resultType !== plain.resultType) return [`resultType ${pushed.resultType} vs ${plain.resultType}`];
  if ([...pushed.warnings].sort().join('\n') !== [...plain.warnings].sort().join('\n'))
    out.push(`warnings ${JSON.stringify(pushed.warnings)} vs ${JSON.stringify(plain.warnings)}`);
  if ([...pushed.infos].sort().join('\n') !== [...plain.infos].sort().join('\n'))
    out.push(`infos ${JSON.stringify(pushed.infos)} vs ${JSON.stringify(plain.infos)}`);
  if (pushed.resultType === 'vector' && plain.resultType === 'vector') {
    if (pushed.samples.length !== plain.samples.length)
      return [...out, `${pushed.samples.length} vs ${plain.samples.length} samples`];
    pushed.samples.forEach((p, i) => {
      const q = plain.samples[i] as (typeof plain.samples)[number];
      const name = labelText(p.labels);
      if (name !== labelText(q.labels)) out.push(`#${i} labels ${name} vs ${labelText(q.labels)}`);
      if (p.t !== q.t) out.push(`#${i} t ${p.t} vs ${q.t}`);
      if (!close(p.v, q.v, tolerance)) out.push(`#${i} ${name} v ${p.v} vs ${q.v}`);
      if (!sameHistogram(p.h, q.h, tolerance)) out.push(`#${i} ${name} h ${fieldsOf(p.h)} vs ${fieldsOf(q.h)}`);
    });
  } else if (pushed.resultType === 'matrix' && plain.resultType === 'matrix') {
    if (pushed.series.length !== plain.series.length)
      return [...out, `${pushed.series.length} vs ${plain.series.length} series`];
    pushed.series.forEach((p, i) => {
      const q = plain.series[i] as (typeof plain.series)[number];
      const name = labelText(p.labels);
      if (name !== labelText(q.labels)) out.push(`#${i} labels ${name} vs ${labelText(q.labels)}`);
      if (p.t.join() !== q.t.join()) out.push(`${name} float times differ`);
      p.v.forEach((v, k) => {
        if (!close(v, q.v[k] as number, tolerance)) out.push(`${name} @${p.t[k]} v ${v} vs ${q.v[k]}`);
      });
      const ph = p.histograms ?? { t: [], h: [] };
      const qh = q.histograms ?? { t: [], h: [] };
      if (ph.t.join() !== qh.t.join()) out.push(`${name} histogram times differ`);
      else
        ph.h.forEach((h, k) => {
          if (!sameHistogram(h, qh.h[k], tolerance))
            out.push(`${name} @${ph.t[k]} h ${fieldsOf(h)} vs ${fieldsOf(qh.h[k])}`);
        });
    });
  } else if (pushed.resultType === 'scalar' && plain.resultType === 'scalar') {
    if (!close(pushed.v, plain.v, tolerance)) out.push(`scalar ${pushed.v} vs ${plain.v}`);
  }
  return out;
}

type Outcome = { ok: true; value: QueryOutcome } | { ok: false; error: string };

async function attempt(run: () => Promise<QueryOutcome>): Promise<Outcome> {
  try {
    return { ok: true, value: await run() };
  } catch (err) {
    if (err instanceof PromqlError) return { ok: false, error: `${err.errorType}: ${err.message}` };
    throw err;
  }
}

interface Checks {
  same(found: unknown, wanted: unknown, message: string): void;
  fail(message: string): void;
}

/**
 * Runs every query at `instants` and over `ranges` with and without pushdown and reports each
 * difference (errors must be the same error); `seen` gets each router-only answer. Returns how
 * many evaluations were compared.
 */
export async function comparePushdown(
  t: Checks,
  source: ShardSampleSource,
  queries: ReadonlyArray<readonly [string, number]>,
  instants: readonly number[],
  ranges: ReadonlyArray<readonly [number, number, number]>,
  seen?: (plain: QueryOutcome) => void,
): Promise<number> {
  let compared = 0;
  for (const [query, tolerance] of queries) {
    const runs: Array<[string, (pushdown: boolean) => Promise<QueryOutcome>]> = [
      ...instants.map((time): [string, (pushdown: boolean) => Promise<QueryOutcome>] => [
        `instant @${time}`,
        (pushdown) => instantQuery(query, time, { source, pushdown }),
      ]),
      ...ranges.map(([start, end, step]): [string, (pushdown: boolean) => Promise<QueryOutcome>] => [
        `range ${start}..${end} step ${step}`,
        (pushdown) => rangeQuery(query, start, end, step, { source, pushdown }),
      ]),
    ];
    for (const [where, run] of runs) {
      const plain = await attempt(() => run(false));
      const pushed = await attempt(() => run(true));
      compared++;
      if (!plain.ok || !pushed.ok) {
        t.same(pushed, plain, `${query} (${where}): same error`);
        continue;
      }
      seen?.(plain.value);
      const diff = differences(pushed.value, plain.value, tolerance);
      if (diff.length > 0) t.fail(`${query} (${where}) differs:\n  ${diff.slice(0, 8).join('\n  ')}`);
    }
  }
  return compared;
}
