/**
 * `npm run bench:peers`: the same pre-generated request pools posted to ShoalDB and to
 * VictoriaMetrics (when installed), each run on a fresh server, targets interleaved, stored
 * counts verified; prints samples/s, the ratio, peak RSS and /health latency during the load.
 *
 * Environment: BENCH_WORKLOADS (comma list of lp-wide, lp-highcard (100,000 hosts), lp-churn (1,000
 * hosts replaced every 3 minutes of data), lp-narrow,
 * rw-20, rw-1, tsdb; default all), BENCH_TARGETS (shoaldb,victoria-metrics), BENCH_REPS (default 2), BENCH_SCALE (multiplies
 * the pool sizes; default 1), BENCH_CONCURRENCY (requests in flight, default 4), BENCH_PROFILE_DIR
 * (CPU profiles of ShoalDB's threads, summarised at the end).
 */
import http from 'node:http';
import { postForAnswer } from '../http-client.js';
import { summariseProfiles } from '../profile-summary.js';
import { makePool, type Pool, startMs, type WorkloadName } from './pools.js';
import { median, peakRssMiB, quantile } from './stats.js';
import { type Target, wantedTargets } from './targets.js';

const SAMPLES: Record<WorkloadName, number> = {
  'lp-wide': 10_000_000,
  'lp-highcard': 10_000_000,
  'lp-churn': 10_000_000,
  'lp-narrow': 3_000_000,
  'rw-20': 10_000_000,
  'rw-1': 3_000_000,
  tsdb: 1_000_000,
};

interface RunResult {
  target: string;
  samplesPerSecond: number;
  seconds: number;
  failed: number;
  firstFailure: string;
  peakRssMiB: number;
  healthP99Ms: number;
  stored: number;
}

async function runOnce(pool: Pool, target: Target, concurrency: number): Promise<RunResult> {
  const { url, headers } = target.endpoint(pool.name);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let next = 0;
  let failed = 0;
  let firstFailure = '';
  let done = false;
  const health: number[] = [];
  const probe = (async () => {
    while (!done) {
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) =>
        http.get(target.healthUrl, { agent: probeAgent }, (res) => res.resume().on('end', resolve)).on('error', reject),
      );
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < pool.bodies.length) {
        const answer = await postForAnswer(agent, url, pool.bodies[next++] as Buffer, headers);
        if (answer.status < 200 || answer.status >= 300) {
          failed++;
          firstFailure ||= `${answer.status} ${answer.text.slice(0, 200)}`;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  done = true;
  await probe;
  agent.destroy();
  probeAgent.destroy();
  const peak = peakRssMiB(target.pid);
  health.sort((a, b) => a - b);
  return {
    target: target.name,
    samplesPerSecond: pool.samples / seconds,
    seconds,
    failed,
    firstFailure,
    peakRssMiB: peak,
    healthP99Ms: quantile(health, 0.99),
    stored: await target.storedSamples(pool),
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const workloads = (process.env.BENCH_WORKLOADS ?? 'lp-wide,lp-highcard,lp-churn,lp-narrow,rw-20,rw-1,tsdb').split(
    ',',
  ) as WorkloadName[];
  const reps = Number(process.env.BENCH_REPS ?? 2);
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
  const active = wantedTargets();
  const t0 = startMs();
  const table: string[] = [
    '| workload | ShoalDB samples/s | VictoriaMetrics samples/s | ratio | ShoalDB peak RSS MiB | VM peak RSS MiB | /health p99 ms (ShoalDB / VM) | stored |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const workload of workloads) {
    const pool = makePool(workload, Math.round(SAMPLES[workload] * scale), t0);
    console.log(`\n${workload}: ${pool.describe}; ${pool.bodies.length} requests, ${fmt(pool.samples)} samples`);
    const results = new Map<string, RunResult[]>();
    for (let rep = 0; rep < reps; rep++) {
      for (const [name, start] of active) {
        const target = await start();
        try {
          const r = await runOnce(pool, target, concurrency);
          console.log(
            `  ${name.padEnd(17)} rep ${rep + 1}: ${fmt(r.samplesPerSecond).padStart(10)} samples/s in ${r.seconds.toFixed(1)} s, peak RSS ${r.peakRssMiB} MiB, /health p99 ${r.healthP99Ms.toFixed(1)} ms, stored ${fmt(r.stored)}/${fmt(pool.samples)}${r.stored === pool.samples ? ' OK' : ' MISMATCH'}${r.failed ? `, ${r.failed} failed: ${r.firstFailure}` : ''}`,
          );
          results.set(name, [...(results.get(name) ?? []), r]);
        } finally {
          await target.stop();
        }
      }
    }
    const shoal = results.get('shoaldb') ?? [];
    const vm = results.get('victoria-metrics') ?? [];
    const rate = (rs: RunResult[]) => median(rs.map((r) => r.samplesPerSecond));
    const rss = (rs: RunResult[]) => Math.max(0, ...rs.map((r) => r.peakRssMiB));
    const p99 = (rs: RunResult[]) => Math.max(0, ...rs.map((r) => r.healthP99Ms));
    const ok = [...shoal, ...vm].every((r) => r.stored === pool.samples && r.failed === 0);
    const ratio = vm.length > 0 ? (rate(shoal) / rate(vm)).toFixed(2) : '—';
    table.push(
      `| ${pool.describe} | ${fmt(rate(shoal))} | ${vm.length ? fmt(rate(vm)) : '—'} | ${ratio} | ${rss(shoal)} | ${vm.length ? rss(vm) : '—'} | ${p99(shoal).toFixed(1)} / ${vm.length ? p99(vm).toFixed(1) : '—'} | ${ok ? 'OK' : 'MISMATCH'} |`,
    );
  }
  console.log(`\nmedian of ${reps} runs each, ${concurrency} requests in flight, fresh server per run\n`);
  console.log(table.join('\n'));
  const profiles = process.env.BENCH_PROFILE_DIR;
  if (profiles) console.log(`\nCPU profiles (self time) in ${profiles}:\n${summariseProfiles(profiles)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
