/**
 * The two extra checks Prometheus' own test harness (promqltest) runs for every instant `eval`,
 * reproduced so the corpus also proves the range path, the `@` modifier and the printer:
 * (a) the same expression as a range query from t−1m to t+1m step 1m must give the expected
 * result at its middle step; (b) with `@ t` added to every selector and subquery (not inside
 * subqueries) and printed back as text, it must give the expected result at other times too.
 */

import { childrenOf, type Expr } from '../../../src/query/promql/ast.js';
import { parsePromql } from '../../../src/query/promql/engine.js';
import { exprToString } from '../../../src/query/promql/printer.js';

/** Functions whose result depends on the evaluation time even with pinned arguments. */
const AT_MODIFIER_UNSAFE = new Set([
  'days_in_month',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'end',
  'hour',
  'minute',
  'month',
  'year',
  'predict_linear',
  'range',
  'start',
  'step',
  'time',
  'timestamp',
]);

/** Queries using the query-context functions resolve differently in range mode. */
export const QUERY_CONTEXT_FUNCTIONS = /(start|end|range|step)\(\)/;

/** promqltest's `atModifierTestCases`: the pinned expression and the times to run it at. */
export function atModifierVariants(query: string, timeMs: number): { query: string; timeMs: number }[] {
  let expr: Expr;
  try {
    // A copy: parsed trees are shared and frozen (parse.ts), and this pins times into it.
    expr = structuredClone(parsePromql(query));
  } catch {
    return [];
  }
  let unsafe = false;
  const pin = (e: Expr, insideSubquery: boolean): void => {
    if (!insideSubquery) {
      if (e.type === 'VectorSelector' || e.type === 'SubqueryExpr') {
        if (e.atMs === null) {
          e.atMs = timeMs;
          e.startOrEnd = null;
        }
      } else if (e.type === 'MatrixSelector' && e.selector.atMs === null) {
        e.selector.atMs = timeMs;
        e.selector.startOrEnd = null;
      }
    }
    if (e.type === 'Call' && AT_MODIFIER_UNSAFE.has(e.func.name)) unsafe = true;
    for (const child of childrenOf(e)) pin(child, insideSubquery || e.type === 'SubqueryExpr');
  };
  pin(expr, false);
  if (unsafe) return [];
  const pinned = exprToString(expr);
  const times = timeMs === 0 ? [-1000, 0, 1000] : [-10 * timeMs, 0, Math.trunc(timeMs / 5), timeMs, 10 * timeMs];
  return times.map((t) => ({ query: pinned, timeMs: t }));
}
