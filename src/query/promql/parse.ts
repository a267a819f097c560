/**
 * PromQL text → typed AST. The lezer grammar (@prometheus-io/lezer-promql) does the syntax; this
 * module turns its tree into ast.ts nodes, applying what Prometheus' yacc actions do
 * (offset/@ placement, number and duration literals, unary folding, aggregation arity) and
 * then the type checker (check.ts). Errors carry Prometheus' wording and a `line:col` position:
 * `1:9: parse error: unexpected <op:*>`. Literals, durations and node access are in
 * parse-tree.ts, the syntax-error messages in syntax-error.ts.
 *
 * Quirk: lezer lexes `-1 ^ 2` with `-1` as one literal, while PromQL means `-(1 ^ 2)`; a power
 * whose left side is a signed literal is rebuilt as a unary operation (see convertBinary).
 */

import type { SyntaxNode } from '@lezer/common';
import { parser as lezerParser } from '@prometheus-io/lezer-promql';
import { ParsedCache } from '../parsed-cache.js';
import type {
  AggregateExpr,
  AggregateOp,
  BinaryExpr,
  BinaryOp,
  Call,
  Expr,
  MatrixSelector,
  NumberLiteral,
  PositionRange,
  SubqueryExpr,
  VectorMatching,
  VectorSelector,
} from './ast.js';
import { isAggregateOp, takesParam } from './ast.js';
import { checkExpr } from './check.js';
import { FUNCTIONS } from './functions/registry.js';
import { formatGoF } from './go-format.js';
import { isValidLabelName, METRIC_NAME } from './labels.js';
import { scanPromql, type Token } from './lexer.js';
import { compileMatcher } from './matchers.js';
import { ParseError, positionText } from './parse-error.js';
import { secondsToMs, TreeReader } from './parse-tree.js';
import { fixPrecedence } from './precedence.js';
import { GoRegexError } from './regex.js';
import { markStatsSelectors } from './stats-selectors.js';
import { syntaxErrorAt } from './syntax-error.js';
import { type Matcher, type MatchOp, PromqlError } from './types.js';

function toPromqlError(query: string, error: ParseError): PromqlError {
  return new PromqlError('bad_data', `${positionText(query, error.pos.start)}: parse error: ${error.message}`);
}

const strictParser = lezerParser.configure({ strict: true });

/** Parses and type-checks a PromQL expression; throws PromqlError('bad_data') on any error. */
export function parseExpr(query: string): Expr {
  const cached = parsed.get(query);
  if (cached !== undefined) return cached;
  let expr: Expr;
  try {
    expr = fixPrecedence(new Converter(query).parse());
    checkExpr(expr, query);
    markStatsSelectors(expr);
  } catch (error) {
    if (error instanceof ParseError) throw toPromqlError(query, error);
    throw error;
  }
  parsed.set(query, expr);
  return expr;
}

/** Parsed expressions by text (frozen: planning and evaluation only read them). */
const parsed = new ParsedCache<Expr>();

const BINARY_OPS: Record<string, BinaryOp> = {
  Pow: '^',
  Mul: '*',
  Div: '/',
  Mod: '%',
  Atan2: 'atan2',
  Add: '+',
  Sub: '-',
  Eql: '==',
  Neq: '!=',
  Gte: '>=',
  Gtr: '>',
  Lte: '<=',
  Lss: '<',
  TrimUpper: '</',
  TrimLower: '>/',
  And: 'and',
  Or: 'or',
  Unless: 'unless',
};

class Converter extends TreeReader {
  parse(): Expr {
    const { tokens, error } = scanPromql(this.query);
    if (error) throw new ParseError(error.message, { start: error.pos, end: this.query.length });
    if (tokens.length === 1) throw new ParseError('no expression found in input', { start: 0, end: 0 });
    let top: SyntaxNode;
    try {
      top = strictParser.parse(lezerInput(this.query, tokens)).topNode;
    } catch (parseFailure) {
      const match = /No parse at (\d+)/.exec(String((parseFailure as Error).message));
      throw syntaxErrorAt(tokens, match ? Number(match[1]) : 0);
    }
    const root = this.children(top)[0];
    if (!root) throw new ParseError('no expression found in input', { start: 0, end: 0 });
    return this.expr(root);
  }

  expr(node: SyntaxNode): Expr {
    switch (node.name) {
      case 'ParenExpr':
        return { type: 'ParenExpr', expr: this.expr(this.child(node, 0)), pos: this.range(node) };
      case 'StringLiteral':
        return { type: 'StringLiteral', value: this.unquote(node), pos: this.range(node) };
      case 'NumberDurationLiteral':
        return this.numberLiteral(node);
      case 'UnaryExpr':
        return this.unary(node);
      case 'BinaryExpr':
        return this.binary(node);
      case 'FunctionCall':
        return this.call(node);
      case 'AggregateExpr':
        return this.aggregate(node);
      case 'VectorSelector':
        return this.vectorSelector(node);
      case 'MatrixSelector':
        return this.matrixSelector(node);
      case 'SubqueryExpr':
        return this.subquery(node);
      case 'OffsetExpr':
        return this.offset(node);
      case 'StepInvariantExpr':
        return this.at(node);
      case 'AnchoredExpr':
        throw new ParseError('anchored modifier is experimental and not enabled', this.range(node));
      case 'SmoothedExpr':
        throw new ParseError('smoothed modifier is experimental and not enabled', this.range(node));
      default:
        throw new ParseError(`unexpected ${node.name}`, this.range(node));
    }
  }

  private unary(node: SyntaxNode): Expr {
    const [opNode, operand] = this.children(node) as [SyntaxNode, SyntaxNode];
    const op = this.text(opNode) === '-' ? '-' : '+';
    const inner = this.expr(operand);
    if (inner.type === 'NumberLiteral') {
      // Prometheus folds a sign into a literal operand.
      return {
        ...inner,
        value: op === '-' ? -inner.value : inner.value,
        pos: { start: node.from, end: inner.pos.end },
      };
    }
    return { type: 'UnaryExpr', op, expr: inner, pos: this.range(node) };
  }

  private binary(node: SyntaxNode): Expr {
    const parts = this.children(node);
    const lhsNode = parts[0] as SyntaxNode;
    const opNode = parts[1] as SyntaxNode;
    const rhsNode = parts[parts.length - 1] as SyntaxNode;
    const op = BINARY_OPS[opNode.name];
    if (op === undefined)
      throw new ParseError(`binary expression does not support operator "${this.text(opNode)}"`, this.range(opNode));

    const matching: VectorMatching = {
      card: 'one-to-one',
      matchingLabels: [],
      on: false,
      include: [],
      fillLeft: null,
      fillRight: null,
    };
    let returnBool = false;
    for (const modifier of parts.slice(2, -1)) {
      if (modifier.name === 'BoolModifier') returnBool = true;
      else if (modifier.name === 'MatchingModifierClause') this.matchingClause(modifier, matching);
      else if (modifier.name === 'FillModifier') this.fillModifier(modifier, matching);
    }
    const rhs = this.expr(rhsNode);
    const pos = this.range(node);

    const signed = lhsNode.name === 'NumberDurationLiteral' ? /^\s*([+-])/.exec(this.text(lhsNode)) : null;
    if (op === '^' && signed) {
      // `-1 ^ 2` is `-(1 ^ 2)` in PromQL; lezer attached the sign to the literal.
      const literal = this.numberLiteral(lhsNode);
      const unsigned: NumberLiteral = {
        ...literal,
        value: Math.abs(literal.value),
        pos: { start: lhsNode.from + 1, end: lhsNode.to },
      };
      if (Number.isNaN(literal.value)) unsigned.value = literal.value;
      const power: BinaryExpr = {
        type: 'BinaryExpr',
        op,
        lhs: unsigned,
        rhs,
        matching,
        returnBool,
        pos: { start: unsigned.pos.start, end: pos.end },
      };
      return { type: 'UnaryExpr', op: signed[1] as '+' | '-', expr: power, pos };
    }
    const lhs = this.expr(lhsNode);
    return { type: 'BinaryExpr', op, lhs, rhs, matching, returnBool, pos };
  }

  private matchingClause(node: SyntaxNode, matching: VectorMatching): void {
    const parts = this.children(node);
    let seenGroup = false;
    for (const part of parts) {
      switch (part.name) {
        case 'On':
          matching.on = true;
          break;
        case 'Ignoring':
          matching.on = false;
          break;
        case 'GroupLeft':
          matching.card = 'many-to-one';
          seenGroup = true;
          break;
        case 'GroupRight':
          matching.card = 'one-to-many';
          seenGroup = true;
          break;
        case 'GroupingLabels':
          if (seenGroup) matching.include = this.groupingLabels(part);
          else matching.matchingLabels = this.groupingLabels(part);
          break;
      }
    }
  }

  private fillModifier(node: SyntaxNode, matching: VectorMatching): void {
    for (const clause of this.children(node)) {
      const literalNode = clause.getChild('NumberDurationLiteral');
      const value = literalNode ? this.numberLiteral(literalNode).value : 0;
      if (clause.name === 'FillClause') {
        matching.fillLeft = value;
        matching.fillRight = value;
      } else if (clause.name === 'FillLeftClause') matching.fillLeft = value;
      else if (clause.name === 'FillRightClause') matching.fillRight = value;
    }
  }

  private groupingLabels(node: SyntaxNode): string[] {
    const names: string[] = [];
    for (const part of this.children(node)) {
      if (part.name === 'LabelName') names.push(this.text(part));
      else if (part.name === 'QuotedLabelName') {
        const name = this.unquote(this.child(part, 0));
        if (!isValidLabelName(name))
          throw new ParseError(`invalid label name for grouping: ${JSON.stringify(name)}`, this.range(part));
        names.push(name);
      }
    }
    return names;
  }

  private call(node: SyntaxNode): Call {
    const identifier = this.child(node, 0);
    const name = this.text(identifier);
    const func = FUNCTIONS.get(name);
    if (!func) throw new ParseError(`unknown function with name ${JSON.stringify(name)}`, this.range(identifier));
    const body = node.getChild('FunctionCallBody');
    const args = body ? this.children(body).map((arg) => this.expr(arg)) : [];
    return { type: 'Call', func, args, pos: this.range(node) };
  }

  private aggregate(node: SyntaxNode): AggregateExpr {
    const opNode = this.child(node, 0);
    const op = this.text(opNode).toLowerCase();
    if (!isAggregateOp(op))
      throw new ParseError(
        `aggregation operator expected in aggregation expression but got "${op}"`,
        this.range(opNode),
      );
    let grouping: string[] = [];
    let without = false;
    const modifier = node.getChild('AggregateModifier');
    if (modifier) {
      without = modifier.getChild('Without') !== null;
      const labels = modifier.getChild('GroupingLabels');
      grouping = labels ? this.groupingLabels(labels) : [];
    }
    const body = node.getChild('FunctionCallBody');
    const args = body ? this.children(body).map((arg) => this.expr(arg)) : [];
    const pos = this.range(node);
    if (args.length === 0) throw new ParseError('no arguments for aggregate expression provided', pos);
    const aggregateOp = op as AggregateOp;
    const wanted = takesParam(aggregateOp) ? 2 : 1;
    if (args.length !== wanted) {
      throw new ParseError(
        `wrong number of arguments for aggregate expression provided, expected ${wanted}, got ${args.length}`,
        pos,
      );
    }
    return {
      type: 'AggregateExpr',
      op: aggregateOp,
      expr: args[wanted - 1] as Expr,
      param: wanted === 2 ? (args[0] as Expr) : null,
      grouping,
      without,
      pos,
    };
  }

  private vectorSelector(node: SyntaxNode): VectorSelector {
    const identifier = node.getChild('Identifier');
    const name = identifier ? this.text(identifier) : '';
    const matchers: Matcher[] = [];
    const list = node.getChild('LabelMatchers');
    if (list) {
      for (const item of this.children(list)) {
        if (item.name === 'QuotedLabelName') {
          const metric = this.unquote(this.child(item, 0));
          matchers.push(this.matcher(METRIC_NAME, '=', metric, this.range(item)));
          continue;
        }
        const [labelNode, opNode, valueNode] = this.children(item) as [SyntaxNode, SyntaxNode, SyntaxNode];
        const label =
          item.name === 'QuotedLabelMatcher' ? this.unquote(this.child(labelNode, 0)) : this.text(labelNode);
        const op = this.text(opNode) as MatchOp;
        const value = this.unquote(valueNode);
        matchers.push(this.matcher(label, op, value, { start: item.from, end: item.to }));
      }
    }
    if (name !== '') matchers.push({ name: METRIC_NAME, op: '=', value: name });
    return {
      type: 'VectorSelector',
      name,
      matchers,
      offsetMs: 0,
      offsetExpr: null,
      atMs: null,
      startOrEnd: null,
      pos: this.range(node),
    };
  }

  private matcher(name: string, op: MatchOp, value: string, pos: PositionRange): Matcher {
    const matcher: Matcher = { name, op, value };
    if (op === '=~' || op === '!~') {
      try {
        compileMatcher(matcher);
      } catch (error) {
        if (error instanceof GoRegexError) throw new ParseError(error.message, pos);
        throw error;
      }
    }
    return matcher;
  }

  /**
   * lezer gives postfix modifiers (`[range]`, `[range:step]`, `offset`, `@`) no precedence, so
   * `a + b offset 1m` arrives as `(a + b) offset 1m`. In PromQL they bind tightest: the modifier
   * goes to the rightmost operand of an unparenthesised binary or unary expression.
   */
  private postfix(operandNode: SyntaxNode, end: number, apply: (operand: Expr) => Expr): Expr {
    const rotate = (e: Expr): Expr => {
      if (e.type === 'BinaryExpr') return { ...e, rhs: rotate(e.rhs), pos: { start: e.pos.start, end } };
      if (e.type === 'UnaryExpr') return { ...e, expr: rotate(e.expr), pos: { start: e.pos.start, end } };
      return apply(e);
    };
    return rotate(this.expr(operandNode));
  }

  private matrixSelector(node: SyntaxNode): Expr {
    const parts = this.children(node);
    const operandNode = parts[0] as SyntaxNode;
    return this.postfix(operandNode, node.to, (inner) => {
      const bracketRange = { start: this.query.indexOf('[', operandNode.to), end: node.to };
      if (inner.type !== 'VectorSelector')
        throw new ParseError('ranges only allowed for vector selectors', bracketRange);
      if (inner.offsetMs !== 0 || inner.offsetExpr !== null)
        throw new ParseError('no offset modifiers allowed before range', bracketRange);
      if (inner.atMs !== null || inner.startOrEnd !== null)
        throw new ParseError('no @ modifiers allowed before range', bracketRange);
      const range = this.positiveDuration(parts[1] as SyntaxNode);
      const matrix: MatrixSelector = {
        type: 'MatrixSelector',
        selector: inner,
        rangeMs: range.ms,
        rangeExpr: range.expr,
        pos: { start: inner.pos.start, end: node.to },
      };
      return matrix;
    });
  }

  private subquery(node: SyntaxNode): Expr {
    const parts = this.children(node);
    return this.postfix(parts[0] as SyntaxNode, node.to, (inner) => {
      const range = this.positiveDuration(parts[1] as SyntaxNode);
      const step = parts[2] ? this.positiveDuration(parts[2]) : { ms: 0, expr: null };
      const subquery: SubqueryExpr = {
        type: 'SubqueryExpr',
        expr: inner,
        rangeMs: range.ms,
        rangeExpr: range.expr,
        stepMs: step.ms,
        stepExpr: step.expr,
        offsetMs: 0,
        offsetExpr: null,
        atMs: null,
        startOrEnd: null,
        pos: { start: inner.pos.start, end: node.to },
      };
      return subquery;
    });
  }

  private offset(node: SyntaxNode): Expr {
    const parts = this.children(node);
    return this.postfix(parts[0] as SyntaxNode, node.to, (inner) => {
      const duration = this.duration(parts[parts.length - 1] as SyntaxNode);
      const target = modifierTarget(inner);
      if (target === null) {
        throw new ParseError(
          'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery',
          inner.pos,
        );
      }
      if (target.offsetMs !== 0 || target.offsetExpr !== null)
        throw new ParseError('offset may not be set multiple times', inner.pos);
      if (duration.type === 'NumberLiteral') target.offsetMs = secondsToMs(duration.value);
      else target.offsetExpr = duration;
      inner.pos = { start: inner.pos.start, end: node.to };
      return inner;
    });
  }

  private at(node: SyntaxNode): Expr {
    const parts = this.children(node);
    return this.postfix(parts[0] as SyntaxNode, node.to, (inner) => {
      const value = parts[parts.length - 1] as SyntaxNode;
      const target = modifierTarget(inner);
      if (target === null) {
        throw new ParseError(
          '@ modifier must be preceded by an instant vector selector or range vector selector or a subquery',
          inner.pos,
        );
      }
      if (target.atMs !== null || target.startOrEnd !== null)
        throw new ParseError('@ <timestamp> may not be set multiple times', inner.pos);
      if (value.name === 'AtModifierPreprocessors') {
        target.startOrEnd = value.getChild('AtStart') ? 'start' : 'end';
      } else {
        const seconds = this.numberLiteral(value).value;
        if (!Number.isFinite(seconds) || Math.abs(seconds) >= 2 ** 63) {
          throw new ParseError(`timestamp out of bounds for @ modifier: ${formatGoF(seconds)}`, inner.pos);
        }
        target.atMs = Math.round(seconds * 1000);
      }
      inner.pos = { start: inner.pos.start, end: node.to };
      return inner;
    });
  }
}

/**
 * The text handed to lezer, patched where its grammar lacks Prometheus syntax, always keeping
 * every offset (nodes are read back from the original text):
 * - `2.` (a number ending in a point): the point becomes a space;
 * - `min_of(a, b)` / `max_of(a, b)` as functions (lezer knows them only inside durations): the
 *   name becomes `minute`, a function name of the same length; the converter reads the real one.
 * - function names lezer dropped with Prometheus 3 but that Prometheus 2.x and GreptimeDB still
 *   accept (`holt_winters`): likewise a known name of the same length (`STAND_INS`).
 */
const STAND_INS: Record<string, string> = { holt_winters: 'day_of_month' };

function lezerInput(query: string, tokens: Token[]): string {
  let input = query;
  const replace = (at: number, text: string): void => {
    input = `${input.slice(0, at)}${text}${input.slice(at + text.length)}`;
  };
  tokens.forEach((token, i) => {
    if (token.kind === 'number' && token.text.endsWith('.')) replace(token.pos + token.text.length - 1, ' ');
    const name = token.text.toLowerCase();
    if (
      token.kind === 'keyword' &&
      !token.inBrackets &&
      (name === 'min_of' || name === 'max_of') &&
      tokens[i + 1]?.text === '('
    ) {
      replace(token.pos, 'minute');
    }
    // Keywords are case-insensitive in Prometheus (`STEP()`); the grammar knows `step()` and `range()`.
    if (token.kind === 'keyword' && (name === 'step' || name === 'range') && token.text !== name) {
      if (tokens[i + 1]?.text === '(') replace(token.pos, name);
    }
    const standIn = STAND_INS[token.text];
    if (standIn !== undefined && token.kind === 'identifier' && tokens[i + 1]?.text === '(')
      replace(token.pos, standIn);
  });
  return input;
}

/** The node `offset` and `@` attach to: a selector (the matrix's inner one) or a subquery. */
function modifierTarget(expr: Expr): VectorSelector | SubqueryExpr | null {
  if (expr.type === 'VectorSelector' || expr.type === 'SubqueryExpr') return expr;
  if (expr.type === 'MatrixSelector') return expr.selector;
  return null;
}
