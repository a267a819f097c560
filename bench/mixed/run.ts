/**
 * `npm run bench:mixed`: ingest while queries run, ShoalDB side by side with VictoriaMetrics (when
 * installed). Per fresh server, phases of BENCH_PHASE_SECONDS each with the same writers (line
 * protocol, 5,000 one-field rows a body): idle, then 1 and 4 queries kept in flight, PromQL then
 * SQL, each between two idle phases (to tell a server slowed by its growing table from one slowed
 * by queries). What matters is the share of its idle ingest rate a server keeps while answering
 * queries.
 *
 * A warm-up of BENCH_WARMUP_SECONDS comes first and is not reported: a fresh server ingests its
 * first seconds slower (new series, cold JIT), which would make every later share look better.
 *
 * Environment: BENCH_PHASE_SECONDS (default 15), BENCH_WARMUP_SECONDS (default 5), BENCH_REPS
 * (default 1; targets interleave), BENCH_TARGETS (shoaldb,victoria-metrics), BENCH_WRITERS
 * (bodies in flight, default 2), BENCH_PROFILE_PHASES (phase names or "all": print ShoalDB's CPU
 * profile of each, from /debug/prof/cpu; BENCH_PROFILE_THREAD narrows it to `router` or `shard-N`).
 */

import http from 'node:http';
import { postForAnswer } from '../http-client.js';
import { median, quantile } from '../peers/stats.js';
import { type Target, wantedTargets } from '../peers/targets.js';
import { BodySource, HOSTS, queryTimeOf } from './bodies.js';
import { type PhaseResult, runPhase } from './phase.js';
import { type QueryKind, queryFor } from './queries.js';

/**
 * Query phases alternate with idle ones: ingest slows as the table grows (bigger compactions), so
 * a query phase's share is its rate over the mean of the idle phases on either side; the share of
 * the first idle phase is printed too.
 */
const PHASES: Array<{ name: string; kind?: QueryKind; inFlight: number }> = [
  { name: 'idle', inFlight: 0 },
  { name: 'PromQL, 1 in flight', kind: 'promql', inFlight: 1 },
  { name: 'idle 2', inFlight: 0 },
  { name: 'PromQL, 4 in flight', kind: 'promql', inFlight: 4 },
  { name: 'idle 3', inFlight: 0 },
  { name: 'SQL, 1 in flight', kind: 'sql', inFlight: 1 },
  { name: 'idle 4', inFlight: 0 },
  { name: 'SQL, 4 in flight', kind: 'sql', inFlight: 4 },
  { name: 'idle 5', inFlight: 0 },
];

interface TargetRun {
  target: string;
  phases: PhaseResult[];
  acked: number;
  stored: number;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1));
const rate = (p: PhaseResult) => p.rows / p.seconds;

/** One answer before measuring: a query that selects nothing would make every figure meaningless. */
async function checkQuery(target: Target, kind: QueryKind, timeMs: number): Promise<void> {
  const q = queryFor(target, kind, timeMs);
  const agent = new http.Agent({ keepAlive: false });
  const t0 = performance.now();
  const answer = await postForAnswer(agent, q.url, q.body, q.headers);
  const took = performance.now() - t0;
  const groups = answer.status === 200 ? q.groups(answer.text) : 0;
  console.log(`    check ${q.text}: ${answer.status}, ${groups} groups in ${ms(took)} ms`);
  if (groups !== HOSTS) {
    throw new Error(`${target.name}: ${q.text} answered ${groups} groups, not ${HOSTS}: ${answer.text.slice(0, 300)}`);
  }
}

/**
 * With BENCH_PROFILE_PHASES (phase names separated by ";", or "all"), ShoalDB's own
 * `/debug/prof/cpu` samples every thread through most of the phase: its top table, by thread.
 */
async function profilePhase(target: Target, phase: string, seconds: number): Promise<string | null> {
  const wanted = (process.env.BENCH_PROFILE_PHASES ?? '').split(';').map((p) => p.trim());
  if (target.name !== 'shoaldb' || !(wanted.includes('all') || wanted.includes(phase))) return null;
  const base = target.healthUrl.replace(/\/health$/, '');
  const span = Math.max(1, seconds - 2);
  const thread = process.env.BENCH_PROFILE_THREAD ? `&thread=${process.env.BENCH_PROFILE_THREAD}` : '';
  const res = await fetch(`${base}/debug/prof/cpu?seconds=${span}&frequency=99&output=text${thread}`, {
    method: 'POST',
  });
  return `${res.status} ${await res.text()}`;
}

async function runTarget(
  start: () => Promise<Target>,
  seconds: number,
  warmup: number,
  writers: number,
): Promise<TargetRun> {
  const bodies = new BodySource();
  const target = await start();
  try {
    const warm = await runPhase(target, bodies, writers, warmup, undefined, 0);
    console.log(`  ${target.name.padEnd(16)} ${'warm-up'.padEnd(20)} ${fmt(rate(warm)).padStart(9)} rows/s`);
    const phases: PhaseResult[] = [];
    const checked = new Set<QueryKind>();
    for (const phase of PHASES) {
      if (phase.kind && !checked.has(phase.kind)) {
        await checkQuery(target, phase.kind, queryTimeOf(bodies.firstMs));
        checked.add(phase.kind);
      }
      const query = phase.kind ? queryFor(target, phase.kind, queryTimeOf(bodies.firstMs)) : undefined;
      const profiled = profilePhase(target, phase.name, seconds);
      const r = await runPhase(target, bodies, writers, seconds, query, phase.inFlight);
      const profile = await profiled;
      if (profile) console.log(`  CPU profile of ${target.name}, ${phase.name}:\n${profile}`);
      phases.push(r);
      const failures = r.failedWrites + r.failedQueries + r.failedProbes;
      const queries = phase.kind ? `, ${r.queryMs.length} queries (p50 ${ms(quantile(r.queryMs, 0.5))} ms)` : '';
      console.log(
        `  ${target.name.padEnd(16)} ${phase.name.padEnd(20)} ${fmt(rate(r)).padStart(9)} rows/s${queries}, /health p99 ${ms(quantile(r.healthMs, 0.99))} ms, peak RSS ${r.peakRssMiB} MiB${failures ? `; failed: ${r.failedWrites} writes, ${r.failedQueries} queries, ${r.failedProbes} probes, first: ${r.firstFailure}` : ''}`,
      );
    }
    const acked = [warm, ...phases].reduce((n, p) => n + p.rows, 0);
    const lastMs = Math.max(...phases.map((p) => p.lastMs));
    const windowS = Math.ceil((lastMs - bodies.firstMs) / 1000) + 60;
    const stored = await target.storedSamples({
      tables: ['mixp'],
      samplesPerRow: 1,
      samples: acked,
      lastMs,
      vmCount: `sum(count_over_time(mixp_v[${windowS}s]))`,
    });
    console.log(
      `  ${target.name}: stored ${fmt(stored)} of ${fmt(acked)} rows acknowledged ${stored === acked ? 'OK' : 'MISMATCH'}`,
    );
    return { target: target.name, phases, acked, stored };
  } finally {
    await target.stop();
  }
}

/** A phase's rate over the first idle phase's. */
function shareOfFirst(run: TargetRun, phase: number): number {
  const idle = rate(run.phases[0] as PhaseResult);
  return idle > 0 ? rate(run.phases[phase] as PhaseResult) / idle : 0;
}

/** A query phase's rate over the mean of the idle phases before and after it. */
function share(run: TargetRun, phase: number): number {
  const around = [run.phases[phase - 1], run.phases[phase + 1]].filter((p): p is PhaseResult => p !== undefined);
  const idle = around.reduce((sum, p) => sum + rate(p), 0) / Math.max(1, around.length);
  return idle > 0 ? rate(run.phases[phase] as PhaseResult) / idle : 0;
}

function tables(runs: TargetRun[], reps: number): string {
  const out = [
    '| target | phase | ingest rows/s | share of idle around | share of first idle | queries | query p50 / p99 ms | /health p50 / p99 / max ms | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const run of runs) {
    run.phases.forEach((p, i) => {
      const around = PHASES[i]?.kind ? `${(share(run, i) * 100).toFixed(0)}%` : '—';
      const queries = PHASES[i]?.kind ? String(p.queryMs.length) : '—';
      const latency = PHASES[i]?.kind ? `${ms(quantile(p.queryMs, 0.5))} / ${ms(quantile(p.queryMs, 0.99))}` : '—';
      const health = `${ms(quantile(p.healthMs, 0.5))} / ${ms(quantile(p.healthMs, 0.99))} / ${ms(p.healthMs.at(-1) ?? 0)}`;
      out.push(
        `| ${run.target} | ${PHASES[i]?.name} | ${fmt(rate(p))} | ${around} | ${(shareOfFirst(run, i) * 100).toFixed(0)}% | ${queries} | ${latency} | ${health} | ${p.peakRssMiB} |`,
      );
    });
  }
  const of = (name: string) => runs.filter((r) => r.target === name);
  const shoal = of('shoaldb');
  const vm = of('victoria-metrics');
  if (vm.length === 0) return out.join('\n');
  out.push(
    '',
    ...(reps > 1 ? [`shares: median of ${reps} runs`, ''] : []),
    '| phase | ShoalDB share | VM share | ShoalDB share / VM share |',
    '|---|---|---|---|',
  );
  PHASES.forEach((phase, i) => {
    if (phase.kind === undefined) return;
    const s = median(shoal.map((r) => share(r, i)));
    const v = median(vm.map((r) => share(r, i)));
    out.push(
      `| ${phase.name} | ${(s * 100).toFixed(0)}% | ${(v * 100).toFixed(0)}% | ${v > 0 ? (s / v).toFixed(2) : '—'} |`,
    );
  });
  return out.join('\n');
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_PHASE_SECONDS ?? 15);
  const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
  const reps = Number(process.env.BENCH_REPS ?? 1);
  const writers = Number(process.env.BENCH_WRITERS ?? 2);
  const active = wantedTargets();
  console.log(
    `mixed ingest and queries: ${writers} writers, bodies of 5,000 rows (1,000 hosts × 5 cores, one float field, one 10 s step a body), ${seconds} s a phase`,
  );
  const runs: TargetRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const [name, start] of active) {
      console.log(`\n${name}, rep ${rep + 1}:`);
      runs.push(await runTarget(start, seconds, warmup, writers));
    }
  }
  const stored = runs.every((r) => r.stored === r.acked) ? 'OK' : 'MISMATCH';
  console.log(`\nfresh server per target and rep; stored counts ${stored}\n`);
  console.log(tables(runs, reps));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
