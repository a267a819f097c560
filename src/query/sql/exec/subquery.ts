/**
 * Subquery expressions: scalar `(SELECT ...)`, `EXISTS (...)` and `x IN (SELECT ...)`. They are
 * executed in the router before the enclosing SELECT is planned, so what reaches the shards is
 * plain data:
 *
 * - uncorrelated: run once; the result becomes a literal, a boolean or an IN list of literals;
 * - correlated (reads columns of the enclosing FROM): the enclosing FROM is materialised, the
 *   subquery runs once per distinct value of the outer columns it reads, and a `lookup` plan node
 *   picks each row's answer.
 *
 * A subquery is found to be correlated by a probe run in which outer references bind to NULL and
 * are recorded.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import type { Expr, Query, Select } from '../parse/ast.js';
import { exprChildren } from '../parse/expr-children.js';
import type { Binder, OuterScope, SubqueryExpr, SubqueryHook } from '../plan/binder.js';
import type { PlanExpr } from '../plan/plan.js';
import { castTo, literal } from '../plan/plan-nodes.js';
import type { FromInput } from '../plan/planner.js';
import type { Relation } from '../plan/relation.js';
import { commonType, planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { groupKeyOf } from './shard-exec.js';

/** A query's result as subqueries need it: column types and row-major rows. */
export interface QueryRows {
  columns: Array<{ name: string; type: DataType }>;
  rows: Value[][];
}

/** What a subquery evaluated to. */
type Resolved =
  | { kind: 'constant'; result: QueryRows }
  | { kind: 'correlated'; used: number[]; answers: Map<string, Value[]>; type: DataType };

/** Subquery expressions of a SELECT (not descending into the subqueries themselves). */
export function collectSubqueries(select: Select, query: Query): SubqueryExpr[] {
  const out: SubqueryExpr[] = [];
  const visit = (e: Expr | null | undefined): void => {
    if (!e) return;
    switch (e.kind) {
      case 'subquery':
      case 'exists':
        out.push(e);
        return;
      case 'in_subquery':
        out.push(e);
        visit(e.expr);
        return;
      default:
        exprChildren(e).forEach(visit);
        return;
    }
  };
  for (const item of select.projection) if (item.kind === 'expr') visit(item.expr);
  visit(select.where);
  visit(select.having);
  for (const o of query.orderBy) visit(o.expr);
  visit(query.limit);
  visit(query.offset);
  return out;
}

/** Runs subqueries; supplied by query-exec.ts. `outer` is the scope chain they may read. */
export type SubqueryRunner = (query: Query, outer: OuterScope) => Promise<QueryRows>;

/** The resolved subqueries of one SELECT, and the hook that binds them. */
export class SubqueryResolutions implements SubqueryHook {
  private readonly resolved = new Map<Expr, Resolved>();
  private nextId = 1;

  /** True when some subquery reads the enclosing row (the FROM must then be a relation). */
  get correlated(): boolean {
    for (const r of this.resolved.values()) if (r.kind === 'correlated') return true;
    return false;
  }

  /** Probes and, when uncorrelated, resolves each subquery; returns the correlated ones. */
  async probe(
    subqueries: SubqueryExpr[],
    input: FromInput,
    parent: OuterScope | null,
    run: SubqueryRunner,
  ): Promise<Array<{ expr: SubqueryExpr; used: number[] }>> {
    const correlated: Array<{ expr: SubqueryExpr; used: number[] }> = [];
    for (const expr of subqueries) {
      const outer: OuterScope = { scope: input.scope(), values: null, used: new Set(), parent };
      let result: QueryRows | null = null;
      try {
        result = await run(expr.query, outer);
      } catch (err) {
        if (outer.used.size === 0) throw err;
      }
      if (outer.used.size === 0 && result) this.resolved.set(expr, { kind: 'constant', result });
      else correlated.push({ expr, used: [...outer.used].sort((a, b) => a - b) });
    }
    return correlated;
  }

  /** Runs a correlated subquery once per distinct outer key over the materialised FROM. */
  async resolveCorrelated(
    expr: SubqueryExpr,
    used: number[],
    input: FromInput,
    relation: Relation,
    parent: OuterScope | null,
    run: SubqueryRunner,
  ): Promise<void> {
    const answers = new Map<string, Value[]>();
    let type: DataType = 'Null';
    for (let r = 0; r < relation.rowCount; r++) {
      const row = relation.values.map((c) => c[r] as Value);
      const key = groupKeyOf(used.map((j) => row[j] as Value));
      if (answers.has(key)) continue;
      const outer: OuterScope = { scope: input.scope(), values: row, used: new Set(), parent };
      const result = await run(expr.query, outer);
      if (expr.kind !== 'exists') checkOneColumn(result);
      type = result.columns[0]?.type ?? type;
      if (expr.kind === 'subquery' && result.rows.length > 1) throw moreThanOneRow();
      answers.set(
        key,
        result.rows.map((row) => row[0] ?? null),
      );
    }
    this.resolved.set(expr, { kind: 'correlated', used, answers, type });
  }

  bind(expr: SubqueryExpr, binder: Binder): PlanExpr {
    const r = this.resolved.get(expr);
    if (!r) throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: subqueries in this position');
    if (r.kind === 'correlated') return this.bindCorrelated(expr, r, binder);
    const { result } = r;
    switch (expr.kind) {
      case 'exists':
        return literal(result.rows.length > 0 !== expr.negated, 'Boolean');
      case 'subquery': {
        checkOneColumn(result);
        if (result.rows.length > 1) throw moreThanOneRow();
        const type = result.columns[0]?.type ?? 'Null';
        return literal(result.rows[0]?.[0] ?? null, type);
      }
      case 'in_subquery': {
        checkOneColumn(result);
        const arg = binder.bind(expr.expr);
        const itemType = result.columns[0]?.type ?? 'Null';
        const t = commonType([arg.type, itemType]);
        if (t === null) {
          throw planError(
            `Cannot infer common argument type for IN subquery: ${arrowNameOf(arg.type)}, ${arrowNameOf(itemType)}`,
          );
        }
        const list = result.rows.map((row) => castTo(literal(row[0] ?? null, itemType), t));
        return { kind: 'in', arg: castTo(arg, t), list, negated: expr.negated, type: 'Boolean' };
      }
    }
  }

  private bindCorrelated(expr: SubqueryExpr, r: Extract<Resolved, { kind: 'correlated' }>, binder: Binder): PlanExpr {
    const scope = binder.ctx.scope;
    if (!scope) throw new Error('correlated subquery without a FROM scope');
    const keys: PlanExpr[] = r.used.map((j) => ({
      kind: 'column',
      index: scope.slotOf(j),
      type: scope.columns[j]?.type ?? 'Null',
    }));
    const id = this.nextId++;
    switch (expr.kind) {
      case 'exists':
        return {
          kind: 'lookup',
          id,
          mode: 'exists',
          keys,
          arg: null,
          negated: expr.negated,
          answers: r.answers,
          type: 'Boolean',
        };
      case 'subquery':
        return {
          kind: 'lookup',
          id,
          mode: 'scalar',
          keys,
          arg: null,
          negated: false,
          answers: r.answers,
          type: r.type,
        };
      case 'in_subquery': {
        const arg = binder.bind(expr.expr);
        const t = commonType([arg.type, r.type]) ?? arg.type;
        return {
          kind: 'lookup',
          id,
          mode: 'in',
          keys,
          arg: castTo(arg, t),
          negated: expr.negated,
          answers: r.answers,
          type: 'Boolean',
        };
      }
    }
  }

  /**
   * GreptimeDB (DataFusion) joins an uncorrelated scalar subquery of a SELECT without FROM to the
   * one-row input, so a subquery with no rows leaves no rows at all.
   */
  emptiesSelectWithoutFrom(select: Select): boolean {
    for (const item of select.projection) {
      if (item.kind !== 'expr') continue;
      let e = item.expr;
      while (e.kind === 'nested') e = e.expr;
      if (e.kind !== 'subquery') continue;
      const r = this.resolved.get(e);
      if (r?.kind === 'constant' && r.result.rows.length === 0) return true;
    }
    return false;
  }
}

function checkOneColumn(result: QueryRows): void {
  if (result.columns.length !== 1) {
    throw planError(`Too many columns! The subquery should only return one column`);
  }
}

function moreThanOneRow(): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, 'Execution error: Scalar subquery returned more than one row');
}
