/**
 * The counter-reset hints a histogram series reads back with, as Prometheus' TSDB reports them.
 * Its head appender starts a new chunk at every sample it cannot prove continues the previous
 * one (first sample, a reset, a schema or zero-threshold change, a gauge/counter switch, a float
 * or stale sample in between), and its iterator then reports "unknown" for a chunk's first sample
 * and "not_reset" for the rest; gauge histograms stay "gauge". PromQL results carry these hints
 * (`sum` of counters is "not_reset", a mix with a first sample "unknown"), so the hint written by
 * the sender is not what a query sees: it is derived here, on read, from each sample and the one
 * stored before it.
 *
 * Reads see the sample before their window only when it is at most `HINT_CONTEXT_MS` older than
 * the window (storage scans that much further back for histogram tables); an older one reads as
 * a chunk start, "unknown", as Prometheus reports the first sample after a chunk it cannot see.
 */

import { isStaleNaN } from '../types.js';
import type { CounterResetHint, FloatHistogram } from './float-histogram.js';
import { usesCustomBuckets } from './float-histogram.js';
import { isCounterReset } from './reset.js';

/** How far before a read's window storage looks for each series' previous sample. */
export const HINT_CONTEXT_MS = 5 * 60_000;

/**
 * The hint `current` reads with when `previous` is the histogram stored just before it
 * (undefined: none, or a float or stale sample).
 */
export function readHint(current: FloatHistogram, previous: FloatHistogram | undefined): CounterResetHint {
  if (current.hint === 'gauge') return 'gauge';
  // A stale marker (sum = the stale NaN) ends the chunk: what follows starts a new one.
  if (previous === undefined || isStaleNaN(previous.sum) || previous.hint === 'gauge' || current.hint === 'reset')
    return 'unknown';
  if (current.schema !== previous.schema || current.zeroThreshold !== previous.zeroThreshold) return 'unknown';
  if (usesCustomBuckets(current) && !sameBounds(current.customValues, previous.customValues)) return 'unknown';
  return isCounterReset({ ...current, hint: 'unknown' }, previous) ? 'unknown' : 'not_reset';
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k]);
}

/** `current` with the hint it reads with (the same object when that is already its hint). */
export function withReadHint(current: FloatHistogram, previous: FloatHistogram | undefined): FloatHistogram {
  const hint = readHint(current, previous);
  return hint === current.hint ? current : { ...current, hint };
}

/**
 * Read hints for samples `from..to` of a series (`h[k]` undefined: a float sample), each judged
 * against the sample before it; sample `from - 1` counts only when `withContext`.
 */
export function readHints(
  h: ReadonlyArray<FloatHistogram | undefined>,
  from: number,
  to: number,
  withContext: boolean,
): Array<FloatHistogram | undefined> {
  const out = new Array<FloatHistogram | undefined>(to - from);
  for (let k = from; k < to; k++) {
    const current = h[k];
    if (current === undefined) continue;
    const previous = k > from || (withContext && k > 0) ? h[k - 1] : undefined;
    out[k - from] = withReadHint(current, previous);
  }
  return out;
}
