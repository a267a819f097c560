/**
 * Function calls. Range-vector functions (`rate`, `*_over_time`, ...) slide each series' window
 * over the steps with two cursors and call the registry's `range` per window; element-wise
 * functions (`abs`, `clamp`, date functions) map samples; the functions that need labels, the
 * whole vector or the query itself are the engine's own (special-functions.ts).
 */

import { type Call, type Expr, unwrapParens } from '../ast.js';
import type { FunctionDef } from '../functions/registry.js';
import { getLabel, METRIC_NAME } from '../labels.js';
import type { EvalHost } from './eval-host.js';
import { type HistogramRangeCall, rangeWithHistograms } from './histogram-range.js';
import { evalSpecial } from './special-functions.js';
import { HISTOGRAM, newStepSeries, type StepSeries, setHistogram, type Value } from './values.js';
import { forEachWindow, looksLikeCounter, rangeArgument } from './windows.js';

export async function evalCall(ev: EvalHost, node: Call): Promise<Value> {
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

/** Scalar arguments per step, in call order, skipping the argument at `skip`. */
async function scalarArguments(ev: EvalHost, args: Expr[], skip: number): Promise<Float64Array[]> {
  const out: Float64Array[] = [];
  for (let i = 0; i < args.length; i++) {
    if (i === skip) continue;
    out.push(await ev.scalar(unwrapParens(args[i] as Expr)));
  }
  return out;
}

async function evalRangeFunction(ev: EvalHost, node: Call, func: FunctionDef): Promise<StepSeries[]> {
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
  const rangeArg = node.args[matrixIndex] as Expr;
  let histogramCall: HistogramRangeCall | undefined;
  let histogramSeries = -1;
  await forEachWindow(ev, input, (si, i, window, histograms) => {
    for (let k = 0; k < scalars.length; k++) scalarArgs[k] = (scalars[k] as Float64Array)[i] as number;
    if (checksQuantile && window.hi > window.lo) {
      const q = scalarArgs[0] as number;
      if (Number.isNaN(q) || q < 0 || q > 1) ev.ctx.annotations.invalidQuantile(q, quantileArg.pos);
    }
    const out = outputs[si] as StepSeries;
    if (histograms !== undefined) {
      if (histogramSeries !== si) {
        histogramSeries = si;
        const metricName = getLabel((input.series[si] as (typeof input.series)[number]).labels, METRIC_NAME);
        histogramCall = { name: func.name, metricName, pos: rangeArg.pos, annotations: ev.ctx.annotations };
      }
      const value = rangeWithHistograms(histogramCall as HistogramRangeCall, window, histograms, () =>
        range(window, scalarArgs),
      );
      if (value === undefined) return;
      if (typeof value !== 'number') {
        setHistogram(out, i, value);
        return;
      }
      out.values[i] = value;
      out.present[i] = 1;
      return;
    }
    const value = range(window, scalarArgs);
    if (value === undefined) return;
    out.values[i] = value;
    out.present[i] = 1;
  });
  const result = outputs.filter(
    (s) => s.present.includes(1) || (s.histograms !== undefined && s.present.includes(HISTOGRAM)),
  );
  if (func.name === 'rate' || func.name === 'increase') {
    for (const s of result) {
      if (!s.present.includes(1)) continue;
      const name = getLabel(s.labels, METRIC_NAME);
      if (name !== '' && !looksLikeCounter(name))
        ev.ctx.annotations.possibleNonCounter(name, (node.args[0] as Expr).pos);
    }
  }
  return result;
}

async function evalElementwise(ev: EvalHost, node: Call, func: FunctionDef): Promise<StepSeries[]> {
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
