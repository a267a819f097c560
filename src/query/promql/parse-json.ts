/**
 * The `/api/v1/parse_query` tree, in the shape of Prometheus' `web/api/v1/translate_ast.go`:
 * `{"type":"vectorSelector","name":"up","matchers":[{"name":"__name__","value":"up","type":"="}],...}`.
 * Durations are milliseconds, number values are strings (Go's 'f' formatting), `timestamp` is
 * the `@` time in ms or null, `startOrEnd` is "start"/"end" or null.
 */

import type { DurationNode, Expr, VectorMatching } from './ast.js';
import { formatFloatF } from './go-format.js';
import type { Matcher } from './types.js';

const CARDINALITY_NAMES: Record<VectorMatching['card'], string> = {
  'one-to-one': 'one-to-one',
  'many-to-one': 'many-to-one',
  'one-to-many': 'one-to-many',
  'many-to-many': 'many-to-many',
};

function matchersJson(matchers: readonly Matcher[]): unknown[] {
  return matchers.map((m) => ({ name: m.name, value: m.value, type: m.op }));
}

function durationJson(node: DurationNode | null): unknown {
  if (node === null) return null;
  if (node.type === 'NumberLiteral')
    return { type: 'numberLiteral', val: formatFloatF(node.value), duration: node.duration };
  return {
    type: 'durationExpr',
    op: node.op,
    lhs: durationJson(node.lhs),
    rhs: durationJson(node.rhs),
    wrapped: node.wrapped,
  };
}

/** The JSON-ready tree for one expression. */
export function exprToJson(expr: Expr): unknown {
  switch (expr.type) {
    case 'AggregateExpr':
      return {
        type: 'aggregation',
        op: expr.op,
        expr: exprToJson(expr.expr),
        param: expr.param ? exprToJson(expr.param) : null,
        grouping: [...expr.grouping],
        without: expr.without,
      };
    case 'BinaryExpr': {
      const m = expr.matching;
      return {
        type: 'binaryExpr',
        op: expr.op,
        lhs: exprToJson(expr.lhs),
        rhs: exprToJson(expr.rhs),
        matching:
          m === null
            ? null
            : {
                card: CARDINALITY_NAMES[m.card],
                labels: [...m.matchingLabels],
                on: m.on,
                include: [...m.include],
                fillValues: { lhs: m.fillLeft, rhs: m.fillRight },
              },
        bool: expr.returnBool,
      };
    }
    case 'Call':
      return {
        type: 'call',
        func: {
          name: expr.func.name,
          argTypes: [...expr.func.argTypes],
          variadic: expr.func.variadic,
          returnType: expr.func.returnType,
        },
        args: expr.args.map(exprToJson),
      };
    case 'MatrixSelector': {
      const s = expr.selector;
      return {
        type: 'matrixSelector',
        name: s.name,
        range: expr.rangeMs,
        rangeExpr: durationJson(expr.rangeExpr),
        offset: s.offsetMs,
        offsetExpr: durationJson(s.offsetExpr),
        matchers: matchersJson(s.matchers),
        timestamp: s.atMs,
        startOrEnd: s.startOrEnd,
        anchored: false,
        smoothed: false,
      };
    }
    case 'SubqueryExpr':
      return {
        type: 'subquery',
        expr: exprToJson(expr.expr),
        range: expr.rangeMs,
        rangeExpr: durationJson(expr.rangeExpr),
        offset: expr.offsetMs,
        offsetExpr: durationJson(expr.offsetExpr),
        step: expr.stepMs,
        stepExpr: durationJson(expr.stepExpr),
        timestamp: expr.atMs,
        startOrEnd: expr.startOrEnd,
      };
    case 'NumberLiteral':
      return { type: 'numberLiteral', val: formatFloatF(expr.value) };
    case 'ParenExpr':
      return { type: 'parenExpr', expr: exprToJson(expr.expr) };
    case 'StringLiteral':
      return { type: 'stringLiteral', val: expr.value };
    case 'UnaryExpr':
      return { type: 'unaryExpr', op: expr.op, expr: exprToJson(expr.expr) };
    case 'VectorSelector':
      return {
        type: 'vectorSelector',
        name: expr.name,
        offset: expr.offsetMs,
        offsetExpr: durationJson(expr.offsetExpr),
        matchers: matchersJson(expr.matchers),
        timestamp: expr.atMs,
        startOrEnd: expr.startOrEnd,
        anchored: false,
        smoothed: false,
      };
  }
}
