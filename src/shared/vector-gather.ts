/** Picking rows of a column by index: splitting rows between shards, leaving expired rows out. */
import type { Vector } from './types.js';

/** The rows of `v` at `rows[0..n)`, in that order, as a new vector. */
export function gatherVector(v: Vector, rows: Uint32Array, n: number): Vector {
  let values: Vector['values'];
  if (v.kind === 'str') {
    const src = v.values as Array<string | null>;
    const out = new Array<string | null>(n);
    for (let i = 0; i < n; i++) out[i] = src[rows[i] as number] ?? null;
    values = out;
  } else {
    const src = v.values as Float64Array;
    const out = new (src.constructor as Float64ArrayConstructor)(n);
    for (let i = 0; i < n; i++) out[i] = src[rows[i] as number] as number;
    values = out as Vector['values'];
  }
  let valid: Uint8Array | undefined;
  if (v.valid) {
    valid = new Uint8Array(n);
    for (let i = 0; i < n; i++) valid[i] = v.valid[rows[i] as number] as number;
  }
  return { kind: v.kind, values, valid };
}
