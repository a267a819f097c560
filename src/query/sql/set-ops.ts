/**
 * UNION [ALL], INTERSECT [ALL] and EXCEPT [ALL] of two materialised results, in the router. Both
 * sides must have the same number of columns; each output column takes the common type of its
 * two inputs and the name of the left one. Without ALL the result is distinct; row order is the
 * left rows then the right rows, each in their own order (first occurrence wins).
 */
import type { DataType } from '../../shared/types.js';
import type { SetOperation } from './ast.js';
import { commonType, planError } from './coercion.js';
import { type Relation, rowsOf } from './relation.js';
import { groupKeyOf } from './shard-exec.js';
import { arrowNameOf } from './type-names.js';
import { castValue, type Value } from './values.js';

function castRows(relation: Relation, types: DataType[]): Value[][] {
  const rows = rowsOf(relation);
  return rows.map((row) =>
    row.map((v, c) => castValue(v, (relation.columns[c] as { type: DataType }).type, types[c] as DataType)),
  );
}

/** Combines two results by a set operation. */
export function combineSet(op: SetOperation['op'], all: boolean, left: Relation, right: Relation): Relation {
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
  const l = castRows(left, types);
  const r = castRows(right, types);
  let rows: Value[][];
  if (op === 'UNION') {
    rows = all ? [...l, ...r] : distinct([...l, ...r]);
  } else {
    const counts = new Map<string, number>();
    for (const row of r) {
      const k = groupKeyOf(row);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    rows = [];
    const emitted = new Set<string>();
    for (const row of l) {
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
  }
  return {
    columns: left.columns.map((c, i) => ({ name: c.name, type: types[i] as DataType, qualifier: [], path: [] })),
    values: types.map((_, c) => rows.map((row) => row[c] as Value)),
    rowCount: rows.length,
  };
}

function distinct(rows: Value[][]): Value[][] {
  const seen = new Set<string>();
  const out: Value[][] = [];
  for (const row of rows) {
    const k = groupKeyOf(row);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(row);
  }
  return out;
}
