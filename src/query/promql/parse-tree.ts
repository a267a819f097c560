/**
 * Reading lezer's PromQL tree: node text and positions, string and number literals, and duration
 * expressions (ranges, steps, offsets), with Prometheus' errors for literals it rejects.
 */
import type { SyntaxNode } from '@lezer/common';
import type { DurationExpr, DurationNode, NumberLiteral, PositionRange } from './ast.js';
import { GoSyntaxError, parseDurationMs, parseGoNumber, unquoteGoString } from './go-format.js';
import { ParseError } from './parse-error.js';

const DURATION_OPS: Record<string, DurationExpr['op']> = {
  Pow: '^',
  Mul: '*',
  Div: '/',
  Mod: '%',
  Add: '+',
  Sub: '-',
};

/** Seconds a duration literal may hold before time.Duration (int64 ns) overflows. */
const DURATION_SECONDS_MAX = 2 ** 63 / 1e9;

/** Seconds → whole ms, rounding through nanoseconds as Prometheus' time.Duration does. */
export function secondsToMs(seconds: number): number {
  return Math.trunc(Math.round(seconds * 1e9) / 1e6);
}

export class TreeReader {
  constructor(protected readonly query: string) {}

  protected text(node: SyntaxNode): string {
    return this.query.slice(node.from, node.to);
  }

  protected range(node: SyntaxNode): PositionRange {
    return { start: node.from, end: node.to };
  }

  /** Named children, without `# comments` (lezer keeps skipped comments in the tree). */
  protected children(node: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let child = node.firstChild; child; child = child.nextSibling)
      if (child.name !== 'LineComment') out.push(child);
    return out;
  }

  protected child(node: SyntaxNode, index: number): SyntaxNode {
    const found = this.children(node)[index];
    if (!found) throw new ParseError('unexpected end of input', { start: node.to, end: node.to });
    return found;
  }

  protected unquote(node: SyntaxNode): string {
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
  protected numberLiteral(node: SyntaxNode): NumberLiteral {
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

  protected numberValue(text: string, pos: PositionRange): { value: number; duration: boolean } {
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

  /** A range or step: a literal must be > 0; an expression is checked when evaluated. */
  protected positiveDuration(node: SyntaxNode): { ms: number; expr: DurationExpr | null } {
    const duration = this.duration(node);
    if (duration.type === 'NumberLiteral') {
      if (!(duration.value > 0)) throw new ParseError('duration must be greater than 0', duration.pos);
      return { ms: secondsToMs(duration.value), expr: null };
    }
    return { ms: 0, expr: duration };
  }

  /** DurationExpr / OffsetDurationExpr nodes → a literal when plain, else a DurationExpr. */
  protected duration(node: SyntaxNode): DurationNode {
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
}
