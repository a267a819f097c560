/**
 * Line-protocol bodies for the mixed bench: `mixp,core=C,host=host_N v=<float> <ns>`, 1,000 hosts
 * × 5 cores, so a body of 5,000 rows is one 10 s step of every series. The clock starts 30 days
 * ago and queries look at its first hour (full after 360 bodies): a fast server writes days of
 * steps in a run (VictoriaMetrics 4,600 s of steps a second), and VictoriaMetrics silently drops
 * samples more than 2 days in the future (its retention is set to a year).
 *
 * How many steps a run needs depends on the server's speed (VictoriaMetrics may take 10,000
 * bodies, 2 GB if all were built up front), so a few templates are built before the run and each
 * body is a copy of one with its step's time written into every line: a 200 KB copy and 5,000
 * 19-byte writes, small next to what the server does with the body.
 */

export const HOSTS = 1000;
const CORES = 5;
export const ROWS_PER_BODY = HOSTS * CORES;
const STEP_MS = 10_000;
const START_AGO_MS = 30 * 24 * 3600_000;
/** The time instant queries are evaluated at: the end of the first hour of steps. */
export const queryTimeOf = (firstMs: number): number => firstMs + 3600_000;
const TEMPLATES = 16;
/** Nanosecond times of this era have 19 digits, so every step fits the template's slots. */
const TIME_DIGITS = 19;

interface Template {
  bytes: Buffer;
  /** Offset of each line's time. */
  timeAt: Int32Array;
}

function template(t: number): Template {
  const lines: string[] = [];
  const timeAt = new Int32Array(ROWS_PER_BODY);
  let offset = 0;
  const placeholder = '0'.repeat(TIME_DIGITS);
  for (let i = 0; i < ROWS_PER_BODY; i++) {
    const n = t * ROWS_PER_BODY + i;
    const value = ((n * 2654435761) % 100_000) / 1000;
    const head = `mixp,core=${i % CORES},host=host_${Math.floor(i / CORES)} v=${value} `;
    timeAt[i] = offset + head.length;
    const line = `${head}${placeholder}\n`;
    lines.push(line);
    offset += line.length;
  }
  return { bytes: Buffer.from(lines.join(''), 'latin1'), timeAt };
}

export class BodySource {
  readonly firstMs: number;
  private readonly templates = Array.from({ length: TEMPLATES }, (_, t) => template(t));
  private steps = 0;

  /**
   * `stepMs` and `startAgoMs` let a long run (the soak: hours at a steady rate) keep its steps
   * inside the past few days instead of running weeks into the future.
   */
  constructor(
    now = Date.now(),
    private readonly stepMs = STEP_MS,
    startAgoMs = START_AGO_MS,
  ) {
    this.firstMs = Math.floor((now - startAgoMs) / stepMs) * stepMs;
  }

  /** The next step's body and its time (ms). Writers share one source, so steps never repeat. */
  take(): { body: Buffer; ms: number } {
    return this.takeAt(this.firstMs + this.steps * this.stepMs);
  }

  /**
   * The next body with every line at `ms` instead of the next step's time (the soak with a ttl
   * follows the wall clock); the caller keeps the times distinct, or rows overwrite each other.
   */
  takeAt(ms: number): { body: Buffer; ms: number } {
    const step = this.steps++;
    const { bytes, timeAt } = this.templates[step % TEMPLATES] as Template;
    const body = Buffer.from(bytes);
    const time = Buffer.from(`${ms}000000`, 'latin1');
    if (time.length !== TIME_DIGITS) throw new Error(`time ${ms} ms does not have ${TIME_DIGITS} digits in ns`);
    for (let i = 0; i < timeAt.length; i++) body.set(time, timeAt[i]);
    return { body, ms };
  }
}
