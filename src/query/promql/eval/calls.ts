/**
 * Function calls. Range-vector functions (`rate`, `*_over_time`, ...) slide each series' window
 * over the steps with two cursors and call the registry's `range` per window; element-wise
 * functions (`abs`, `clamp`, date functions) map samples; the functions that need labels, the
 * whole vector or the query itself are the engine's own (special-functions.ts).
 */

import { type Call, type Expr, unwrapParens } from '../ast.js';
import type { FunctionDef, RangeWindow } from '../functions/registry.js';
import { getLabel, METRIC_NAME } from '../labels.js';
import { PromqlError } from '../types.js';
import type { Evaluator, RangeInput } from './evaluator.js';
import { evalSpecial } from './special-functions.js';
import { newStepSeries, type StepSeries, type Value } from './values.js';

const COUNTER_SUFFIXES = ['_total', '_sum', '_count', '_bucket'];

function looksLikeCounter(name: string): boolean {
  return COUNTER_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

export async function evalCall(ev: Evaluator, node: Call): Promise<Value> {
  const func = node.func;
  switch (func.kind) {
    case 'range':
      return { kind: 'vector', series: await evalRangeFunction(ev, node, func) };
    case 'elementwise':
      return { kind: 'vector', series: await evalElementwise(ev, node, func) };
    case 'special':
      return evalSpecial(ev, node);
  }
}

/** The call's range-vector argument, evaluated for every window of this grid. */
export async function rangeArgument(ev: Evaluator, arg: Expr): Promise<RangeInput> {
  const inner = unwrapParens(arg);
  if (inner.type === 'MatrixSelector') return ev.selectRange(inner);
  if (inner.type === 'SubqueryExpr') return ev.evalSubquery(inner);
  throw new PromqlError('internal', `expected a range vector argument, got ${inner.type}`);
}

/** Scalar arguments per step, in call order, skipping the argument at `skip`. */
async function scalarArguments(ev: Evaluator, args: Expr[], skip: number): Promise<Float64Array[]> {
  const out: Float64Array[] = [];
  for (let i = 0; i < args.length; i++) {
    if (i === skip) continue;
    out.push(await ev.scalar(unwrapParens(args[i] as Expr)));
  }
  return out;
}

/**
 * Applies `visit(series index, step, window)` to every non-empty window of every series:
 * window i of a series covers `(ref_i - range, ref_i]` with `ref_i = (@ or t_i) - offset`.
 */
export async function forEachWindow(
  ev: Evaluator,
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

async function evalRangeFunction(ev: Evaluator, node: Call, func: FunctionDef): Promise<StepSeries[]> {
  const matrixIndex = node.args.findIndex(
    (a) => unwrapParens(a).type === 'MatrixSelector' || unwrapParens(a).type === 'SubqueryExpr',
  );
  const scalars = await scalarArguments(ev, node.args, matrixIndex);
  const input = await rangeArgument(ev, node.args[matrixIndex] as Expr);
  const range = func.range as NonNullable<FunctionDef['range']>;
  const scalarArgs: number[] = new Array(scalars.length).fill(0);
  const outputs = input.series.map((s) => newStepSeries(s.labels, !func.keepsMetricName || s.dropName, ev.steps));
  const checksQuantile = func.name === 'quantile_over_time';
  const quantileArg = node.args[0] as Expr;
  await forEachWindow(ev, input, (si, i, window) => {
    for (let k = 0; k < scalars.length; k++) scalarArgs[k] = (scalars[k] as Float64Array)[i] as number;
    if (checksQuantile) {
      const q = scalarArgs[0] as number;
      if (Number.isNaN(q) || q < 0 || q > 1) ev.ctx.annotations.invalidQuantile(q, quantileArg.pos);
    }
    const value = range(window, scalarArgs);
    if (value === undefined) return;
    const out = outputs[si] as StepSeries;
    out.values[i] = value;
    out.present[i] = 1;
  });
  const result = outputs.filter((s) => s.present.includes(1));
  if (func.name === 'rate' || func.name === 'increase') {
    for (const s of result) {
      const name = getLabel(s.labels, METRIC_NAME);
      if (name !== '' && !looksLikeCounter(name))
        ev.ctx.annotations.possibleNonCounter(name, (node.args[0] as Expr).pos);
    }
  }
  return result;
}

async function evalElementwise(ev: Evaluator, node: Call, func: FunctionDef): Promise<StepSeries[]> {
  const apply = func.elementwise as NonNullable<FunctionDef['elementwise']>;
  const scalars = await scalarArguments(ev, node.args, 0);
  const scalarArgs: number[] = new Array(scalars.length).fill(0);
  const setArgs = (i: number): void => {
    for (let k = 0; k < scalars.length; k++) scalarArgs[k] = (scalars[k] as Float64Array)[i] as number;
  };
  if (node.args.length === 0) {
    // Date functions without an argument work on vector(time()).
    const out = newStepSeries([], false, ev.steps);
    for (let i = 0; i < ev.steps; i++) {
      const t = ev.times[i] as number;
      out.values[i] = apply(t / 1000, scalarArgs, t);
      out.present[i] = 1;
    }
    return ev.steps > 0 ? [out] : [];
  }
  const input = await ev.vector(node.args[0] as Expr);
  const empty = new Uint8Array(ev.steps);
  if (func.emptyWhen) {
    for (let i = 0; i < ev.steps; i++) {
      setArgs(i);
      if (func.emptyWhen(scalarArgs)) empty[i] = 1;
    }
  }
  const out: StepSeries[] = [];
  for (const s of input) {
    await ev.checkpoint();
    const result = newStepSeries(s.labels, !func.keepsMetricName || s.dropName, ev.steps);
    let any = false;
    for (let i = 0; i < ev.steps; i++) {
      if (s.present[i] !== 1 || empty[i] === 1) continue;
      setArgs(i);
      result.values[i] = apply(s.values[i] as number, scalarArgs, ev.times[i] as number);
      result.present[i] = 1;
      any = true;
    }
    if (any) out.push(result);
  }
  return out;
}
