/**
 * Step series in and out of the packed form a shard replies with: one Float64Array of values and
 * one Uint8Array of presence for all series (row `i` = series `i`, `steps` slots), so a reply of
 * 10,000 series crosses the thread boundary as a few transferred buffers.
 */
import { hasHistograms, type StepSeries } from '../eval/values.js';
import { PromqlError } from '../types.js';
import type { PackedSeries } from './eval-plan.js';

/**
 * Packs a shard's step series. Native histograms have no packed form yet (only the in-memory
 * source holds them, and it is never behind the shards): one reaching this point fails the query
 * rather than being dropped or turned into a float.
 */
export function packSeries(series: readonly StepSeries[], steps: number): PackedSeries {
  if (series.some(hasHistograms)) {
    throw new PromqlError('execution', 'native histograms cannot be passed between shards and the router yet');
  }
  const values = new Float64Array(series.length * steps);
  const present = new Uint8Array(series.length * steps);
  const dropName = new Uint8Array(series.length);
  series.forEach((s, i) => {
    values.set(s.values.subarray(0, steps), i * steps);
    present.set(s.present.subarray(0, steps), i * steps);
    dropName[i] = s.dropName ? 1 : 0;
  });
  return { labels: series.map((s) => s.labels), dropName, values, present };
}

/** The series of a packed reply; their arrays are views into the reply's buffers. */
export function unpackSeries(packed: PackedSeries, steps: number): StepSeries[] {
  return packed.labels.map((labels, i) => ({
    labels,
    dropName: packed.dropName[i] === 1,
    values: packed.values.subarray(i * steps, (i + 1) * steps),
    present: packed.present.subarray(i * steps, (i + 1) * steps),
  }));
}

/** Present values in a packed reply (the traffic counters' "samples"). */
export function presentCount(packed: PackedSeries): number {
  let n = 0;
  for (let i = 0; i < packed.present.length; i++) n += packed.present[i] as number;
  return n;
}
