/**
 * VRL's iteration functions, the only ones that take a closure (`f(args) -> |params| { body }`):
 * `for_each`, `map_values`, `map_keys`, `filter`. The interpreter runs the closure through
 * `call`, binding the parameters; like VRL, the closure sees and may assign outer variables.
 */
import type { PipelineRecord, PipelineValue } from '../value.js';
import { deepClone, isObject, kindOf, VrlRuntimeError, type VrlValue } from './values.js';

export interface IterationDef {
  params: { name: string; required: boolean }[];
  /** How many closure parameters the function passes (`|key, value|` is 2). */
  closureParams: number;
  run(args: (VrlValue | undefined)[], call: (params: VrlValue[]) => VrlValue): VrlValue;
}

function container(v: VrlValue | undefined, name: string): PipelineRecord | PipelineValue[] {
  if (isObject(v) || Array.isArray(v)) return v;
  throw new VrlRuntimeError(`${name} needs an object or an array, got ${kindOf(v)}`);
}

function mapValues(v: VrlValue, recursive: boolean, call: (p: VrlValue[]) => VrlValue): VrlValue {
  // Recursive mapping rewrites the children of a container first, then the container itself.
  const inner = (x: VrlValue): VrlValue =>
    recursive && (isObject(x) || Array.isArray(x)) ? call([mapValues(x, true, call)]) : call([x]);
  if (Array.isArray(v)) return v.map((x) => deepClone(inner(x)) as PipelineValue);
  const out: PipelineRecord = {};
  for (const [k, x] of Object.entries(v as PipelineRecord)) out[k] = deepClone(inner(x)) as PipelineValue;
  return out;
}

function mapKeys(v: VrlValue, recursive: boolean, call: (p: VrlValue[]) => VrlValue): PipelineRecord {
  const out: PipelineRecord = {};
  for (const [k, x] of Object.entries(v as PipelineRecord)) {
    const key = call([k]);
    if (typeof key !== 'string')
      throw new VrlRuntimeError(`map_keys: the closure must return a string, got ${kindOf(key)}`);
    out[key] = recursive && isObject(x) ? mapKeys(x, true, call) : x;
  }
  return out;
}

const P = (name: string, required = true) => ({ name, required });

export const ITERATION: Record<string, IterationDef> = {
  for_each: {
    params: [P('value')],
    closureParams: 2,
    run([v], call) {
      const c = container(v, 'for_each');
      const entries: [VrlValue, VrlValue][] = Array.isArray(c) ? c.map((x, i) => [i, x]) : Object.entries(c);
      for (const [k, x] of entries) call([k, x]);
      return null;
    },
  },
  map_values: {
    params: [P('value'), P('recursive', false)],
    closureParams: 1,
    run([v, recursive], call) {
      return mapValues(container(v, 'map_values'), recursive === true, call);
    },
  },
  map_keys: {
    params: [P('value'), P('recursive', false)],
    closureParams: 1,
    run([v, recursive], call) {
      if (!isObject(v)) throw new VrlRuntimeError(`map_keys needs an object, got ${kindOf(v)}`);
      return mapKeys(v, recursive === true, call);
    },
  },
  filter: {
    params: [P('value')],
    closureParams: 2,
    run([v], call) {
      const keep = (k: VrlValue, x: VrlValue): boolean => {
        const r = call([k, x]);
        if (typeof r !== 'boolean')
          throw new VrlRuntimeError(`filter: the closure must return a boolean, got ${kindOf(r)}`);
        return r;
      };
      const c = container(v, 'filter');
      if (Array.isArray(c)) return c.filter((x, i) => keep(i, x));
      const out: PipelineRecord = {};
      for (const [k, x] of Object.entries(c)) if (keep(k, x)) out[k] = x;
      return out;
    },
  },
};
