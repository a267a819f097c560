/**
 * A syntax tree in a form that survives structured clone: a `Call` carries its function's name
 * instead of the registry's `FunctionDef` (which holds the function's code). Everything else —
 * matchers, offsets, `@`, durations, source positions — crosses as it is, so a shard evaluating
 * the tree reports annotations at the same `line:col` as the router would.
 */
import type { Expr } from '../ast.js';
import { FUNCTIONS } from '../functions/registry.js';
import { PromqlError } from '../types.js';

/** An `Expr` whose `Call.func` is the function's name. Opaque outside this file. */
export type WireExpr = { readonly wire: 'promql-expr' } & Record<string, unknown>;

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] = key === 'func' ? (field as { name: string }).name : strip(field);
  }
  return out;
}

function restore(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restore);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'func' && typeof field === 'string') {
      const func = FUNCTIONS.get(field);
      if (!func) throw new PromqlError('internal', `unknown function ${field} in a shard plan`);
      out[key] = func;
    } else out[key] = restore(field);
  }
  return out;
}

export function exprToWire(expr: Expr): WireExpr {
  return strip(expr) as WireExpr;
}

export function exprFromWire(wire: WireExpr): Expr {
  return restore(wire) as Expr;
}
