/**
 * Binding of the forms that rewrite into existing plan nodes (CASE, IS [NOT] DISTINCT FROM) or
 * carry context as literals (obj_description), kept apart from the binder's main switch.
 */
import type { DataType } from '../../../shared/types.js';
import { signatureError } from '../functions/typed.js';
import type { Expr, FunctionCall } from '../parse/ast.js';
import { commonType, planError } from '../types/coercion.js';
import { isInteger } from '../types/type-names.js';
import type { ComparisonOperator, PlanExpr } from './plan.js';
import { castTo, literal, requireBoolean } from './plan-nodes.js';

/** What these forms need of the binder (an interface, so this module does not import it). */
export interface FormBinder {
  bind(expr: Expr): PlanExpr;
  compare(op: ComparisonOperator, left: PlanExpr, right: PlanExpr): PlanExpr;
}

/**
 * `obj_description(oid [, catalog])`: the comment of the table whose id is `oid` (GreptimeDB's
 * tables answer as pg_class rows by id). The catalog is not reachable where functions run (in
 * shards too), so the comments travel as a trailing literal, as JSON `[[id, comment], ...]`.
 */
export function bindObjDescription(
  b: FormBinder,
  call: FunctionCall,
  tableComments: Array<[id: number, comment: string]>,
): PlanExpr {
  const args = call.args.map((a) => b.bind(a));
  const [oid, catalog] = args;
  const integer = (t: DataType | undefined): boolean => t === 'Null' || (t !== undefined && isInteger(t));
  if (
    args.length < 1 ||
    args.length > 2 ||
    !integer(oid?.type) ||
    !(catalog === undefined || catalog.type === 'String' || catalog.type === 'Null')
  ) {
    throw signatureError(
      'obj_description',
      args.map((a) => a.type),
    );
  }
  const comments = JSON.stringify(tableComments);
  return {
    kind: 'call',
    name: 'obj_description',
    args: [
      castTo(oid as PlanExpr, 'Int64'),
      castTo(catalog ?? literal('pg_class', 'String'), 'String'),
      literal(comments, 'String'),
    ],
    type: 'String',
  };
}

/**
 * `a IS [NOT] DISTINCT FROM b` as a CASE over existing nodes, so evaluation needs nothing new:
 * both NULL are not distinct, one NULL is distinct, otherwise `a <> b`. Never NULL.
 */
export function bindIsDistinct(b: FormBinder, expr: Extract<Expr, { kind: 'is_distinct' }>): PlanExpr {
  const left = b.bind(expr.left);
  const right = b.bind(expr.right);
  const equal = b.compare('=', left, right);
  const isNull = (arg: PlanExpr): PlanExpr => ({ kind: 'is', arg, test: 'NULL', negated: false, type: 'Boolean' });
  const distinct = !expr.negated;
  return {
    kind: 'case',
    operand: null,
    whens: [
      {
        when: { kind: 'and', left: isNull(left), right: isNull(right), type: 'Boolean' },
        result: literal(!distinct, 'Boolean'),
      },
      {
        when: { kind: 'or', left: isNull(left), right: isNull(right), type: 'Boolean' },
        result: literal(distinct, 'Boolean'),
      },
    ],
    elseResult: distinct ? { kind: 'not', arg: equal, type: 'Boolean' } : equal,
    type: 'Boolean',
  };
}

export function bindCase(b: FormBinder, expr: Extract<Expr, { kind: 'case' }>): PlanExpr {
  const operand = expr.operand ? b.bind(expr.operand) : null;
  const whens = expr.whens.map((w) => {
    const when = operand ? b.compare('=', operand, b.bind(w.when)) : requireBoolean(b.bind(w.when), 'CASE WHEN');
    return { when, result: b.bind(w.result) };
  });
  const elseResult = expr.elseResult ? b.bind(expr.elseResult) : null;
  const t = commonType([...whens.map((w) => w.result.type), ...(elseResult ? [elseResult.type] : [])]);
  if (t === null) throw planError('CASE branches have no common type');
  return {
    kind: 'case',
    operand: null,
    whens: whens.map((w) => ({ when: w.when, result: castTo(w.result, t) })),
    elseResult: elseResult ? castTo(elseResult, t) : null,
    type: t,
  };
}
