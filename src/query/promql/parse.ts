/**
 * PromQL text → typed AST. The lezer grammar (@prometheus-io/lezer-promql) does the syntax; this
 * module turns its tree into ast.ts nodes, applying what Prometheus' yacc actions do
 * (offset/@ placement, number and duration literals, unary folding, aggregation arity) and
 * then the type checker (check.ts). Errors carry Prometheus' wording and a `line:col` position:
 * `1:9: parse error: unexpected <op:*>`.
 *
 * Quirk: lezer lexes `-1 ^ 2` with `-1` as one literal, while PromQL means `-(1 ^ 2)`; a power
 * whose left side is a signed literal is rebuilt as a unary operation (see convertBinary).
 */

import type { SyntaxNode } from '@lezer/common';
import { parser as lezerParser } from '@prometheus-io/lezer-promql';
import type {
  AggregateExpr,
  AggregateOp,
  BinaryExpr,
  BinaryOp,
  Call,
  DurationExpr,
  DurationNode,
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
import { GoSyntaxError, parseDurationMs, unquoteGoString } from './go-format.js';
import { isValidLabelName, METRIC_NAME } from './labels.js';
import { describeToken, scanPromql, type Token } from './lexer.js';
import { compileMatcher } from './matchers.js';
import { ParseError, positionText } from './parse-error.js';
import { fixPrecedence } from './precedence.js';
import { GoRegexError } from './regex.js';
import { type Matcher, type MatchOp, PromqlError } from './types.js';

function toPromqlError(query: string, error: ParseError): PromqlError {
  return new PromqlError('bad_data', `${positionText(query, error.pos.start)}: parse error: ${error.message}`);
}

const strictParser = lezerParser.configure({ strict: true });

/** Parses and type-checks a PromQL expression; throws PromqlError('bad_data') on any error. */
export function parseExpr(query: string): Expr {
  try {
    const expr = fixPrecedence(new Converter(query).parse());
    checkExpr(expr, query);
    return expr;
  } catch (error) {
    if (error instanceof ParseError) throw toPromqlError(query, error);
    throw error;
  }
}

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
  And: 'and',
  Or: 'or',
  Unless: 'unless',
};

const DURATION_OPS: Record<string, DurationExpr['op']> = {
  Pow: '^',
  Mul: '*',
  Div: '/',
  Mod: '%',
  Add: '+',
  Sub: '-',
};

/** Keywords followed by a parenthesised label list. */
const GROUPING_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/** Whether token `index` sits inside the `(...)` of a grouping keyword (`by (a, b)`). */
function inGrouping(tokens: Token[], index: number): boolean {
  for (let i = index - 1; i >= 1; i--) {
    const t = tokens[i] as Token;
    if (t.text === ')') return false;
    if (t.text === '(') {
      const before = tokens[i - 1] as Token;
      return before.kind === 'keyword' && GROUPING_KEYWORDS.has(before.text.toLowerCase());
    }
    if (
      t.kind !== 'identifier' &&
      t.kind !== 'string' &&
      t.text !== ',' &&
      t.kind !== 'keyword' &&
      t.kind !== 'aggregator' &&
      t.kind !== 'operator'
    ) {
      return false;
    }
  }
  return false;
}

/** Seconds a duration literal may hold before time.Duration (int64 ns) overflows. */
const DURATION_SECONDS_MAX = 2 ** 63 / 1e9;

class Converter {
  constructor(private readonly query: string) {}

  parse(): Expr {
    const { tokens, error } = scanPromql(this.query);
    if (error) throw new ParseError(error.message, { start: error.pos, end: this.query.length });
    if (tokens.length === 1) throw new ParseError('no expression found in input', { start: 0, end: 0 });
    let top: SyntaxNode;
    try {
      top = strictParser.parse(lezerInput(this.query, tokens)).topNode;
    } catch (parseFailure) {
      const match = /No parse at (\d+)/.exec(String((parseFailure as Error).message));
      throw this.syntaxError(tokens, match ? Number(match[1]) : 0);
    }
    const root = this.children(top)[0];
    if (!root) throw new ParseError('no expression found in input', { start: 0, end: 0 });
    return this.expr(root);
  }

  /** Prometheus-style message for where lezer stopped. */
  private syntaxError(tokens: Token[], offset: number): ParseError {
    let index = tokens.findIndex((t) => t.pos + Math.max(t.text.length, 1) > offset);
    if (index < 0) index = tokens.length - 1;
    // Durations the lexer took but Prometheus' duration parser rejects (`5m1h`, `5y1hs`).
    for (const t of tokens.slice(0, index + 1)) {
      if (t.kind !== 'duration') continue;
      try {
        parseDurationMs(t.text);
      } catch (error) {
        if (error instanceof GoSyntaxError) return new ParseError(error.message, this.tokenRange(t));
        throw error;
      }
    }
    const token = tokens[index] as Token;
    const previous = index > 0 ? (tokens[index - 1] as Token) : null;
    // An unknown function name shows up as a failure at the "(" after it.
    if (token.text === '(' && previous?.kind === 'identifier' && !previous.inBraces && !FUNCTIONS.has(previous.text)) {
      return new ParseError(`unknown function with name ${JSON.stringify(previous.text)}`, this.tokenRange(previous));
    }
    if (token.text === ')' && previous?.text === ',' && !token.inBraces && !inGrouping(tokens, index)) {
      return new ParseError('trailing commas not allowed in function call args', this.tokenRange(previous));
    }
    return new ParseError(`unexpected ${describeToken(token)}${this.context(tokens, index)}`, this.tokenRange(token));
  }

  /** The " in <context>, expected <what>" tail Prometheus adds for some grammar positions. */
  private context(tokens: Token[], index: number): string {
    const token = tokens[index] as Token;
    const previous = index > 0 ? (tokens[index - 1] as Token) : null;
    if (previous === null) return '';
    if (token.inBraces) {
      if (previous.text === '{' || previous.text === ',') return ' in label matching, expected identifier or "}"';
      if (previous.kind === 'identifier') return ' in label matching, expected label matching operator';
      if (previous.text === '=' || previous.text === '!=' || previous.text === '=~' || previous.text === '!~') {
        return ' in label matching, expected string';
      }
      if (previous.kind === 'string') return ' in label matching, expected "," or "}"';
      return '';
    }
    if (inGrouping(tokens, index)) {
      if (previous.text === '(' || previous.text === ',') return ' in grouping opts, expected label';
      return ' in grouping opts, expected "," or ")"';
    }
    if (previous.kind === 'keyword' && previous.text.toLowerCase() === 'offset') {
      return ' in offset, expected number, duration, step(), or range()';
    }
    if (previous.text === '@') return ' in @, expected timestamp';
    const rangeStart = ' in subquery or range selector, expected number, duration, step(), or range()';
    if (previous.text === '[') return rangeStart;
    if (token.inBrackets && previous.kind === 'keyword' && tokens[index - 2]?.text === '[') return rangeStart;
    if (token.inBrackets && previous.text === ':') {
      return ' in subquery selector, expected number, duration, step(), range(), or "]"';
    }
    if (token.inBrackets && (previous.kind === 'duration' || previous.kind === 'number' || previous.text === ')')) {
      return ' in subquery or range, expected ":" or "]"';
    }
    const keyword = previous.text.toLowerCase();
    if (previous.kind === 'keyword' && GROUPING_KEYWORDS.has(keyword)) return ' in grouping opts, expected "("';
    return '';
  }

  private tokenRange(token: Token): PositionRange {
    return { start: token.pos, end: token.pos + token.text.length };
  }

  private text(node: SyntaxNode): string {
    return this.query.slice(node.from, node.to);
  }

  private range(node: SyntaxNode): PositionRange {
    return { start: node.from, end: node.to };
  }

  /** Named children, without `# comments` (lezer keeps skipped comments in the tree). */
  private children(node: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let child = node.firstChild; child; child = child.nextSibling)
      if (child.name !== 'LineComment') out.push(child);
    return out;
  }

  private child(node: SyntaxNode, index: number): SyntaxNode {
    const found = this.children(node)[index];
    if (!found) throw new ParseError('unexpected end of input', { start: node.to, end: node.to });
    return found;
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

  private unquote(node: SyntaxNode): string {
    const raw = this.text(node);
    try {
      return unquoteGoString(raw);
    } catch (error) {
      if (error instanceof GoSyntaxError) {
        throw new ParseError(`error unquoting string ${JSON.stringify(raw)}: ${error.message}`, this.range(node));
      }
      throw error;
    }
  }

  /** A number or duration literal, possibly signed (`-1`, `+Inf`, `- 5m`). */
  private numberLiteral(node: SyntaxNode): NumberLiteral {
    const raw = this.text(node).trim();
    let sign = 1;
    let body = raw;
    if (body.startsWith('-') || body.startsWith('+')) {
      sign = body.startsWith('-') ? -1 : 1;
      body = body.slice(1).trim();
    }
    const { value, duration } = this.numberValue(body, this.range(node));
    return { type: 'NumberLiteral', value: sign * value, duration, pos: this.range(node) };
  }

  private numberValue(text: string, pos: PositionRange): { value: number; duration: boolean } {
    const lower = text.toLowerCase();
    if (lower === 'inf') return { value: Number.POSITIVE_INFINITY, duration: false };
    if (lower === 'nan') return { value: Number.NaN, duration: false };
    if (/^\d+(?:ms|[smhdwy])/.test(text) && !/^0[xX]/.test(text)) {
      try {
        return { value: parseDurationMs(text) / 1000, duration: true };
      } catch (error) {
        if (error instanceof GoSyntaxError) throw new ParseError(error.message, pos);
        throw error;
      }
    }
    const value = parseGoNumber(text);
    if (value === null) {
      throw new ParseError(`error parsing number: strconv.ParseFloat: parsing "${text}": invalid syntax`, pos);
    }
    if (!Number.isFinite(value) && !Number.isNaN(value)) {
      throw new ParseError(`error parsing number: strconv.ParseFloat: parsing "${text}": value out of range`, pos);
    }
    return { value, duration: false };
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

  /** A range or step: a literal must be > 0; an expression is checked when evaluated. */
  private positiveDuration(node: SyntaxNode): { ms: number; expr: DurationExpr | null } {
    const duration = this.duration(node);
    if (duration.type === 'NumberLiteral') {
      if (!(duration.value > 0)) throw new ParseError('duration must be greater than 0', duration.pos);
      return { ms: secondsToMs(duration.value), expr: null };
    }
    return { ms: 0, expr: duration };
  }

  /** DurationExpr / OffsetDurationExpr nodes → a literal when plain, else a DurationExpr. */
  private duration(node: SyntaxNode): DurationNode {
    const parts = this.children(node);
    const first = parts[0];
    if (!first) throw new ParseError('expected number literal or duration expression', this.range(node));
    const pos = this.range(node);
    if (first.name === 'NumberDurationLiteralInDurationContext') {
      const { value, duration } = this.numberValue(this.text(first), this.range(first));
      if (value > DURATION_SECONDS_MAX || value < -DURATION_SECONDS_MAX)
        throw new ParseError('duration out of range', pos);
      return { type: 'NumberLiteral', value, duration, pos };
    }
    if (first.name === 'UnaryOp') {
      const operand = this.duration(parts[1] as SyntaxNode);
      const op = this.text(first) === '-' ? '-' : '+';
      if (operand.type === 'NumberLiteral') {
        const value = op === '-' ? -operand.value : operand.value;
        if (value > DURATION_SECONDS_MAX || value < -DURATION_SECONDS_MAX)
          throw new ParseError('duration out of range', this.range(first));
        return { ...operand, value, pos };
      }
      if (op === '+') return operand;
      return { type: 'DurationExpr', op: '-', lhs: null, rhs: operand, wrapped: false, pos };
    }
    if (first.name === 'DurationStep' || first.name === 'DurationRange') {
      return {
        type: 'DurationExpr',
        op: first.name === 'DurationStep' ? 'step' : 'range',
        lhs: null,
        rhs: null,
        wrapped: false,
        pos,
      };
    }
    if (first.name === 'DurationMinOf' || first.name === 'DurationMaxOf') {
      return {
        type: 'DurationExpr',
        op: first.name === 'DurationMinOf' ? 'min_of' : 'max_of',
        lhs: this.duration(parts[1] as SyntaxNode),
        rhs: this.duration(parts[2] as SyntaxNode),
        wrapped: false,
        pos,
      };
    }
    if (parts.length === 1) {
      // A parenthesised duration: keep the parentheses for printing.
      const inner = this.duration(first);
      if (inner.type === 'DurationExpr') return { ...inner, wrapped: true, pos };
      return { type: 'DurationExpr', op: '+', lhs: null, rhs: inner, wrapped: true, pos };
    }
    const opNode = parts[1] as SyntaxNode;
    const op = DURATION_OPS[opNode.name];
    if (op === undefined) throw new ParseError('expected number literal or duration expression', this.range(opNode));
    const lhs = this.duration(first);
    const rhs = this.duration(parts[2] as SyntaxNode);
    if ((op === '/' || op === '%') && rhs.type === 'NumberLiteral' && rhs.value === 0) {
      throw new ParseError(op === '/' ? 'division by zero' : 'modulo by zero', this.range(opNode));
    }
    return { type: 'DurationExpr', op, lhs, rhs, wrapped: false, pos };
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

/** Seconds → whole ms, rounding through nanoseconds as Prometheus' time.Duration does. */
function secondsToMs(seconds: number): number {
  return Math.trunc(Math.round(seconds * 1e9) / 1e6);
}

/** Go `%f` for the out-of-bounds @ message. */
function formatGoF(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return v.toFixed(6);
}

/**
 * Go's number parsing for PromQL literals: `strconv.ParseInt(s, 0, 64)` first (so `0x1f`, `0o17`,
 * `010` octal, `0b101`, `1_000`), then `strconv.ParseFloat`. Null when neither accepts it.
 */
export function parseGoNumber(text: string): number | null {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  const digits = body.replace(/_/g, '');
  const underscoresOk = !/(^_|__|_$|\._|_\.|[eE]_|_[eE])/.test(body);
  if (underscoresOk) {
    if (/^0[xX](?:_?[0-9a-fA-F])+$/.test(body)) return sign * Number.parseInt(digits.slice(2), 16);
    if (/^0[oO](?:_?[0-7])+$/.test(body)) return sign * Number.parseInt(digits.slice(2), 8);
    if (/^0[bB](?:_?[01])+$/.test(body)) return sign * Number.parseInt(digits.slice(2), 2);
    if (/^0(?:_?[0-7])+$/.test(body)) return sign * Number.parseInt(digits.slice(1), 8);
    if (/^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(digits)) return sign * Number(digits);
  }
  const lower = body.toLowerCase();
  if (lower === 'inf' || lower === 'infinity') return sign * Number.POSITIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  return null;
}
