/**
 * Range-vector windows: a call's range argument evaluated for the grid, and the walk of every
 * series' window `(ref - range, ref]` over the steps with two cursors. Shared by the registry's
 * range functions (calls.ts) and the engine's own (special-functions.ts).
 */
import { type Expr, unwrapParens } from '../ast.js';
import type { RangeWindow } from '../functions/registry.js';
import type { FloatHistogram } from '../histogram/float-histogram.js';
import { getLabel, METRIC_NAME } from '../labels.js';
import { PromqlError } from '../types.js';
import type { EvalHost, RangeInput } from './eval-host.js';

const COUNTER_SUFFIXES = ['_total', '_sum', '_count', '_bucket'];

/** Whether a metric name reads as a counter's (Prometheus' annotation rule for rate and increase). */
export function looksLikeCounter(name: string): boolean {
  return COUNTER_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/** The call's range-vector argument, evaluated for every window of this grid. */
export async function rangeArgument(ev: EvalHost, arg: Expr): Promise<RangeInput> {
  const inner = unwrapParens(arg);
  if (inner.type === 'MatrixSelector') return ev.selectRange(inner);
  if (inner.type === 'SubqueryExpr') return ev.evalSubquery(inner);
  throw new PromqlError('internal', `expected a range vector argument, got ${inner.type}`);
}

/** The native histogram samples `[lo, hi)` of one series in one step's window. */
export interface HistogramWindow {
  t: Float64Array;
  h: FloatHistogram[];
  lo: number;
  hi: number;
}

/**
 * Applies `visit(series index, step, window, histograms)` to every non-empty window of every
 * series: window i of a series covers `(ref_i - range, ref_i]` with `ref_i = (@ or t_i) - offset`.
 * `histograms` is given only for series that have histogram samples; then the float window may
 * be empty (lo === hi) while the histogram window is not.
 */
export async function forEachWindow(
  ev: EvalHost,
  input: RangeInput,
  visit: (seriesIndex: number, step: number, window: RangeWindow, histograms: HistogramWindow | undefined) => void,
): Promise<void> {
  const { rangeMs, modifiers } = input;
  for (let si = 0; si < input.series.length; si++) {
    await ev.checkpoint();
    const s = input.series[si] as RangeInput['series'][number];
    const window: RangeWindow = {
      t: s.t,
      v: s.v,
      lo: 0,
      hi: 0,
      rangeStartMs: 0,
      rangeEndMs: 0,
      isCounter: looksLikeCounter(getLabel(s.labels, METRIC_NAME)),
      evalTimeMs: 0,
    };
    const n = s.t.length;
    let lo = 0;
    let hi = 0;
    const hw: HistogramWindow | undefined =
      s.ht && s.hv && s.hv.length > 0 ? { t: s.ht, h: s.hv, lo: 0, hi: 0 } : undefined;
    for (let i = 0; i < ev.steps; i++) {
      const end = ev.referenceTime(modifiers, i);
      const start = end - rangeMs;
      while (lo < n && (s.t[lo] as number) <= start) lo++;
      if (hi < lo) hi = lo;
      while (hi < n && (s.t[hi] as number) <= end) hi++;
      if (hw) {
        const hn = hw.t.length;
        while (hw.lo < hn && (hw.t[hw.lo] as number) <= start) hw.lo++;
        if (hw.hi < hw.lo) hw.hi = hw.lo;
        while (hw.hi < hn && (hw.t[hw.hi] as number) <= end) hw.hi++;
        if (hi <= lo && hw.hi <= hw.lo) continue;
      } else if (hi <= lo) continue;
      window.lo = lo;
      window.hi = hi;
      window.rangeStartMs = start;
      window.rangeEndMs = end;
      window.evalTimeMs = ev.times[i] as number;
      visit(si, i, window, hw);
    }
  }
}
