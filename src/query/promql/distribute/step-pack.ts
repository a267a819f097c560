/**
 * Step series in and out of the packed form a shard replies with: one Float64Array of values and
 * one Uint8Array of presence for all series (row `i` = series `i`, `steps` slots), so a reply of
 * 10,000 series crosses the thread boundary as a few transferred buffers.
 *
 * A step holding a native histogram has presence HISTOGRAM (2); its histogram is the next record
 * of `histograms` (histogram-pack.ts), records following the slots' row-major order. Float-only
 * replies carry no histogram buffer at all. Values are packed as they are, histogram steps too,
 * so a series comes back exactly as the shard evaluated it.
 */
import { HISTOGRAM, hasHistograms, histogramAt, type StepSeries } from '../eval/values.js';
import type { FloatHistogram } from '../histogram/float-histogram.js';
import type { PackedSeries } from './eval-plan.js';
import { HistogramPacker, recordEnd, unpackHistogram } from './histogram-pack.js';

/** Packs a shard's step series, histograms included. */
export function packSeries(series: readonly StepSeries[], steps: number): PackedSeries {
  const values = new Float64Array(series.length * steps);
  const present = new Uint8Array(series.length * steps);
  const dropName = new Uint8Array(series.length);
  const packer = series.some(hasHistograms) ? new HistogramPacker() : undefined;
  series.forEach((s, i) => {
    values.set(s.values.subarray(0, steps), i * steps);
    present.set(s.present.subarray(0, steps), i * steps);
    dropName[i] = s.dropName ? 1 : 0;
    if (packer === undefined || s.histograms === undefined) return;
    for (let k = 0; k < steps; k++) {
      const h = histogramAt(s, k);
      if (h !== undefined) packer.add(h);
    }
  });
  const packed: PackedSeries = { labels: series.map((s) => s.labels), dropName, values, present };
  if (packer !== undefined) packed.histograms = packer.finish();
  return packed;
}

/** The series of a packed reply; their float arrays are views into the reply's buffers. */
export function unpackSeries(packed: PackedSeries, steps: number): StepSeries[] {
  let offset = 0;
  return packed.labels.map((labels, i) => {
    const series: StepSeries = {
      labels,
      dropName: packed.dropName[i] === 1,
      values: packed.values.subarray(i * steps, (i + 1) * steps),
      present: packed.present.subarray(i * steps, (i + 1) * steps),
    };
    const data = packed.histograms;
    if (data === undefined) return series;
    for (let k = 0; k < steps; k++) {
      if (series.present[k] !== HISTOGRAM) continue;
      const h: FloatHistogram = unpackHistogram(data, offset);
      offset = recordEnd(data, offset);
      // Presence already says HISTOGRAM; only the value array is added beside it.
      series.histograms ??= new Array(steps);
      series.histograms[k] = h;
    }
    return series;
  });
}

/** Present values (floats and histograms) in a packed reply (the traffic counters' "samples"). */
export function presentCount(packed: PackedSeries): number {
  let n = 0;
  for (let i = 0; i < packed.present.length; i++) if (packed.present[i] !== 0) n++;
  return n;
}
