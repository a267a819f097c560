/**
 * Which subtrees the shards can evaluate alone. Series are hash-partitioned by (table, tag set), so
 * every stored series lives whole in one shard: a subtree whose every output series depends on
 * exactly one stored series (and keeps that series' labels) gives the same series in a shard as in
 * the router. Such a subtree is *series-local*:
 *
 *   vector selectors (offset, @), range functions over a range selector or over a subquery of a
 *   series-local expression, element-wise functions of a series-local argument, `timestamp` and
 *   histogram_count/sum/avg/stddev/stdvar,
 *   unary minus, and a binary operation between a series-local side and a scalar that depends on
 *   no series (literals, `time()`, `pi()`, scalar arithmetic of those).
 *
 * Not series-local: aggregations, vector–vector operations, `absent*`, `sort*`, `scalar()`,
 * `vector()`, `histogram_quantile`/`histogram_fraction`, date functions without an argument (one series made from nothing:
 * every shard would make it), and `label_replace`/`label_join`: they rename series and merge
 * those that end up with one label set, which across shards only the router can do (their
 * argument still runs in the shards).
 *
 * An aggregation of a series-local argument runs as partial aggregates per shard when its
 * parameter (if any) depends on no series; `quantile` has no partial form and ships its argument's
 * per-step values instead.
 */
import { type AggregateExpr, type AggregateOp, type Expr, unwrapParens, type VectorSelector } from '../ast.js';

/** How a subtree is evaluated in the shards: per-series step values, or partial aggregates. */
export type PushdownKind = 'step' | 'partial';

/** Aggregations merged from per-shard fold states (count, sum, mean, M2, min, max). */
export const FOLD_OPS: ReadonlySet<AggregateOp> = new Set([
  'sum',
  'avg',
  'count',
  'min',
  'max',
  'group',
  'stddev',
  'stdvar',
]);
/** Aggregations that pick whole series: each shard preselects its candidates. */
export const K_OPS: ReadonlySet<AggregateOp> = new Set(['topk', 'bottomk', 'limitk', 'limit_ratio']);

/**
 * Histogram functions that map each native histogram sample to one float of the same series
 * (histogram_quantile and histogram_fraction are not: they also group classic buckets by `le`).
 */
const PER_HISTOGRAM_FUNCTIONS = new Set([
  'histogram_count',
  'histogram_sum',
  'histogram_avg',
  'histogram_stddev',
  'histogram_stdvar',
]);

/** Scalar functions whose value depends only on the query's time grid. */
const GRID_SCALAR_FUNCTIONS = new Set(['time', 'pi', 'start', 'end', 'range', 'step', 'min_of', 'max_of']);

const localMemo = new WeakMap<Expr, boolean>();

/** A scalar that depends on no series: the same in every shard and in the router. */
export function isSeriesIndependentScalar(expr: Expr): boolean {
  switch (expr.type) {
    case 'NumberLiteral':
      return true;
    case 'ParenExpr':
    case 'UnaryExpr':
      return isSeriesIndependentScalar(expr.expr);
    case 'BinaryExpr':
      return isSeriesIndependentScalar(expr.lhs) && isSeriesIndependentScalar(expr.rhs);
    case 'Call':
      return (
        expr.func.returnType === 'scalar' &&
        GRID_SCALAR_FUNCTIONS.has(expr.func.name) &&
        expr.args.every((a) => isSeriesIndependentScalar(unwrapParens(a)))
      );
    default:
      return false;
  }
}

/** Every output series is computed from one stored series and keeps its label set. */
export function isSeriesLocal(expr: Expr): boolean {
  let local = localMemo.get(expr);
  if (local === undefined) {
    local = computeSeriesLocal(expr);
    localMemo.set(expr, local);
  }
  return local;
}

function computeSeriesLocal(expr: Expr): boolean {
  switch (expr.type) {
    case 'VectorSelector':
      return true;
    case 'ParenExpr':
      return isSeriesLocal(expr.expr);
    case 'UnaryExpr':
      return isSeriesLocal(expr.expr);
    case 'BinaryExpr':
      if (expr.matching !== null) return false;
      return (
        (isSeriesLocal(expr.lhs) && isSeriesIndependentScalar(expr.rhs)) ||
        (isSeriesIndependentScalar(expr.lhs) && isSeriesLocal(expr.rhs))
      );
    case 'Call':
      return isLocalCall(expr);
    default:
      return false;
  }
}

function isLocalRangeArgument(arg: Expr): boolean {
  const inner = unwrapParens(arg);
  if (inner.type === 'MatrixSelector') return true;
  if (inner.type === 'SubqueryExpr') return isSeriesLocal(inner.expr);
  return false;
}

function isLocalCall(call: Extract<Expr, { type: 'Call' }>): boolean {
  const { func, args } = call;
  switch (func.kind) {
    case 'range': {
      const matrixIndex = args.findIndex((a) => {
        const type = unwrapParens(a).type;
        return type === 'MatrixSelector' || type === 'SubqueryExpr';
      });
      if (matrixIndex < 0 || !isLocalRangeArgument(args[matrixIndex] as Expr)) return false;
      return args.every((a, i) => i === matrixIndex || isSeriesIndependentScalar(unwrapParens(a)));
    }
    case 'elementwise':
      if (args.length === 0) return false;
      return (
        isSeriesLocal(unwrapParens(args[0] as Expr)) &&
        args.slice(1).every((a) => isSeriesIndependentScalar(unwrapParens(a)))
      );
    case 'special':
      return (
        (func.name === 'timestamp' || PER_HISTOGRAM_FUNCTIONS.has(func.name)) &&
        isSeriesLocal(unwrapParens(args[0] as Expr))
      );
  }
}

/** Whether an aggregation's parameter allows the partial form. */
function partialParamOk(node: AggregateExpr): boolean {
  if (node.param === null) return true;
  const param = unwrapParens(node.param);
  if (node.op === 'count_values') return param.type === 'StringLiteral';
  return isSeriesIndependentScalar(param);
}

/** How `expr` is evaluated in the shards, or null when the router evaluates it. */
export function pushdownKindOf(expr: Expr): PushdownKind | null {
  if (expr.type === 'AggregateExpr') {
    const partialOp = FOLD_OPS.has(expr.op) || K_OPS.has(expr.op) || expr.op === 'count_values';
    return partialOp && isSeriesLocal(expr.expr) && partialParamOk(expr) ? 'partial' : null;
  }
  return isSeriesLocal(expr) ? 'step' : null;
}

/** The vector selectors of a subtree (range selectors' included), in walk order. */
export function selectorsOf(expr: Expr): VectorSelector[] {
  const out: VectorSelector[] = [];
  const walk = (e: Expr): void => {
    switch (e.type) {
      case 'VectorSelector':
        out.push(e);
        return;
      case 'MatrixSelector':
        out.push(e.selector);
        return;
      case 'AggregateExpr':
        if (e.param) walk(e.param);
        walk(e.expr);
        return;
      case 'BinaryExpr':
        walk(e.lhs);
        walk(e.rhs);
        return;
      case 'Call':
        for (const a of e.args) walk(a);
        return;
      case 'SubqueryExpr':
      case 'ParenExpr':
      case 'UnaryExpr':
        walk(e.expr);
        return;
      default:
        return;
    }
  };
  walk(expr);
  return out;
}
