/** resets and changes: how often a series' value dropped or changed inside the window. */

import type { RangeWindow } from './range-window.js';

/** Number of times the value dropped (a counter reset); 0 for a single sample. */
export function resets(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let count = 0;
  for (let i = lo + 1; i < hi; i++) {
    if ((v[i] as number) < (v[i - 1] as number)) count++;
  }
  return count;
}

/** Number of times the value changed; NaN followed by NaN is no change. */
export function changes(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let count = 0;
  for (let i = lo + 1; i < hi; i++) {
    const current = v[i] as number;
    const previous = v[i - 1] as number;
    if (current !== previous && (!Number.isNaN(current) || !Number.isNaN(previous))) count++;
  }
  return count;
}
