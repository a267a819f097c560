/**
 * Pipeline versions (reference ingest §8): a version is the pipeline's creation time in
 * nanoseconds, shown in UTC as `YYYY-MM-DD HH:MM:SS` with the fraction cut to 3, 6 or 9 digits
 * (none when it is zero), as chrono prints a timestamp; `?version=` takes the same text back.
 */

const NANOS_PER_SECOND = 1_000_000_000n;

export function formatVersion(nanos: bigint): string {
  const seconds = nanos / NANOS_PER_SECOND;
  const fraction = Number(nanos % NANOS_PER_SECOND);
  const iso = new Date(Number(seconds) * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const base = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  if (fraction === 0) return base;
  const digits = String(fraction).padStart(9, '0');
  if (fraction % 1_000_000 === 0) return `${base}.${digits.slice(0, 3)}`;
  if (fraction % 1_000 === 0) return `${base}.${digits.slice(0, 6)}`;
  return `${base}.${digits}`;
}

const VERSION_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|\+00:?00)?$/;

/** The nanoseconds a version text names, or null when it is not one. */
export function parseVersion(text: string): bigint | null {
  const m = VERSION_PATTERN.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return null;
  const check = new Date(ms);
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return null;
  const fraction = BigInt((frac ?? '').padEnd(9, '0') || '0');
  return (BigInt(ms) / 1000n) * NANOS_PER_SECOND + fraction;
}

let lastNanos = 0n;

/** A version for a pipeline created now: microseconds of the wall clock, never repeated. */
export function newVersion(): bigint {
  const micros = BigInt(Date.now()) * 1000n + BigInt(Math.floor((performance.now() * 1000) % 1000));
  let nanos = micros * 1000n;
  if (nanos <= lastNanos) nanos = lastNanos + 1000n;
  lastNanos = nanos;
  return nanos;
}
