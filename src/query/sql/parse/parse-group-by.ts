/**
 * GROUP BY items: expressions, and the grouping-set forms `ROLLUP (…)`, `CUBE (…)` and
 * `GROUPING SETS (…)` as sqlparser reads them. They are recognised only here, so elsewhere
 * `rollup(x)` stays an ordinary (unknown) function call, as it is outside GROUP BY in DataFusion.
 */
import type { Expr, GroupingSetExpr } from './ast.js';
import { parseExpr } from './parse-expr.js';
import type { TokenStream } from './parser-base.js';

/** Parses the comma-separated items after `GROUP BY`. */
export function parseGroupByItems(ts: TokenStream): Expr[] {
  const items: Expr[] = [];
  do items.push(parseGroupByItem(ts));
  while (ts.consumeOp(','));
  return items;
}

function parseGroupByItem(ts: TokenStream): Expr {
  if ((ts.isKeyword('ROLLUP') || ts.isKeyword('CUBE')) && ts.isOp('(', 1)) {
    const form = ts.next().value.toUpperCase() as 'ROLLUP' | 'CUBE';
    return { kind: 'grouping_set', form, sets: parseElements(ts, false) };
  }
  if (ts.consumeKeywords('GROUPING', 'SETS')) {
    return { kind: 'grouping_set', form: 'GROUPING SETS', sets: parseElements(ts, true) };
  }
  return parseExpr(ts);
}

/**
 * `( element, … )` where an element is an expression or a parenthesised list of them (a tuple,
 * which only GROUPING SETS may leave empty). As in sqlparser, a leading `(` always opens a tuple,
 * so `((a + b) * 2)` is a syntax error here.
 */
function parseElements(ts: TokenStream, allowEmpty: boolean): GroupingSetExpr['sets'] {
  ts.expectOp('(');
  const sets: Expr[][] = [];
  do {
    if (!ts.consumeOp('(')) {
      sets.push([parseExpr(ts)]);
      continue;
    }
    const tuple: Expr[] = [];
    if (!(allowEmpty && ts.isOp(')'))) {
      do tuple.push(parseExpr(ts));
      while (ts.consumeOp(','));
    }
    ts.expectOp(')');
    sets.push(tuple);
  } while (ts.consumeOp(','));
  ts.expectOp(')');
  return sets;
}
