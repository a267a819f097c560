/**
 * The native-histogram half of the partial sum and avg (partial-fold.ts holds the float half).
 * Prometheus sums a group's histograms beside its floats (`eval/histogram-aggregate.ts`): bucket
 * by bucket on the coarsest schema and the widest zero bucket, custom bounds intersected. That
 * addition is associative up to float rounding, so each shard sums its own members of a
 * (group, step) and the router sums the shards' sums:
 *
 *   shard   Σ its histograms (not compacted), how many, which counter-reset hints they carried,
 *           whether custom bounds were reconciled
 *   router  Σ the shards' sums → compacted; avg divides by the total count. A group that also
 *           had floats at the step yields nothing and the mixed-types warning; reset and
 *           not-reset hints among the members give the collision warning; reconciled bounds the
 *           custom-buckets info — the annotations the unpushed evaluation gives.
 *
 * Where the partial form could not give the unpushed answer exactly, it gives up instead and the
 * router evaluates the aggregation from raw samples: exponential and custom buckets in one group
 * (the unpushed warning names the group's first histogram series, which the router no longer
 * sees), and an avg whose plain sum overflows (Prometheus then sums each histogram divided by the
 * group's count, which a shard does not know).
 */
import type { AggregateExpr } from '../ast.js';
import type { EvalHost } from '../eval/eval-host.js';
import { HistogramSchemaMixError } from '../histogram/arithmetic.js';
import { compactHistogram, divHistogram, type FloatHistogram } from '../histogram/float-histogram.js';
import { sumHistograms } from '../histogram/sum.js';
import type { FoldState, HistogramFoldState } from './eval-plan.js';
import { HistogramPacker, unpackHistogram } from './histogram-pack.js';

/** Flag bits of `HistogramFoldState.flags`. */
const HINT_RESET = 1;
const HINT_NOT_RESET = 2;
const BOUNDS_RECONCILED = 4;

/** The partial form cannot give the unpushed answer: the router evaluates the node itself. */
export class HistogramFoldUnmergeable extends Error {}

/** Shard side: collects the histograms of each (group, step) slot, then sums them. */
export class HistogramFolder {
  private readonly members = new Map<number, FloatHistogram[]>();
  private readonly dropName: Uint8Array;

  constructor(
    private readonly op: 'sum' | 'avg',
    private readonly size: number,
  ) {
    this.dropName = new Uint8Array(size);
  }

  add(slot: number, h: FloatHistogram, dropName: boolean): void {
    let list = this.members.get(slot);
    if (list === undefined) {
      list = [];
      this.members.set(slot, list);
    }
    list.push(h);
    if (dropName) this.dropName[slot] = 1;
  }

  /** The slots' sums; throws HistogramFoldUnmergeable (see the module comment). */
  finish(): HistogramFoldState {
    const count = new Float64Array(this.size);
    const sum = new Float64Array(this.size);
    const flags = new Uint8Array(this.size);
    const packer = new HistogramPacker();
    for (const [slot, members] of [...this.members].sort((a, b) => a[0] - b[0])) {
      const r = sumOrGiveUp(members);
      if (this.op === 'avg' && overflows(r.histogram)) throw new HistogramFoldUnmergeable();
      count[slot] = members.length;
      sum[slot] = packer.add(r.histogram);
      flags[slot] = hintFlags(members) | (r.customBoundsReconciled ? BOUNDS_RECONCILED : 0);
    }
    return { count, sum, flags, dropName: this.dropName, data: packer.finish() };
  }
}

function sumOrGiveUp(hs: readonly FloatHistogram[]): ReturnType<typeof sumHistograms> {
  try {
    return sumHistograms(hs);
  } catch (e) {
    if (e instanceof HistogramSchemaMixError) throw new HistogramFoldUnmergeable();
    throw e;
  }
}

function hintFlags(hs: readonly FloatHistogram[]): number {
  let flags = 0;
  for (const h of hs) {
    if (h.hint === 'reset') flags |= HINT_RESET;
    else if (h.hint === 'not_reset') flags |= HINT_NOT_RESET;
  }
  return flags;
}

function overflows(h: FloatHistogram): boolean {
  const inf = (x: number): boolean => x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY;
  return inf(h.count) || inf(h.sum) || inf(h.zeroCount) || h.positive.count.some(inf) || h.negative.count.some(inf);
}

/** One group's histograms at one step, merged over the shards. */
export interface MergedHistogram {
  /** The sum or mean; undefined when the group yields nothing at this step. */
  histogram: FloatHistogram | undefined;
  /** Some histogram member had its name marked for removal. */
  dropName: boolean;
}

/**
 * Router side: the group's sum or mean at `step` from its members' states, or null when the group
 * had no histogram there. `floats` is the group's float count at the step (Prometheus drops a
 * group mixing both, with a warning). Throws HistogramFoldUnmergeable (see the module comment).
 */
export function mergeHistogramSlot(
  ev: EvalHost,
  node: AggregateExpr,
  states: readonly FoldState[],
  members: ReadonlyArray<[number, number]>,
  step: number,
  steps: number,
  floats: number,
): MergedHistogram | null {
  const sums: FloatHistogram[] = [];
  let n = 0;
  let flags = 0;
  let dropName = false;
  for (const [shard, g] of members) {
    const h = (states[shard] as FoldState).histogram;
    if (h === undefined) continue;
    const slot = g * steps + step;
    const count = h.count[slot] as number;
    if (count === 0) continue;
    n += count;
    flags |= h.flags[slot] as number;
    if (h.dropName[slot] === 1) dropName = true;
    sums.push(unpackHistogram(h.data, h.sum[slot] as number));
  }
  if (n === 0) return null;
  const annotations = ev.ctx.annotations;
  const pos = node.expr.pos;
  if (floats > 0) {
    annotations.mixedFloatsHistogramsInAggregation(pos);
    return { histogram: undefined, dropName };
  }
  const r = sumOrGiveUp(sums);
  if (node.op === 'avg' && overflows(r.histogram)) throw new HistogramFoldUnmergeable();
  if (r.customBoundsReconciled || (flags & BOUNDS_RECONCILED) !== 0)
    annotations.customBucketsReconciled('aggregation', pos);
  if ((flags & HINT_RESET) !== 0 && (flags & HINT_NOT_RESET) !== 0)
    annotations.counterResetCollision('aggregation', pos);
  const total = node.op === 'avg' ? divHistogram(r.histogram, n) : r.histogram;
  return { histogram: compactHistogram(total), dropName };
}
