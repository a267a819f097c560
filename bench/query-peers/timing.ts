/**
 * How a query is timed and how a section's figures are kept. Every system runs each query the
 * same way: warm-ups first, for WARMUPS runs and at least WARMUP_MS (caches, JIT, page cache are
 * then as warm as a dashboard's refresh finds them), then the timed runs, interleaved with the
 * other systems' (system.ts); median and minimum are kept.
 */

/** What a query answered, reduced to what must agree across systems (`key`) and what is shown. */
export interface Answer {
  key: string;
  detail: string;
}

export interface Timing {
  medianMs: number;
  minMs: number;
  answer: Answer;
}

export type Outcome = Timing | { error: string };

/**
 * An answer of `rows` rows (or series, or samples). With `values`, which must be loaded samples
 * or their max/min (whole hundredths), their sum too: such answers must agree to the last digit.
 */
export function countAnswer(rows: number, unit: string, values?: unknown[]): Answer {
  let key = `${rows} ${unit}`;
  let detail = `${rows.toLocaleString('en-US')} ${unit}`;
  if (values) {
    const sum = values.reduce<number>((n, v) => n + Math.round(Number(v) * 100), 0) / 100;
    key += `, sum ${sum}`;
    detail += `, sum ${sum}`;
  }
  return { key, detail };
}

/** One run: the client-side milliseconds until the answer's last byte, and the answer. */
export type RunOnce = () => Promise<{ ms: number; answer: Answer }>;

export const WARMUPS = 3;
/**
 * Warm-ups go on for at least this long (BENCH_QUERY_WARMUP_MS; 0 = WARMUPS runs only). Three
 * runs leave a JavaScript engine's per-query code still in its first tiers, and one second was
 * still too little: V8 kept compiling the one-series PromQL query's code for ~6 s of back-to-back
 * runs (`--trace-opt`; 17% of the server's CPU was TurboFan on its helper threads meanwhile), and
 * the query measured 1.75-2.0 ms after ~600 warm-ups against 1.05-1.1 ms after 5 s (bench/RESULTS.md).
 * A server that has run for a while, which is what a dashboard refreshing a panel finds, is warm:
 * every system gets the same warm-up, which does not change the compiled peers' figures.
 */
export const WARMUP_MS = Number(process.env.BENCH_QUERY_WARMUP_MS ?? 5000);
/** A bound on warm-up runs of a fast query (about 10 s of a 0.5 ms one). */
const WARMUPS_MAX = 20_000;

/** Warms `run` up (WARMUPS runs and at least WARMUP_MS); its answer, or the error that stopped it. */
export async function warmQuery(run: RunOnce): Promise<{ answer: Answer } | { error: string }> {
  try {
    let answer: Answer | undefined;
    const warmUntil = performance.now() + WARMUP_MS;
    for (let i = 0; i < WARMUPS_MAX && (i < WARMUPS || performance.now() < warmUntil); i++) {
      const r = await run();
      if (answer && r.answer.key !== answer.key) {
        return { error: `answer changed between runs: ${answer.key} then ${r.answer.key}` };
      }
      answer ??= r.answer;
    }
    return { answer: answer as Answer };
  } catch (err) {
    return { error: (err as Error).message.slice(0, 300) };
  }
}

/** One system's part of a section. */
export interface SystemFigures {
  name: string;
  /** What it stored, in the section's unit, and what was sent. */
  stored: number;
  expected: number;
  /** Peak RSS over the query phase in MiB (`VmHWM`, reset after loading when the kernel allows). */
  peakRssMiB: number;
  peakRssNote: string;
  loadSeconds: number;
  notes: string[];
  /** By query name. */
  outcomes: Map<string, Outcome>;
}

export interface Section {
  title: string;
  unit: string;
  queries: Array<{ name: string; text: Record<string, string> }>;
  systems: SystemFigures[];
  notes: string[];
}
