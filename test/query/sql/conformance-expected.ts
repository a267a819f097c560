/**
 * Statements of the SQL conformance corpus (shared/conformance/sql, common/tql included) that are
 * known not to reproduce GreptimeDB's transcript, keyed `file#statement` (1-based), with the
 * reason. conformance.test.ts fails when a listed statement starts passing (remove it here) or an
 * unlisted one fails. docs/conformance.md explains the reasons.
 */

/** Why a statement does not match, one line each (docs/conformance.md groups by these). */
export const REASONS = {
  debugDump: "the error text embeds DataFusion's Rust debug dump of the offending expression",
  signatureList:
    "the error text lists DataFusion's candidate function signatures, which this engine does not reproduce",
  explainText: "EXPLAIN prints this engine's plan (router merge and shard fragment), not DataFusion's",
  answersInstead:
    'GreptimeDB (DataFusion) cannot plan this subquery and fails; this engine runs it and returns the correct rows',
  wireProtocol: 'runs over the PostgreSQL wire protocol, which this server does not listen on',
  tqlEmptyBatch:
    "an empty TQL answer prints its header in GreptimeDB (an empty record batch with a schema); the runner prints every result without rows as '++'",
  tqlNameRegex:
    'GreptimeDB refuses regex matchers on __name__ in TQL; this engine follows Prometheus and selects every matching metric',
} as const;

/** A reason key. */
export type Reason = keyof typeof REASONS;

/** `file#statement` → reason. */
export const EXPECTED_FAILURES: Record<string, Reason> = {
  'order/limit#9': 'debugDump',
  'order/limit#10': 'debugDump',
  'order/order_by_exceptions#10': 'explainText',
  'order/order_by_expressions#12': 'answersInstead',
  'subquery/neumann#10': 'answersInstead',
  'types/timestamp/timestamp#12': 'signatureList',
  'types/timestamp/timestamp#13': 'signatureList',
  'types/timestamp/timestamp#30': 'wireProtocol',
  'tql/basic#8': 'tqlEmptyBatch',
  'tql/basic#10': 'tqlEmptyBatch',
  'tql/basic#13': 'tqlNameRegex',
};
