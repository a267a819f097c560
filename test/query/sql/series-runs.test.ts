/**
 * GROUP BY tags folded a series run at a time gives the groups and partial states the general
 * path gives for the same scan chunks: NULL tags and values, NaN, ±0, ±Infinity, several key
 * columns, no key at all, and chunks that do not say where their series begin. And it is taken:
 * a plan with a row filter or a non-Float64 argument is not.
 */
import t from 'tap';
import { seriesRunPlanOf } from '../../../src/query/sql/exec/series-runs.js';
import { chunkToBatch, runPlanOnBatches } from '../../../src/query/sql/exec/shard-exec.js';
import type { AggregateCall, PlanExpr, ShardPlan } from '../../../src/query/sql/plan/plan.js';
import type { ScanChunk } from '../../../src/shared/scan.js';
import { prng } from '../../helpers/prng.js';

const rand = prng(Number(process.env.SERIES_RUNS_SEED ?? 3));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const col = (index: number, type: 'String' | 'Float64' | 'Int64'): PlanExpr => ({ kind: 'column', index, type });
const call = (name: string, args: PlanExpr[], type: AggregateCall['type']): AggregateCall => ({
  name,
  args,
  distinct: false,
  type,
});

const CALLS = [
  call('count', [], 'Int64'),
  call('count', [col(2, 'Float64')], 'Int64'),
  call('sum', [col(2, 'Float64')], 'Float64'),
  call('avg', [col(2, 'Float64')], 'Float64'),
  call('min', [col(2, 'Float64')], 'Float64'),
  call('max', [col(2, 'Float64')], 'Float64'),
];

function plan(groupBy: PlanExpr[], filter: PlanExpr | null = null, aggregates = CALLS): ShardPlan {
  return {
    version: 1,
    scan: {
      tableId: 1,
      columns: [
        { id: 1, kind: 'str', role: 'tag' },
        { id: 2, kind: 'str', role: 'tag' },
        { id: 3, kind: 'f64', role: 'field' },
        { id: 4, kind: 'i64', role: 'field' },
      ],
      types: ['String', 'String', 'Float64', 'Int64'],
      seriesFilter: [],
    },
    filter,
    nowNanos: 0n,
    timezone: 'UTC',
    output: { kind: 'aggregate', groupBy, aggregates },
  };
}

const VALUES = [0, -0, 1.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e300, 3];

/** A chunk of a few series, each run with its own tags; `starts`: whether it says where they begin. */
function chunk(starts: boolean): ScanChunk {
  const a: Array<string | null> = [];
  const b: Array<string | null> = [];
  const v: number[] = [];
  const valid: number[] = [];
  const seriesStarts: number[] = [];
  for (let s = 0; s < 1 + Math.floor(rand() * 5); s++) {
    seriesStarts.push(v.length);
    const ta = pick(['x', 'y', null]);
    const tb = pick(['p', 'q']);
    for (let r = 0; r < 1 + Math.floor(rand() * 6); r++) {
      a.push(ta);
      b.push(tb);
      v.push(pick(VALUES));
      valid.push(rand() < 0.2 ? 0 : 1);
    }
  }
  const n = v.length;
  return {
    rowCount: n,
    vectors: [
      { kind: 'str', values: a, valid: Uint8Array.from(a.map((x) => (x === null ? 0 : 1))) },
      { kind: 'str', values: b },
      { kind: 'f64', values: Float64Array.from(v), valid: Uint8Array.from(valid) },
      { kind: 'i64', values: new BigInt64Array(n) },
    ],
    seriesStarts: starts ? seriesStarts : undefined,
  };
}

/** The result with numbers spelled so that -0 and NaN compare. */
function spelled(value: unknown): string {
  return JSON.stringify(value, (_, v) =>
    typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : typeof v === 'bigint' ? `${v}n` : v,
  );
}

const TYPES = plan([]).scan?.types ?? [];

for (const [name, groupBy] of [
  ['one tag', [col(0, 'String')]],
  ['two tags', [col(1, 'String'), col(0, 'String')]],
  ['no GROUP BY', []],
] as const) {
  t.test(`${name}: the same groups and states as the general path`, async (t) => {
    const p = plan([...groupBy]);
    t.ok(seriesRunPlanOf(p), 'the plan folds series runs');
    for (let round = 0; round < 200; round++) {
      const chunks = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => chunk(rand() < 0.8));
      const folded = runPlanOnBatches(
        p,
        chunks.map((c) => chunkToBatch(c, TYPES)),
      );
      const general = runPlanOnBatches(
        p,
        chunks.map((c) => ({ ...chunkToBatch(c, TYPES), chunk: undefined })),
      );
      if (spelled(folded) !== spelled(general)) {
        t.equal(spelled(folded), spelled(general), `round ${round}`);
        return;
      }
    }
    t.pass('200 rounds');
  });
}

t.test('plans the fold does not take', async (t) => {
  t.equal(seriesRunPlanOf(plan([col(0, 'String')], col(2, 'Float64'))), null, 'a row filter');
  t.equal(seriesRunPlanOf(plan([col(2, 'Float64')])), null, 'grouping by a field');
  t.equal(seriesRunPlanOf(plan([], null, [call('sum', [col(3, 'Int64')], 'Int64')])), null, 'an Int64 argument');
  t.equal(
    seriesRunPlanOf(plan([], null, [{ ...call('count', [col(2, 'Float64')], 'Int64'), distinct: true }])),
    null,
    'DISTINCT',
  );
});

t.test('grouping sets take the general path: a row feeds one group per set', async (t) => {
  const p = plan([col(0, 'String'), col(1, 'String')]);
  if (p.output.kind !== 'aggregate') throw new Error('aggregate plan expected');
  p.output.groupingSets = [[0, 1], [0], []];
  t.equal(seriesRunPlanOf(p), null);
});
