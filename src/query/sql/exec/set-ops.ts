/**
 * UNION [ALL], INTERSECT [ALL] and EXCEPT [ALL] of two materialised results, in the router. Both
 * sides must have the same number of columns; each output column takes the common type of its
 * two inputs and the name of the left one. Without ALL the result is distinct; row order is the
 * left rows then the right rows, each in their own order (first occurrence wins).
 *
 * Both sides can be large and this runs on the router's event loop, so every loop over rows
 * checks the query's time slice.
 */
import type { TimeSlice } from '../../../shared/time-slice.js';
import type { DataType } from '../../../shared/types.js';
import type { SetOperation } from '../parse/ast.js';
import type { Relation } from '../plan/relation.js';
import { commonType, planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import { castValue, type Value } from '../types/values.js';
import { groupKeyOf } from './shard-exec.js';

/** The relation's rows (row-major), each value cast to `types`. */
async function castRows(relation: Relation, types: DataType[], slice: TimeSlice): Promise<Value[][]> {
  const from = relation.columns.map((c) => c.type);
  const rows = new Array<Value[]>(relation.rowCount);
  for (let r = 0; r < relation.rowCount; r++) {
    rows[r] = relation.values.map((col, c) => castValue(col[r] as Value, from[c] as DataType, types[c] as DataType));
    if (slice.tick()) await slice.next();
  }
  return rows;
}

/** Combines two results by a set operation. */
export async function combineSet(
  op: SetOperation['op'],
  all: boolean,
  left: Relation,
  right: Relation,
  slice: TimeSlice,
): Promise<Relation> {
  if (left.columns.length !== right.columns.length) {
    throw planError(`${op} queries have different number of columns`);
  }
  const types = left.columns.map((c, i) => {
    const other = (right.columns[i] as { type: DataType }).type;
    const t = commonType([c.type, other]);
    if (t === null) {
      throw planError(`${op} column ${i} has incompatible types: ${arrowNameOf(c.type)} and ${arrowNameOf(other)}`);
    }
    return t === 'Null' ? 'Null' : t;
  });
  const l = await castRows(left, types, slice);
  const r = await castRows(right, types, slice);
  const rows =
    op === 'UNION'
      ? all
        ? l.concat(r)
        : await distinct([l, r], slice)
      : await intersectOrExcept(op, all, l, r, slice);
  return {
    columns: left.columns.map((c, i) => ({ name: c.name, type: types[i] as DataType, qualifier: [], path: [] })),
    values: await columnsOf(rows, types.length, slice),
    rowCount: rows.length,
  };
}

/** The rows of `parts`, in order, without repeats (first occurrence wins). */
async function distinct(parts: Value[][][], slice: TimeSlice): Promise<Value[][]> {
  const seen = new Set<string>();
  const out: Value[][] = [];
  for (const rows of parts) {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as Value[];
      const k = groupKeyOf(row);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(row);
      }
      if (slice.tick()) await slice.next();
    }
  }
  return out;
}

/** INTERSECT / EXCEPT [ALL]: left rows kept by how often they occur on the right. */
async function intersectOrExcept(
  op: 'INTERSECT' | 'EXCEPT',
  all: boolean,
  l: Value[][],
  r: Value[][],
  slice: TimeSlice,
): Promise<Value[][]> {
  const counts = new Map<string, number>();
  for (let i = 0; i < r.length; i++) {
    const k = groupKeyOf(r[i] as Value[]);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    if (slice.tick()) await slice.next();
  }
  const rows: Value[][] = [];
  const emitted = new Set<string>();
  for (let i = 0; i < l.length; i++) {
    if (slice.tick()) await slice.next();
    const row = l[i] as Value[];
    const k = groupKeyOf(row);
    const n = counts.get(k) ?? 0;
    const keep = op === 'INTERSECT' ? n > 0 : n === 0 || (all && n <= 0);
    if (all) {
      if (op === 'INTERSECT' && n > 0) {
        rows.push(row);
        counts.set(k, n - 1);
      } else if (op === 'EXCEPT') {
        if (n > 0) counts.set(k, n - 1);
        else rows.push(row);
      }
    } else if (keep && !emitted.has(k)) {
      emitted.add(k);
      rows.push(row);
    }
  }
  return rows;
}

/** Row-major rows to `width` columns. */
async function columnsOf(rows: Value[][], width: number, slice: TimeSlice): Promise<Value[][]> {
  const columns: Value[][] = [];
  for (let c = 0; c < width; c++) {
    const column = new Array<Value>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      column[r] = (rows[r] as Value[])[c] as Value;
      if (slice.tick()) await slice.next();
    }
    columns.push(column);
  }
  return columns;
}
