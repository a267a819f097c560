/**
 * Canonical PromQL text, following Prometheus' `promql/parser/printer.go` (`Expr.String()`) and
 * `prettier.go` (`Pretty`, which `/api/v1/format_query` returns): nodes longer than 100
 * characters are split over indented lines, two spaces per level.
 */

import type {
  AggregateExpr,
  BinaryExpr,
  DurationNode,
  Expr,
  SubqueryExpr,
  TimeModifiers,
  VectorSelector,
} from './ast.js';
import { formatDurationMs, formatFloatF } from './go-format.js';
import { formatLabelName, goQuote, METRIC_NAME } from './labels.js';
import { formatMatcher } from './matchers.js';

const MAX_CHARACTERS_PER_LINE = 100;

/** `Expr.String()`: the expression on one line. */
export function exprToString(expr: Expr): string {
  switch (expr.type) {
    case 'AggregateExpr': {
      const param = expr.param ? `${exprToString(expr.param)}, ` : '';
      return `${aggregateHead(expr)}(${param}${exprToString(expr.expr)})`;
    }
    case 'BinaryExpr':
      return `${exprToString(expr.lhs)} ${expr.op}${expr.returnBool ? ' bool' : ''}${matchingText(expr)} ${exprToString(expr.rhs)}`;
    case 'Call':
      return `${expr.func.name}(${expr.args.map(exprToString).join(', ')})`;
    case 'MatrixSelector': {
      const inner = selectorText({ ...expr.selector, offsetMs: 0, offsetExpr: null, atMs: null, startOrEnd: null });
      const range = expr.rangeExpr ? durationText(expr.rangeExpr) : formatDurationMs(expr.rangeMs);
      return `${inner}[${range}]${atText(expr.selector)}${offsetText(expr.selector)}`;
    }
    case 'SubqueryExpr':
      return `${exprToString(expr.expr)}${subquerySuffix(expr)}`;
    case 'NumberLiteral':
      return numberText(expr.value, expr.duration);
    case 'ParenExpr':
      return `(${exprToString(expr.expr)})`;
    case 'StringLiteral':
      return goQuote(expr.value);
    case 'UnaryExpr':
      return `${expr.op}${exprToString(expr.expr)}`;
    case 'VectorSelector':
      return selectorText(expr);
  }
}

function numberText(value: number, duration: boolean): string {
  if (duration) {
    const ms = Math.round(value * 1000);
    return ms < 0 ? `-${formatDurationMs(-ms)}` : formatDurationMs(ms);
  }
  return formatFloatF(value);
}

function aggregateHead(expr: AggregateExpr): string {
  if (expr.without) return `${expr.op} without (${expr.grouping.map(formatLabelName).join(', ')}) `;
  if (expr.grouping.length > 0) return `${expr.op} by (${expr.grouping.map(formatLabelName).join(', ')}) `;
  return expr.op;
}

function matchingText(expr: BinaryExpr): string {
  const m = expr.matching;
  if (m === null) return '';
  let out = '';
  const grouped = m.card === 'many-to-one' || m.card === 'one-to-many';
  if (m.matchingLabels.length > 0 || m.on || grouped) {
    out += ` ${m.on ? 'on' : 'ignoring'} (${m.matchingLabels.map(formatLabelName).join(', ')})`;
  }
  if (grouped) {
    out += ` group_${m.card === 'many-to-one' ? 'left' : 'right'} (${m.include.map(formatLabelName).join(', ')})`;
  }
  if (m.fillLeft !== null || m.fillRight !== null) {
    if (m.fillLeft !== null && m.fillRight !== null && m.fillLeft === m.fillRight)
      out += ` fill (${formatFloatF(m.fillLeft)})`;
    else {
      if (m.fillLeft !== null) out += ` fill_left (${formatFloatF(m.fillLeft)})`;
      if (m.fillRight !== null) out += ` fill_right (${formatFloatF(m.fillRight)})`;
    }
  }
  return out;
}

/** Duration expressions print with spaces around operators and their own parentheses. */
export function durationText(node: DurationNode): string {
  if (node.type === 'NumberLiteral') return numberText(node.value, node.duration);
  let out: string;
  switch (node.op) {
    case 'step':
      out = 'step()';
      break;
    case 'range':
      out = 'range()';
      break;
    case 'min_of':
    case 'max_of':
      out = `${node.op}(${durationText(node.lhs as DurationNode)}, ${durationText(node.rhs as DurationNode)})`;
      break;
    default:
      if (node.lhs === null)
        out = node.op === '-' ? `-${durationText(node.rhs as DurationNode)}` : durationText(node.rhs as DurationNode);
      else out = `${durationText(node.lhs)} ${node.op} ${durationText(node.rhs as DurationNode)}`;
  }
  return node.wrapped ? `(${out})` : out;
}

function offsetText(m: TimeModifiers): string {
  if (m.offsetExpr) return ` offset ${durationText(m.offsetExpr)}`;
  if (m.offsetMs > 0) return ` offset ${formatDurationMs(m.offsetMs)}`;
  if (m.offsetMs < 0) return ` offset -${formatDurationMs(-m.offsetMs)}`;
  return '';
}

function atText(m: TimeModifiers): string {
  if (m.atMs !== null) return ` @ ${(m.atMs / 1000).toFixed(3)}`;
  if (m.startOrEnd !== null) return ` @ ${m.startOrEnd}()`;
  return '';
}

function selectorText(s: VectorSelector): string {
  const shown = s.matchers.filter(
    (m) => !(m.name === METRIC_NAME && m.op === '=' && m.value === s.name && m.value !== ''),
  );
  const parts = shown.map(formatMatcher).sort();
  const braces = parts.length > 0 ? `{${parts.join(',')}}` : '';
  return `${s.name}${braces}${atText(s)}${offsetText(s)}`;
}

function subquerySuffix(expr: SubqueryExpr): string {
  const step = expr.stepMs !== 0 ? formatDurationMs(expr.stepMs) : expr.stepExpr ? durationText(expr.stepExpr) : '';
  const range = expr.rangeExpr ? durationText(expr.rangeExpr) : formatDurationMs(expr.rangeMs);
  return `[${range}:${step}]${atText(expr)}${offsetText(expr)}`;
}

const indent = (level: number): string => '  '.repeat(level);

/** Prometheus' `Pretty(level)`: the `format_query` text; `lineLimit` is 100 there. */
export function prettify(expr: Expr, lineLimit = MAX_CHARACTERS_PER_LINE): string {
  const needsSplit = (e: Expr): boolean => exprToString(e).length > lineLimit;
  const pretty = (e: Expr, level: number): string => {
    switch (e.type) {
      case 'AggregateExpr': {
        if (!needsSplit(e)) return indent(level) + exprToString(e);
        let out = `${indent(level)}${aggregateHead(e)}(\n`;
        if (e.param) out += `${pretty(e.param, level + 1)},\n`;
        return `${out}${pretty(e.expr, level + 1)}\n${indent(level)})`;
      }
      case 'BinaryExpr': {
        if (!needsSplit(e)) return indent(level) + exprToString(e);
        const modifiers = `${e.returnBool ? ' bool' : ''}${matchingText(e)}`;
        return `${pretty(e.lhs, level + 1)}\n${indent(level)}${e.op}${modifiers}\n${pretty(e.rhs, level + 1)}`;
      }
      case 'Call':
        if (!needsSplit(e)) return indent(level) + exprToString(e);
        return `${indent(level)}${e.func.name}(\n${e.args.map((a) => pretty(a, level + 1)).join(',\n')}\n${indent(level)})`;
      case 'ParenExpr':
        if (!needsSplit(e)) return indent(level) + exprToString(e);
        return `${indent(level)}(\n${pretty(e.expr, level + 1)}\n${indent(level)})`;
      case 'SubqueryExpr':
        if (!needsSplit(e)) return exprToString(e);
        return `${pretty(e.expr, level)}${subquerySuffix(e)}`;
      case 'UnaryExpr':
        return `${indent(level)}${e.op}${pretty(e.expr, level).trim()}`;
      default:
        return indent(level) + exprToString(e);
    }
  };
  return pretty(expr, 0);
}
