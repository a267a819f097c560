/**
 * One SQL value (see values.ts for which JS type holds which SQL type). On its own so that modules
 * values.ts depends on (display, decimal, time-of-day) can name it without importing values.ts.
 */
export type Value = null | boolean | number | bigint | string | Value[];
