/**
 * Range-vector windows: a call's range argument evaluated for the grid, and the walk of every
 * series' window `(ref - range, ref]` over the steps with two cursors. Shared by the registry's
 * range functions (calls.ts) and the engine's own (special-functions.ts).
 */
import { type Expr, unwrapParens } from '../ast.js';
import type { RangeWindow } from '../functions/registry.js';
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

/**
 * Applies `visit(series index, step, window)` to every non-empty window of every series:
 * window i of a series covers `(ref_i - range, ref_i]` with `ref_i = (@ or t_i) - offset`.
 */
export async function forEachWindow(
  ev: EvalHost,
  input: RangeInput,
  visit: (seriesIndex: number, step: number, window: RangeWindow) => void,
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
    for (let i = 0; i < ev.steps; i++) {
      const end = ev.referenceTime(modifiers, i);
      const start = end - rangeMs;
      while (lo < n && (s.t[lo] as number) <= start) lo++;
      if (hi < lo) hi = lo;
      while (hi < n && (s.t[hi] as number) <= end) hi++;
      if (hi <= lo) continue;
      window.lo = lo;
      window.hi = hi;
      window.rangeStartMs = start;
      window.rangeEndMs = end;
      window.evalTimeMs = ev.times[i] as number;
      visit(si, i, window);
    }
  }
}
