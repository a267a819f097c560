/**
 * The scalar sub-expressions of an expression node: the one table of the AST's shape that
 * expression walkers share, so a new node kind is taught to them in one place. Subquery bodies,
 * window clauses and ordering inside aggregates are not children here: walkers that care about
 * them handle those node kinds themselves.
 */
import type { Expr } from './ast.js';

export function exprChildren(e: Expr): Expr[] {
  switch (e.kind) {
    case 'unary':
    case 'nested':
    case 'cast':
    case 'is':
    case 'in_subquery':
      return [e.expr];
    case 'binary':
    case 'is_distinct':
      return [e.left, e.right];
    case 'between':
      return [e.expr, e.low, e.high];
    case 'in_list':
      return [e.expr, ...e.list];
    case 'like':
      return [e.expr, e.pattern];
    case 'function':
      return e.args;
    case 'grouping_set':
      return e.sets.flat();
    case 'case': {
      const out: Expr[] = [];
      if (e.operand) out.push(e.operand);
      for (const w of e.whens) out.push(w.when, w.result);
      if (e.elseResult) out.push(e.elseResult);
      return out;
    }
    default:
      return [];
  }
}
