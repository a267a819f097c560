/**
 * Statements of the SQL conformance corpus (shared/conformance/sql, outside common/tql) that are
 * known not to reproduce GreptimeDB's transcript, keyed `file#statement` (1-based), with the
 * reason. conformance.test.ts fails when a listed statement starts passing (remove it here) or an
 * unlisted one fails. docs/conformance.md explains the reasons.
 */

/** Why a statement does not match, one line each (docs/conformance.md groups by these). */
export const REASONS = {
  todo: 'not analysed yet',
} as const;

/** A reason key. */
export type Reason = keyof typeof REASONS;

/** `file#statement` → reason. */
export const EXPECTED_FAILURES: Record<string, Reason> = {};
