/**
 * Selectors whose histograms only histogram_count, histogram_sum or histogram_avg read
 * (Prometheus' `detectHistogramStatsDecoding`). Prometheus reads those through an iterator that
 * skips the buckets and, to make up for hints a chunk boundary left "unknown", compares each such
 * sample with the one read before it and calls it "reset" or "not_reset". The hints then decide
 * whether a sum or avg of them warns of conflicting counter resets, so ShoalDB marks the same
 * selectors and refines their hints the same way (Evaluator.selectVector / selectRange).
 */

import { childrenOf, type Expr, isTrimOp } from './ast.js';

const STATS_FUNCTIONS = new Set(['histogram_count', 'histogram_sum', 'histogram_avg']);
const BUCKET_FUNCTIONS = new Set(['histogram_quantile', 'histogram_quantiles', 'histogram_fraction']);

/** Sets `statsOnly` on every vector selector of `expr` (inside range selectors too). */
export function markStatsSelectors(expr: Expr): void {
  const path: Expr[] = [];
  const visit = (e: Expr): void => {
    if (e.type === 'VectorSelector' && statsOnlyBelow(path)) e.statsOnly = true;
    path.push(e);
    for (const child of childrenOf(e)) visit(child);
    path.pop();
  };
  visit(expr);
}

/**
 * Walking up from the selector: a stats function allows skipping the buckets, unless something
 * further up needs them (a bucket function, a trim operator) or a subquery re-reads the samples.
 */
function statsOnlyBelow(path: readonly Expr[]): boolean {
  let statsOnly = false;
  for (let k = path.length - 1; k >= 0; k--) {
    const p = path[k] as Expr;
    if (p.type === 'SubqueryExpr') return false;
    if (p.type === 'BinaryExpr' && isTrimOp(p.op)) return false;
    if (p.type !== 'Call') continue;
    if (STATS_FUNCTIONS.has(p.func.name)) statsOnly = true;
    else if (BUCKET_FUNCTIONS.has(p.func.name)) return false;
  }
  return statsOnly;
}
