/**
 * Native histograms in sum and avg (Prometheus' `aggregation`): a group's histograms are summed
 * next to its floats; a group that has both at one step yields nothing and a warning, and one
 * whose histograms cannot be added (exponential with custom buckets) yields nothing either.
 */

import type { PositionRange } from '../ast.js';
import { HistogramSchemaMixError } from '../histogram/arithmetic.js';
import { compactHistogram, type FloatHistogram } from '../histogram/float-histogram.js';
import { meanOfHistograms, sumHistograms } from '../histogram/sum.js';
import type { Annotations } from './annotations.js';

export class HistogramGroups {
  private readonly members: FloatHistogram[][];
  private readonly names: string[];

  constructor(
    groups: number,
    private readonly annotations: Annotations,
    private readonly pos: PositionRange,
  ) {
    this.members = Array.from({ length: groups }, () => []);
    this.names = new Array(groups).fill('');
  }

  /** Forgets the previous step. */
  reset(): void {
    for (const m of this.members) m.length = 0;
  }

  add(g: number, h: FloatHistogram, metricName: string): void {
    const members = this.members[g] as FloatHistogram[];
    if (members.length === 0) this.names[g] = metricName;
    members.push(h);
  }

  has(g: number): boolean {
    return (this.members[g] as FloatHistogram[]).length > 0;
  }

  /**
   * The group's sum or mean; undefined when its histograms were incompatible, or when it also
   * had floats (`hasFloats`), which Prometheus refuses to mix.
   */
  result(g: number, op: 'sum' | 'avg', hasFloats: boolean): FloatHistogram | undefined {
    const members = this.members[g] as FloatHistogram[];
    if (members.length === 0) return undefined;
    if (hasFloats) {
      this.annotations.mixedFloatsHistogramsInAggregation(this.pos);
      return undefined;
    }
    try {
      const r = op === 'sum' ? sumHistograms(members) : meanOfHistograms(members);
      if (r.customBoundsReconciled) this.annotations.customBucketsReconciled('aggregation', this.pos);
      if (members.some((h) => h.hint === 'reset') && members.some((h) => h.hint === 'not_reset'))
        this.annotations.counterResetCollision('aggregation', this.pos);
      return compactHistogram(r.histogram);
    } catch (e) {
      if (!(e instanceof HistogramSchemaMixError)) throw e;
      this.annotations.mixedExponentialCustomHistograms(this.names[g] as string, this.pos);
      return undefined;
    }
  }
}
