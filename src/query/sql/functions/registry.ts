/**
 * Function registry: every SQL function by lower-case name. Plans carry only names, so the router
 * (planning, final aggregation) and the shards (evaluation, partial aggregation) each look the
 * implementation up here. Add a function by writing it in its family file and listing it below.
 */
import { AGGREGATE_FUNCTIONS } from './aggregate.js';
import { GROUPING_FUNCTIONS } from './aggregate-grouping.js';
import { LIST_AGGREGATE_FUNCTIONS } from './aggregate-list.js';
import { NTH_AGGREGATE_FUNCTIONS } from './aggregate-nth.js';
import { ORDERED_AGGREGATE_FUNCTIONS } from './aggregate-ordered.js';
import { PERCENTILE_FUNCTIONS } from './aggregate-percentile.js';
import { REGRESSION_AGGREGATE_FUNCTIONS } from './aggregate-regression.js';
import { SKETCH_FUNCTIONS } from './aggregate-sketch.js';
import { STATS_AGGREGATE_FUNCTIONS } from './aggregate-stats.js';
import { WEIGHTED_PERCENTILE_FUNCTIONS } from './aggregate-weighted-percentile.js';
import { ARRAY_FUNCTIONS } from './array.js';
import { ARRAY_EDIT_FUNCTIONS } from './array-edit.js';
import { ARRAY_EXTRA_FUNCTIONS } from './array-extra.js';
import { ARRAY_SET_FUNCTIONS } from './array-set.js';
import { CONDITIONAL_FUNCTIONS } from './conditional.js';
import { GEOHASH_FUNCTIONS } from './geohash.js';
import { H3_FUNCTIONS } from './h3.js';
import { HASH_ENCODING_FUNCTIONS } from './hash-encoding.js';
import { IP_FUNCTIONS } from './ip.js';
import { JSON_FUNCTIONS } from './json-functions.js';
import { MATH_FUNCTIONS } from './math.js';
import { MATH_EXTRA_FUNCTIONS } from './math-extra.js';
import { MYSQL_STRING_FUNCTIONS } from './mysql-string.js';
import { PG_CATALOG_FUNCTIONS } from './pg-catalog.js';
import { REGEX_FUNCTIONS } from './regex.js';
import { REGEX_OCCURRENCE_FUNCTIONS } from './regex-occurrence.js';
import { S2_FUNCTIONS } from './s2.js';
import { SPATIAL_FUNCTIONS } from './spatial.js';
import { STRING_FUNCTIONS } from './string.js';
import { STRING_EXTRA_FUNCTIONS } from './string-extra.js';
import { SYSTEM_FUNCTIONS } from './system.js';
import { TIME_FUNCTIONS } from './time.js';
import { TIME_CONVERT_FUNCTIONS } from './time-convert.js';
import { TIME_EXTRA_FUNCTIONS } from './time-extra.js';
import { TYPE_FUNCTIONS } from './type-functions.js';
import type { AggregateFunction, ScalarFunction, SqlFunction } from './types.js';
import { VECTOR_FUNCTIONS } from './vector.js';

/** Implementation shapes, re-exported for callers of the registry. */
export type { AggregateFunction, EvalContext, ScalarFunction, Signature, SqlFunction } from './types.js';

const REGISTRY = new Map<string, SqlFunction>();
for (const family of [
  AGGREGATE_FUNCTIONS,
  ORDERED_AGGREGATE_FUNCTIONS,
  LIST_AGGREGATE_FUNCTIONS,
  STATS_AGGREGATE_FUNCTIONS,
  PERCENTILE_FUNCTIONS,
  REGRESSION_AGGREGATE_FUNCTIONS,
  NTH_AGGREGATE_FUNCTIONS,
  WEIGHTED_PERCENTILE_FUNCTIONS,
  GROUPING_FUNCTIONS,
  SKETCH_FUNCTIONS,
  CONDITIONAL_FUNCTIONS,
  MATH_FUNCTIONS,
  MATH_EXTRA_FUNCTIONS,
  STRING_FUNCTIONS,
  STRING_EXTRA_FUNCTIONS,
  HASH_ENCODING_FUNCTIONS,
  IP_FUNCTIONS,
  GEOHASH_FUNCTIONS,
  H3_FUNCTIONS,
  S2_FUNCTIONS,
  SPATIAL_FUNCTIONS,
  VECTOR_FUNCTIONS,
  ARRAY_FUNCTIONS,
  ARRAY_EXTRA_FUNCTIONS,
  ARRAY_SET_FUNCTIONS,
  ARRAY_EDIT_FUNCTIONS,
  MYSQL_STRING_FUNCTIONS,
  REGEX_FUNCTIONS,
  REGEX_OCCURRENCE_FUNCTIONS,
  JSON_FUNCTIONS,
  TIME_FUNCTIONS,
  TIME_CONVERT_FUNCTIONS,
  TIME_EXTRA_FUNCTIONS,
  TYPE_FUNCTIONS,
  SYSTEM_FUNCTIONS,
  PG_CATALOG_FUNCTIONS,
]) {
  for (const [name, fn] of Object.entries(family)) REGISTRY.set(name, fn as SqlFunction);
}

/** The function a SQL name refers to (case-insensitive), if any. */
export function lookupFunction(name: string): SqlFunction | undefined {
  return REGISTRY.get(name.toLowerCase());
}

/** Every registered name, sorted: for docs/sql-functions.md's inventory (scripts/list-sql-functions.mjs). */
export function functionNames(): string[] {
  return [...REGISTRY.keys()].sort();
}

/** True when the name is an aggregate function. */
export function isAggregateName(name: string): boolean {
  return REGISTRY.get(name.toLowerCase())?.kind === 'aggregate';
}

/** An aggregate by its canonical name (as stored in plans). */
export function aggregateFunction(name: string): AggregateFunction {
  const fn = REGISTRY.get(name);
  if (fn?.kind !== 'aggregate') throw new Error(`unknown aggregate function ${name}`);
  return fn;
}

/** A scalar function by its canonical name (as stored in plans). */
export function scalarFunction(name: string): ScalarFunction {
  const fn = REGISTRY.get(name);
  if (fn?.kind !== 'scalar') throw new Error(`unknown scalar function ${name}`);
  return fn;
}
