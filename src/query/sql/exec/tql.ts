/**
 * Runs `TQL EVAL|EXPLAIN|ANALYZE` (parse-tql.ts): resolves the time parameters, evaluates the
 * PromQL as a range query over `env.promqlSource`, and answers records named after GreptimeDB's
 * plan (src/query/promql/to-records.ts). EXPLAIN describes the evaluation without running it;
 * ANALYZE runs it and reports what it produced. Both use this engine's own text.
 *
 *   parameters → ms (literal text: seconds / RFC 3339 / duration; expressions: timestamp or
 *   duration in whole seconds) → parsePromql → rangeQuery → promqlToRecords
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import type { Expr as PromqlExpr } from '../../promql/ast.js';
import { unwrapParens } from '../../promql/ast.js';
import { formatPromql, parsePromql, rangeQuery } from '../../promql/engine.js';
import {
  checkPointsPerSeries,
  PROMQL_LIMITS_DEFAULT,
  type PromqlLimits,
  TOO_MANY_SAMPLES,
} from '../../promql/limits.js';
import { parseDurationParamMs, parseTimeMs } from '../../promql/time-params.js';
import { promqlToRecords } from '../../promql/to-records.js';
import { PromqlError, type QueryResult, type SampleSource } from '../../promql/types.js';
import { type StatementResult, stringRecords } from '../../result.js';
import type { EvalContext } from '../functions/types.js';
import type { Statement, TqlParameter } from '../parse/ast.js';
import { Binder } from '../plan/binder.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import { evaluateConstant } from '../plan/eval.js';
import { planError } from '../types/coercion.js';

type TqlStatement = Extract<Statement, { kind: 'tql' }>;

/** Prometheus' default lookback delta. */
const DEFAULT_LOOKBACK_MS = 5 * 60 * 1000;
/** Units per second of each timestamp and duration type. */
const UNITS_PER_SECOND: Partial<Record<DataType, bigint>> = {
  TimestampSecond: 1n,
  TimestampMillisecond: 1_000n,
  TimestampMicrosecond: 1_000_000n,
  TimestampNanosecond: 1_000_000_000n,
  DurationSecond: 1n,
  DurationMillisecond: 1_000n,
  DurationMicrosecond: 1_000_000n,
  DurationNanosecond: 1_000_000_000n,
};

/** Prometheus' `<line>:<col>: parse error: ` prefix; GreptimeDB's parser reports the bare text. */
const PARSE_ERROR_PREFIX = /^\d+:\d+: parse error: /;

/**
 * The SQL error for a PromQL failure: parse errors get `parseCode` (2000 for TQL, 1004 for
 * /v1/pql), execution errors 3000, timeouts and cancellations their codes.
 */
export function promqlSqlError(err: unknown, parseCode: number): unknown {
  if (!(err instanceof PromqlError)) return err;
  switch (err.errorType) {
    case 'bad_data':
      return new DbError(parseCode, err.message.replace(PARSE_ERROR_PREFIX, ''));
    case 'execution':
      // Past the sample bound is exhausted resources, not a bad plan.
      if (err.message === TOO_MANY_SAMPLES) return new DbError(ErrorCode.RuntimeResourcesExhausted, err.message);
      return new DbError(ErrorCode.PlanQuery, err.message);
    case 'timeout':
      return new DbError(ErrorCode.DeadlineExceeded, err.message);
    case 'canceled':
      return new DbError(ErrorCode.Cancelled, err.message);
    case 'internal':
      return new DbError(ErrorCode.Internal, err.message);
  }
}

/** A parameter expression evaluated to whole seconds, as GreptimeDB's parser does. */
function expressionSeconds(parameter: Extract<TqlParameter, { kind: 'expr' }>, session: SqlSession, ctx: EvalContext) {
  const binder = new Binder({
    scope: null,
    timezone: session.timezone,
    aggregateError: (name) => planError(`Aggregate function ${name} is not allowed in TQL parameters`),
  });
  const bound = binder.bind(parameter.expr);
  const value = evaluateConstant(bound, ctx);
  const perSecond = UNITS_PER_SECOND[bound.type];
  if (perSecond === undefined || typeof value !== 'bigint') {
    throw new DbError(ErrorCode.InvalidArguments, `Failed to extract a timestamp value ${String(value)}`);
  }
  // Rust's integer division truncates toward zero.
  return Number(value / perSecond);
}

function timeMs(parameter: TqlParameter, what: string, session: SqlSession, ctx: EvalContext): number {
  if (parameter.kind === 'expr') return expressionSeconds(parameter, session, ctx) * 1000;
  try {
    return parseTimeMs(parameter.text);
  } catch (err) {
    throw new DbError(ErrorCode.InvalidArguments, `Invalid TQL ${what}: ${(err as Error).message}`);
  }
}

function durationMs(parameter: TqlParameter, what: string, session: SqlSession, ctx: EvalContext): number {
  if (parameter.kind === 'expr') return expressionSeconds(parameter, session, ctx) * 1000;
  try {
    return Math.round(parseDurationParamMs(parameter.text));
  } catch (err) {
    throw new DbError(ErrorCode.InvalidArguments, `Invalid TQL ${what}: ${(err as Error).message}`);
  }
}

/** The evaluation grid and lookback of a statement. */
interface TqlRange {
  startMs: number;
  endMs: number;
  stepMs: number;
  lookbackMs: number;
}

/**
 * Prometheus' range checks (as PromqlErrors, so each caller reports them its own way), with the
 * configured `query.max_points_per_series` as `query_range` has it.
 */
function checkRange(startMs: number, endMs: number, stepMs: number, limits: PromqlLimits): void {
  if (!(stepMs > 0)) {
    throw new PromqlError(
      'bad_data',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  }
  if (!(endMs >= startMs)) throw new PromqlError('bad_data', 'end timestamp must not be before start time');
  checkPointsPerSeries(startMs, endMs, stepMs, limits.maxPointsPerSeries);
}

function rangeOf(statement: TqlStatement, session: SqlSession, ctx: EvalContext, limits: PromqlLimits): TqlRange {
  const startMs = timeMs(statement.start, 'start', session, ctx);
  const endMs = timeMs(statement.end, 'end', session, ctx);
  const stepMs = durationMs(statement.step, 'step', session, ctx);
  const lookbackMs = statement.lookback
    ? durationMs(statement.lookback, 'lookback', session, ctx)
    : DEFAULT_LOOKBACK_MS;
  try {
    checkRange(startMs, endMs, stepMs, limits);
  } catch (err) {
    throw promqlSqlError(err, ErrorCode.InvalidArguments);
  }
  if (!(lookbackMs > 0)) throw new DbError(ErrorCode.InvalidArguments, 'lookback delta must be positive');
  return { startMs, endMs, stepMs, lookbackMs };
}

/** Step times of a range, start to end inclusive. */
export function stepTimes(startMs: number, endMs: number, stepMs: number): number[] {
  const times: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) times.push(t);
  return times;
}

/** Everything needed to evaluate one PromQL range query into records. */
export interface RangeRecordsRequest {
  expr: PromqlExpr;
  query: string;
  startMs: number;
  endMs: number;
  stepMs: number;
  lookbackMs: number;
  env: Pick<SqlEnv, 'getTable' | 'listTables'>;
  source: SampleSource;
  db: string;
  alias: string | null;
  signal?: AbortSignal | undefined;
  /** `[query]` limits; the source should carry the same ones. */
  limits: PromqlLimits;
}

/**
 * Evaluates a range query and converts the answer. A string literal is answered at every step
 * (GreptimeDB does; Prometheus refuses strings in range queries).
 */
export async function rangeRecords(request: RangeRecordsRequest): Promise<StatementResult> {
  checkRange(request.startMs, request.endMs, request.stepMs, request.limits);
  const times = stepTimes(request.startMs, request.endMs, request.stepMs);
  const inner = unwrapParens(request.expr);
  let result: QueryResult;
  if (inner.type === 'StringLiteral') {
    result = { resultType: 'string', t: request.startMs, v: inner.value };
  } else {
    result = await rangeQuery(request.query, request.startMs, request.endMs, request.stepMs, {
      source: request.source,
      lookbackDeltaMs: request.lookbackMs,
      signal: request.signal,
      limits: request.limits,
    });
  }
  return promqlToRecords(request.expr, result, { catalog: request.env, db: request.db, alias: request.alias }, times);
}

function parse(query: string): PromqlExpr {
  try {
    return parsePromql(query);
  } catch (err) {
    throw promqlSqlError(err, ErrorCode.InvalidSyntax);
  }
}

function explainText(statement: TqlStatement, expr: PromqlExpr, range: TqlRange): string {
  return [
    `PromQL range query: start=${range.startMs}ms, end=${range.endMs}ms, step=${range.stepMs}ms, lookback=${range.lookbackMs}ms`,
    ...formatPromql(expr)
      .split('\n')
      .map((line) => `  ${line}`),
    `  (records: ${statement.alias ? `value as ${statement.alias.value}` : 'named after the metric table'})`,
  ].join('\n');
}

/** Executes a TQL statement in `session.db`. */
export async function executeTql(
  statement: TqlStatement,
  session: SqlSession,
  env: SqlEnv,
  ctx: EvalContext,
): Promise<StatementResult> {
  const limits = session.promqlLimits ?? PROMQL_LIMITS_DEFAULT;
  const range = rangeOf(statement, session, ctx, limits);
  const expr = parse(statement.query);
  if (statement.mode === 'explain') {
    return stringRecords(['plan_type', 'plan'], [['logical_plan', explainText(statement, expr, range)]]);
  }
  if (!env.promqlSource) throw new DbError(ErrorCode.Unsupported, 'TQL is not supported in this environment');
  const started = performance.now();
  let records: StatementResult;
  try {
    records = await rangeRecords({
      expr,
      query: statement.query,
      ...range,
      env,
      source: env.promqlSource(session.db),
      db: session.db,
      // GreptimeDB names the column exactly as written, quoted or not.
      alias: statement.alias ? statement.alias.value : null,
      signal: session.signal,
      limits,
    });
  } catch (err) {
    throw promqlSqlError(err, ErrorCode.InvalidSyntax);
  }
  if (statement.mode === 'eval') return records;
  const rows = records.kind === 'records' ? records.rows.length : 0;
  const elapsedMs = (performance.now() - started).toFixed(3);
  return stringRecords(
    ['plan_type', 'plan'],
    [
      ['logical_plan', explainText(statement, expr, range)],
      ['analyze', `output_rows: ${rows}, elapsed: ${elapsedMs}ms`],
    ],
  );
}
