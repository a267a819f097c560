/**
 * PromQL conformance cases (shared/conformance/promql, keyed `file:line` of the `eval` header)
 * that are known not to pass, with the reason. promql.test.ts fails when a listed case passes
 * (remove it here) or an unlisted one fails; every case, core or out of scope (native histograms
 * included), is held to this list. docs/conformance.md groups the reasons.
 */

/** Why a case does not pass, one line each (none today). */
export const REASONS = {} as const;

/** A reason key. */
export type Reason = keyof typeof REASONS;

/** `file:line` → reason. */
export const EXPECTED_FAILURES: Record<string, Reason> = {};

/** Out-of-scope cases that pass today (all of them); the test fails if fewer pass. */
export const OUT_OF_SCOPE_PASSING_MIN = 329;
