/**
 * The type checker Prometheus runs after parsing (`checkAST` in promql/parser/parse.go): operand
 * and argument types, function arity, `bool` and set-operator rules, selector sanity. It also
 * normalises vector matching the way Prometheus does: set operators become many-to-many, and
 * operations that are not vector-vector lose their matching clause.
 */

import {
  documentedType,
  type Expr,
  isComparisonOp,
  isSetOp,
  type PositionRange,
  typeOf,
  type ValueType,
} from './ast.js';
import { METRIC_NAME } from './labels.js';
import { matchesEmpty } from './matchers.js';
import { ParseError } from './parse-error.js';

/** Throws ParseError for the first problem, in Prometheus' order. */
export function checkExpr(expr: Expr, query: string): void {
  new Checker(query).check(expr);
}

class Checker {
  /** info()'s label selectors, which may match only empty values (`{data=~".*"}`), as Prometheus allows. */
  private readonly infoSelectors = new Set<Expr>();

  constructor(private readonly query: string) {}

  private fail(message: string, pos: PositionRange): never {
    throw new ParseError(message, pos);
  }

  private expectType(expr: Expr, want: ValueType, context: string): void {
    const got = this.check(expr);
    if (got !== want)
      this.fail(`expected type ${documentedType(want)} in ${context}, got ${documentedType(got)}`, expr.pos);
  }

  /** The operator's own range, trimmed of spaces (Prometheus' `opRange`). */
  private operatorRange(lhs: Expr, rhs: Expr): PositionRange {
    let start = lhs.pos.end;
    while (start < this.query.length && /\s/.test(this.query[start] as string)) start++;
    let end = rhs.pos.start;
    while (end > start && /\s/.test(this.query[end - 1] as string)) end--;
    return { start, end };
  }

  check(expr: Expr): ValueType {
    const type = typeOf(expr);
    switch (expr.type) {
      case 'AggregateExpr': {
        this.expectType(expr.expr, 'vector', 'aggregation expression');
        const param = expr.param;
        if (param !== null) {
          if (expr.op === 'count_values') this.expectType(param, 'string', 'aggregation parameter');
          else this.expectType(param, 'scalar', 'aggregation parameter');
        }
        break;
      }
      case 'BinaryExpr': {
        const lt = this.check(expr.lhs);
        const rt = this.check(expr.rhs);
        if (expr.returnBool && !isComparisonOp(expr.op)) {
          this.fail('bool modifier can only be used on comparison operators', this.operatorRange(expr.lhs, expr.rhs));
        }
        if (isComparisonOp(expr.op) && !expr.returnBool && lt === 'scalar' && rt === 'scalar') {
          this.fail('comparisons between scalars must use BOOL modifier', this.operatorRange(expr.lhs, expr.rhs));
        }
        const matching = expr.matching;
        if (matching !== null) {
          if (isSetOp(expr.op) && matching.card === 'one-to-one') matching.card = 'many-to-many';
          if (matching.on) {
            for (const label of matching.matchingLabels) {
              if (matching.include.includes(label)) {
                this.fail(
                  `label "${label}" must not occur in ON and GROUP clause at once`,
                  this.operatorRange(expr.lhs, expr.rhs),
                );
              }
            }
          }
        }
        if (lt !== 'scalar' && lt !== 'vector')
          this.fail('binary expression must contain only scalar and instant vector types', expr.lhs.pos);
        if (rt !== 'scalar' && rt !== 'vector')
          this.fail('binary expression must contain only scalar and instant vector types', expr.rhs.pos);
        if (matching !== null) {
          const filling = matching.fillLeft !== null || matching.fillRight !== null;
          if (lt !== 'vector' || rt !== 'vector') {
            if (matching.matchingLabels.length > 0)
              this.fail('vector matching only allowed between instant vectors', expr.pos);
            if (filling) this.fail('filling in missing series only allowed between instant vectors', expr.pos);
            expr.matching = null;
          } else if (isSetOp(expr.op)) {
            if (matching.card === 'one-to-many' || matching.card === 'many-to-one') {
              this.fail(`no grouping allowed for "${expr.op}" operation`, expr.pos);
            }
            if (matching.card !== 'many-to-many') this.fail('set operations must always be many-to-many', expr.pos);
            if (filling) this.fail('filling in missing series not allowed for set operators', expr.pos);
          }
        }
        if ((lt === 'scalar' || rt === 'scalar') && isSetOp(expr.op)) {
          this.fail(`set operator "${expr.op}" not allowed in binary scalar expression`, expr.pos);
        }
        break;
      }
      case 'Call': {
        const func = expr.func;
        const declared = func.argTypes.length;
        const given = expr.args.length;
        if (func.variadic === 0) {
          if (declared !== given)
            this.fail(`expected ${declared} argument(s) in call to "${func.name}", got ${given}`, expr.pos);
        } else {
          const required = declared - 1;
          if (required > given) {
            this.fail(`expected at least ${required} argument(s) in call to "${func.name}", got ${given}`, expr.pos);
          } else if (func.variadic > 0 && required + func.variadic < given) {
            this.fail(
              `expected at most ${required + func.variadic} argument(s) in call to "${func.name}", got ${given}`,
              expr.pos,
            );
          }
        }
        if (func.name === 'info' && given > 1) {
          this.checkInfoSelector(expr.args[1] as Expr);
          this.infoSelectors.add(expr.args[1] as Expr);
        }
        for (let i = 0; i < given; i++) {
          let typeIndex = i;
          if (i >= declared) {
            if (func.variadic === 0) break;
            typeIndex = declared - 1;
          }
          const arg = expr.args[i] as Expr;
          const want = func.argTypes[typeIndex] as ValueType;
          const got = this.check(arg);
          if (got !== want) {
            this.fail(
              `expected type ${documentedType(want)} in call to function "${func.name}", got ${documentedType(got)}`,
              arg.pos,
            );
          }
        }
        break;
      }
      case 'ParenExpr':
        this.check(expr.expr);
        break;
      case 'UnaryExpr': {
        const inner = this.check(expr.expr);
        if (inner !== 'scalar' && inner !== 'vector') {
          this.fail(
            `unary expression only allowed on expressions of type scalar or instant vector, got "${documentedType(inner)}"`,
            expr.pos,
          );
        }
        break;
      }
      case 'SubqueryExpr': {
        const inner = this.check(expr.expr);
        if (inner !== 'vector') this.fail(`subquery is only allowed on instant vector, got ${inner} instead`, expr.pos);
        break;
      }
      case 'MatrixSelector':
        this.check(expr.selector);
        break;
      case 'VectorSelector': {
        if (expr.name !== '') {
          for (const m of expr.matchers.slice(0, -1)) {
            if (m.name === METRIC_NAME) {
              this.fail(
                `metric name must not be set twice: ${JSON.stringify(expr.name)} or ${JSON.stringify(m.value)}`,
                expr.pos,
              );
            }
          }
          break;
        }
        if (!this.infoSelectors.has(expr) && !expr.matchers.some((m) => !matchesEmpty(m))) {
          this.fail('vector selector must contain at least one non-empty matcher', expr.pos);
        }
        break;
      }
      case 'NumberLiteral':
      case 'StringLiteral':
        break;
    }
    return type;
  }

  /** info()'s second argument must be a bare label selector (no metric name). */
  private checkInfoSelector(arg: Expr): void {
    if (typeOf(arg) !== 'vector') {
      this.fail(`expected type instant vector in call to function "info", got ${documentedType(typeOf(arg))}`, arg.pos);
    }
    if (arg.type !== 'VectorSelector') this.fail('expected label selectors only', arg.pos);
    if (arg.name !== '') this.fail('expected label selectors only, got vector selector instead', arg.pos);
  }
}
