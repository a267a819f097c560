/**
 * Operator precedence repair. lezer's PromQL grammar gives the postfix modifiers (`offset`, `@`,
 * `[range]`, `[range:step]`) no precedence, so `a + r @ 60 * 0` comes back as
 * `((a + r) @ 60) * 0`; the parser first moves the modifier onto `r` and this pass then re-reads
 * every unparenthesised chain of binary and unary operators with PromQL's precedence
 * (Prometheus' yacc table), giving `a + ((r @ 60) * 0)`.
 *
 * Precedence, loosest first: `or`; `and` `unless`; comparisons; `+` `-`; `*` `/` `%` `atan2`
 * (and unary `+`/`-`); `^` (right-associative). A unary sign on a number literal folds into it.
 */

import type { BinaryExpr, BinaryOp, Expr, UnaryExpr } from './ast.js';

const PRECEDENCE: Record<BinaryOp, number> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '>': 3,
  '<': 3,
  '>=': 3,
  '<=': 3,
  '</': 3,
  '>/': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  atan2: 5,
  '^': 6,
};
const POWER = 6;

type Token = { kind: 'unary'; node: UnaryExpr } | { kind: 'atom'; expr: Expr } | { kind: 'binary'; node: BinaryExpr };

/** Returns the expression with every operator chain rebuilt by PromQL precedence. */
export function fixPrecedence(expr: Expr): Expr {
  if (expr.type === 'BinaryExpr' || expr.type === 'UnaryExpr') {
    const tokens: Token[] = [];
    flatten(expr, tokens);
    const reader = new ChainReader(tokens);
    return reader.expression(1);
  }
  return withFixedChildren(expr);
}

function flatten(expr: Expr, out: Token[]): void {
  if (expr.type === 'BinaryExpr') {
    flatten(expr.lhs, out);
    out.push({ kind: 'binary', node: expr });
    flatten(expr.rhs, out);
  } else if (expr.type === 'UnaryExpr') {
    out.push({ kind: 'unary', node: expr });
    flatten(expr.expr, out);
  } else {
    out.push({ kind: 'atom', expr: withFixedChildren(expr) });
  }
}

function withFixedChildren(expr: Expr): Expr {
  switch (expr.type) {
    case 'AggregateExpr':
      return { ...expr, expr: fixPrecedence(expr.expr), param: expr.param ? fixPrecedence(expr.param) : null };
    case 'Call':
      return { ...expr, args: expr.args.map(fixPrecedence) };
    case 'ParenExpr':
    case 'SubqueryExpr':
      return { ...expr, expr: fixPrecedence(expr.expr) };
    case 'BinaryExpr':
    case 'UnaryExpr':
      return fixPrecedence(expr);
    default:
      return expr;
  }
}

class ChainReader {
  private index = 0;

  constructor(private readonly tokens: Token[]) {}

  /** Precedence climbing over operators binding at least as tight as `minimum`. */
  expression(minimum: number): Expr {
    let left = this.operand();
    while (true) {
      const token = this.tokens[this.index];
      if (token === undefined || token.kind !== 'binary') return left;
      const precedence = PRECEDENCE[token.node.op];
      if (precedence < minimum) return left;
      this.index++;
      const right = this.expression(token.node.op === '^' ? precedence : precedence + 1);
      left = { ...token.node, lhs: left, rhs: right, pos: { start: left.pos.start, end: right.pos.end } };
    }
  }

  /** An atom, or a unary sign over everything that binds tighter than multiplication. */
  private operand(): Expr {
    const token = this.tokens[this.index++];
    if (token === undefined) throw new Error('operator chain ended early');
    if (token.kind === 'atom') return token.expr;
    if (token.kind === 'binary') throw new Error('operator chain has two operators in a row');
    const inner = this.expression(POWER);
    const pos = { start: token.node.pos.start, end: inner.pos.end };
    if (inner.type === 'NumberLiteral')
      return { ...inner, value: token.node.op === '-' ? -inner.value : inner.value, pos };
    return { ...token.node, expr: inner, pos };
  }
}
