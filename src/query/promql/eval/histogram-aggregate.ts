/**
 * Native histograms in sum and avg (Prometheus' `aggregation`): a group's histograms are added
 * next to its floats; a group that has both at one step yields nothing and a warning, and one
 * whose histograms cannot be added (exponential with custom buckets) yields nothing either.
 */

import type { PositionRange } from '../ast.js';
import { addHistograms, HistogramSchemaMixError } from '../histogram/arithmetic.js';
import { compactHistogram, divHistogram, type FloatHistogram } from '../histogram/float-histogram.js';
import type { Annotations } from './annotations.js';

export class HistogramGroups {
  private readonly sum: (FloatHistogram | undefined)[];
  private readonly count: Float64Array;
  private readonly state: Uint8Array;

  constructor(
    groups: number,
    private readonly annotations: Annotations,
    private readonly pos: PositionRange,
  ) {
    this.sum = new Array(groups);
    this.count = new Float64Array(groups);
    this.state = new Uint8Array(groups);
  }

  /** Forgets the previous step. */
  reset(): void {
    this.sum.fill(undefined);
    this.count.fill(0);
    this.state.fill(0);
  }

  add(g: number, h: FloatHistogram, metricName: string): void {
    const state = this.state[g] as number;
    if (state & INCOMPATIBLE) return;
    if (h.hint === 'reset') this.state[g] = (this.state[g] as number) | RESET;
    else if (h.hint === 'not_reset') this.state[g] = (this.state[g] as number) | NOT_RESET;
    this.count[g] = (this.count[g] as number) + 1;
    const current = this.sum[g];
    if (current === undefined) {
      this.sum[g] = h;
      return;
    }
    try {
      const r = addHistograms(current, h);
      this.sum[g] = r.histogram;
      if (r.customBoundsReconciled) this.annotations.customBucketsReconciled('aggregation', this.pos);
    } catch (e) {
      if (!(e instanceof HistogramSchemaMixError)) throw e;
      this.annotations.mixedExponentialCustomHistograms(metricName, this.pos);
      this.state[g] = (this.state[g] as number) | INCOMPATIBLE;
    }
  }

  has(g: number): boolean {
    return this.sum[g] !== undefined;
  }

  /**
   * The group's sum or mean; undefined when its histograms were incompatible, or when it also
   * had floats (`hasFloats`), which Prometheus refuses to mix.
   */
  result(g: number, op: 'sum' | 'avg', hasFloats: boolean): FloatHistogram | undefined {
    const sum = this.sum[g];
    if (sum === undefined) return undefined;
    if (hasFloats) {
      this.annotations.mixedFloatsHistogramsInAggregation(this.pos);
      return undefined;
    }
    const state = this.state[g] as number;
    if (state & INCOMPATIBLE) return undefined;
    if (state & RESET && state & NOT_RESET) this.annotations.counterResetCollision('aggregation', this.pos);
    return compactHistogram(op === 'sum' ? sum : divHistogram(sum, this.count[g] as number));
  }
}

const RESET = 1;
const NOT_RESET = 2;
const INCOMPATIBLE = 4;
