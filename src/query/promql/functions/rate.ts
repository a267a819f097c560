/**
 * rate, increase, delta, irate and idelta over one range window.
 *
 * rate/increase/delta follow Prometheus' extrapolation: the change between the first and last
 * sample is stretched towards the window's edges, by the full gap when the gap is short (under
 * 1.1× the average sample interval) and by half an interval otherwise, because a long gap means
 * the series probably started or ended inside the window. Counters are never extrapolated to
 * below zero on the left, and a drop in a counter is read as a reset to zero.
 */

import type { RangeWindow } from './range-window.js';

/** How far past the average interval a gap to the window edge may be and still extrapolate. */
const EXTRAPOLATION_THRESHOLD_FACTOR = 1.1;

function extrapolatedChange(w: RangeWindow, isCounter: boolean, isRate: boolean): number | undefined {
  const { t, v, lo, hi } = w;
  // A rate needs two samples; Prometheus reports nothing rather than guessing from one.
  if (hi - lo < 2) return undefined;
  const last = hi - 1;
  const firstMs = t[lo] as number;
  const lastMs = t[last] as number;
  const firstValue = v[lo] as number;
  let result = (v[last] as number) - firstValue;
  if (isCounter) {
    // After a reset the counter restarted from zero, so everything counted before it is lost
    // from the difference and has to be added back.
    for (let i = lo + 1; i < hi; i++) {
      const previous = v[i - 1] as number;
      if ((v[i] as number) < previous) result += previous;
    }
  }

  let durationToStartSeconds = (firstMs - w.rangeStartMs) / 1000;
  let durationToEndSeconds = (w.rangeEndMs - lastMs) / 1000;
  const sampledIntervalSeconds = (lastMs - firstMs) / 1000;
  const averageIntervalSeconds = sampledIntervalSeconds / (hi - lo - 1);
  const thresholdSeconds = averageIntervalSeconds * EXTRAPOLATION_THRESHOLD_FACTOR;

  if (durationToStartSeconds >= thresholdSeconds) durationToStartSeconds = averageIntervalSeconds / 2;
  if (isCounter && result > 0 && firstValue >= 0) {
    // Extrapolating left past the point where the counter would have been zero would invent
    // increase that cannot have happened.
    const durationToZeroSeconds = sampledIntervalSeconds * (firstValue / result);
    if (durationToZeroSeconds < durationToStartSeconds) durationToStartSeconds = durationToZeroSeconds;
  }
  if (durationToEndSeconds >= thresholdSeconds) durationToEndSeconds = averageIntervalSeconds / 2;

  let factor = 1;
  if (sampledIntervalSeconds !== 0) {
    factor = (sampledIntervalSeconds + durationToStartSeconds + durationToEndSeconds) / sampledIntervalSeconds;
  }
  if (isRate) factor /= (w.rangeEndMs - w.rangeStartMs) / 1000;
  return result * factor;
}

/** Per-second increase of a counter over the window, extrapolated to its edges. */
export function rate(w: RangeWindow): number | undefined {
  return extrapolatedChange(w, true, true);
}

/** Increase of a counter over the window, extrapolated to its edges. */
export function increase(w: RangeWindow): number | undefined {
  return extrapolatedChange(w, true, false);
}

/** Change of a gauge over the window, extrapolated to its edges; drops are not resets. */
export function delta(w: RangeWindow): number | undefined {
  return extrapolatedChange(w, false, false);
}

/** Per-second rate between the last two samples; after a reset, the last value over the interval. */
export function irate(w: RangeWindow): number | undefined {
  if (w.hi - w.lo < 2) return undefined;
  const last = w.hi - 1;
  const intervalMs = (w.t[last] as number) - (w.t[last - 1] as number);
  if (intervalMs === 0) return undefined;
  const lastValue = w.v[last] as number;
  const previousValue = w.v[last - 1] as number;
  const change = lastValue < previousValue ? lastValue : lastValue - previousValue;
  return change / (intervalMs / 1000);
}

/** Difference between the last two samples. */
export function idelta(w: RangeWindow): number | undefined {
  if (w.hi - w.lo < 2) return undefined;
  const last = w.hi - 1;
  if ((w.t[last] as number) === (w.t[last - 1] as number)) return undefined;
  return (w.v[last] as number) - (w.v[last - 1] as number);
}
