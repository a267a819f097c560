/**
 * Constructors of bound plan nodes that need no scope: literals, casts (folded at once on
 * literals, so a bad constant fails at plan time) and boolean operands.
 */
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import { canCast, castValue, type Value } from '../types/values.js';
import type { PlanExpr } from './plan.js';

/** A literal plan expression. */
export function literal(value: Value, type: DataType): PlanExpr {
  return { kind: 'literal', value, type };
}

/** Casts an expression to `type`; literals are cast at once so errors surface at plan time. */
export function castTo(expr: PlanExpr, type: DataType): PlanExpr {
  if (expr.type === type) return expr;
  if (expr.kind === 'literal') return literal(castValue(expr.value, expr.type, type), type);
  if (!canCast(expr.type, type)) {
    throw planError(`Cannot automatically convert ${arrowNameOf(expr.type)} to ${arrowNameOf(type)}`);
  }
  return { kind: 'cast', arg: expr, safe: false, type };
}

/** `expr` as a boolean operand of `what` (NULL becomes a boolean NULL); anything else is refused. */
export function requireBoolean(expr: PlanExpr, what: string): PlanExpr {
  if (expr.type === 'Boolean') return expr;
  if (expr.type === 'Null') return castTo(expr, 'Boolean');
  throw planError(`Cannot infer common argument type for ${what} (${arrowNameOf(expr.type)})`);
}
