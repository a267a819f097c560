/**
 * `load_with_nhcb`: promqltest also stores every classic histogram of the load (`x_bucket{le}`,
 * `x_count`, `x_sum`) as one native histogram with custom buckets, `x`, per timestamp: the `le`
 * bounds become the custom values (+Inf implied), cumulative counts become per-bucket counts,
 * the count is `x_count` or else the +Inf bucket's, the sum `x_sum` or else 0.
 */

import {
  CUSTOM_BUCKETS_SCHEMA,
  type FloatHistogram,
  makeHistogram,
} from '../../../src/query/promql/histogram/float-histogram.js';
import { BUCKET_LABEL, labelsKey, METRIC_NAME } from '../../../src/query/promql/labels.js';
import type { Labels } from '../../../src/query/promql/types.js';
import type { SeriesDescription } from './series.js';

interface Partial {
  buckets: Map<number, number>;
  count?: number;
  sum?: number;
}

export interface NhcbSeries {
  labels: Labels;
  samples: { index: number; histogram: FloatHistogram }[];
}

export function classicToNhcb(series: SeriesDescription[]): NhcbSeries[] {
  const byBase = new Map<string, { labels: Labels; byIndex: Map<number, Partial> }>();
  for (const s of series) {
    const name = s.labels.find((l) => l.name === METRIC_NAME)?.value ?? '';
    const suffix = /_(bucket|count|sum)$/.exec(name);
    if (!suffix) continue;
    let le = Number.NaN;
    if (suffix[1] === 'bucket') {
      const text = s.labels.find((l) => l.name === BUCKET_LABEL)?.value;
      if (text === undefined) throw new Error(`expected bucket label in ${name}`);
      le = text === '+Inf' ? Number.POSITIVE_INFINITY : Number(text);
      if (Number.isNaN(le)) continue;
    }
    const base = name.slice(0, -suffix[0].length);
    const labels = s.labels
      .filter((l) => l.name !== BUCKET_LABEL)
      .map((l) => (l.name === METRIC_NAME ? { name: l.name, value: base } : l));
    const key = labelsKey(labels);
    let entry = byBase.get(key);
    if (!entry) {
      entry = { labels, byIndex: new Map() };
      byBase.set(key, entry);
    }
    s.items.forEach((item, index) => {
      if (item.kind !== 'value') return;
      const byIndex = (entry as NonNullable<typeof entry>).byIndex;
      let partial = byIndex.get(index);
      if (!partial) {
        partial = { buckets: new Map() };
        byIndex.set(index, partial);
      }
      if (suffix[1] === 'bucket') partial.buckets.set(le, item.value);
      else if (suffix[1] === 'count') partial.count = item.value;
      else partial.sum = item.value;
    });
  }
  const out: NhcbSeries[] = [];
  for (const { labels, byIndex } of byBase.values()) {
    const samples = [...byIndex.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, partial]) => ({ index, histogram: convert(partial) }));
    out.push({ labels, samples });
  }
  return out;
}

function convert(partial: Partial): FloatHistogram {
  const bounds = [...partial.buckets.keys()].sort((a, b) => a - b);
  const cumulative = bounds.map((b) => partial.buckets.get(b) as number);
  const count = partial.count ?? cumulative[cumulative.length - 1] ?? 0;
  if (bounds[bounds.length - 1] !== Number.POSITIVE_INFINITY) {
    bounds.push(Number.POSITIVE_INFINITY);
    cumulative.push(count);
  }
  const counts = cumulative.map((c, k) => c - (k === 0 ? 0 : (cumulative[k - 1] as number)));
  return makeHistogram({
    schema: CUSTOM_BUCKETS_SCHEMA,
    count,
    sum: partial.sum ?? 0,
    customValues: bounds.slice(0, -1),
    positive: { index: counts.map((_, k) => k), count: counts },
  });
}
