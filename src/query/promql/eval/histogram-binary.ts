/**
 * One binary operation where at least one operand is a native histogram (Prometheus'
 * `vectorElemBinop`): histogram ± histogram, histogram × scalar, scalar × histogram,
 * histogram / scalar, histogram `</` / `>/` scalar (trims), and `==`/`!=` between histograms. Every other pairing has no result; the
 * caller reports why (an info for incompatible types, a warning for conflicting counter resets or
 * bucket layouts that cannot be added) and drops the sample, as Prometheus does.
 */

import type { BinaryOp } from '../ast.js';
import { addHistograms, HistogramSchemaMixError, subHistograms } from '../histogram/arithmetic.js';
import {
  compactHistogram,
  divHistogram,
  type FloatHistogram,
  histogramsEqual,
  mulHistogram,
} from '../histogram/float-histogram.js';
import { trimHistogram } from '../histogram/trim.js';

export type HistogramOpResult =
  | { ok: true; h: FloatHistogram | undefined; keep: boolean; reconciled?: 'addition' | 'subtraction' }
  | { ok: false; problem: HistogramOpProblem };

export type HistogramOpProblem =
  | { kind: 'incompatible-types'; lhsType: 'float' | 'histogram'; rhsType: 'float' | 'histogram' }
  | { kind: 'counter-reset-collision'; operation: 'addition' | 'subtraction' }
  | { kind: 'incompatible-layout' };

function incompatible(lhs: FloatHistogram | undefined, rhs: FloatHistogram | undefined): HistogramOpResult {
  return {
    ok: false,
    problem: {
      kind: 'incompatible-types',
      lhsType: lhs === undefined ? 'float' : 'histogram',
      rhsType: rhs === undefined ? 'float' : 'histogram',
    },
  };
}

/** `lhs op rhs` with at least one histogram operand; floats are `lf`/`rf` where no histogram is given. */
export function histogramElemOp(
  op: BinaryOp,
  lf: number,
  rf: number,
  lh: FloatHistogram | undefined,
  rh: FloatHistogram | undefined,
): HistogramOpResult {
  if (lh === undefined && rh !== undefined) {
    return op === '*' ? { ok: true, h: compactHistogram(mulHistogram(rh, lf)), keep: true } : incompatible(lh, rh);
  }
  if (lh !== undefined && rh === undefined) {
    if (op === '*') return { ok: true, h: compactHistogram(mulHistogram(lh, rf)), keep: true };
    if (op === '/') return { ok: true, h: compactHistogram(divHistogram(lh, rf)), keep: true };
    if (op === '</' || op === '>/') return { ok: true, h: trimHistogram(lh, rf, op === '</'), keep: true };
    return incompatible(lh, rh);
  }
  if (lh === undefined || rh === undefined) throw new Error('histogramElemOp needs a histogram operand');
  switch (op) {
    case '+':
    case '-': {
      const operation = op === '+' ? 'addition' : 'subtraction';
      let r: ReturnType<typeof addHistograms>;
      try {
        r = op === '+' ? addHistograms(lh, rh) : subHistograms(lh, rh);
      } catch (e) {
        if (e instanceof HistogramSchemaMixError) return { ok: false, problem: { kind: 'incompatible-layout' } };
        throw e;
      }
      if (r.counterResetCollision) return { ok: false, problem: { kind: 'counter-reset-collision', operation } };
      const h = op === '-' ? { ...r.histogram, hint: 'gauge' as const } : r.histogram;
      return {
        ok: true,
        h: compactHistogram(h),
        keep: true,
        ...(r.customBoundsReconciled ? { reconciled: operation } : {}),
      };
    }
    case '==':
      return { ok: true, h: lh, keep: histogramsEqual(lh, rh) };
    case '!=':
      return { ok: true, h: lh, keep: !histogramsEqual(lh, rh) };
    default:
      return incompatible(lh, rh);
  }
}
