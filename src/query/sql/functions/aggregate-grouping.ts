/**
 * `grouping(x, …)`: DataFusion's bit per argument, 1 when the argument is not grouped in the
 * result row's grouping set (the first argument is the highest bit). It is an aggregate by name
 * only, so that it makes a query an aggregate one and is refused where aggregates are: the
 * aggregate planner (plan/grouping-sets.ts) replaces each call with a value of the row's grouping
 * set before anything runs, so no state is ever made, folded or finished.
 */
import { Internal } from '../../../shared/errors.js';
import { planError } from '../types/coercion.js';
import type { AggregateFunction } from './types.js';

function unplanned(): never {
  throw new Internal('grouping() reached execution: the aggregate planner resolves it');
}

const grouping: AggregateFunction<never> = {
  kind: 'aggregate',
  name: 'grouping',
  bind: (argTypes) => {
    if (argTypes.length === 0) throw planError('grouping does not support zero arguments.');
    return { argTypes, returnType: 'Int32' };
  },
  create: unplanned,
  update: unplanned,
  merge: unplanned,
  finish: unplanned,
};

/** The grouping function, by name. */
export const GROUPING_FUNCTIONS: Record<string, AggregateFunction> = { grouping };
