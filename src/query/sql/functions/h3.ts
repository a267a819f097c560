/**
 * GreptimeDB's H3 functions (`h3_*`) over Uber's H3 library (`h3-js`). Cells come back as UInt64,
 * as in GreptimeDB; a cell argument may be UInt64, Int64 (its bits) or the hex string. Resolutions,
 * positions and distances are integers read GreptimeDB's way (a resolution as its low byte, so -1
 * is 255 and out of range). Errors are code 3001 "H3 error: ...". A NULL argument gives NULL,
 * except that `h3_cells_contains` with no cell list answers false, as GreptimeDB's does.
 *
 * h3-js is half a megabyte of compiled C that most servers never call, so each thread loads it on
 * its first H3 call (synchronously, through `require`: evaluation here is synchronous).
 */

import { createRequire } from 'node:module';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, listItemTypeOf, listTypeOf } from '../../../shared/types.js';
import { isInteger, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { bindEach } from './typed.js';
import type { ScalarFunction } from './types.js';

type H3 = typeof import('h3-js');
let loaded: H3 | null = null;
function h3(): H3 {
  loaded ??= createRequire(import.meta.url)('h3-js') as H3;
  return loaded;
}

function h3Error(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `H3 error: ${message}`);
}

/** Runs an h3-js call, its thrown errors as GreptimeDB's. */
function guarded<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    if (err instanceof DbError) throw err;
    // h3-js appends "(code: N)"; the reason is the part worth showing.
    throw h3Error(String((err as Error).message ?? err).replace(/ \(code: \d+\)$/, ''));
  }
}

/** What each parameter accepts: a cell, coordinates, small integers, or a list of cells. */
type Param = 'cell' | 'coord' | 'int' | 'cells';

function bindParam(param: Param, t: DataType): DataType | null {
  if (t === 'Null') return param === 'coord' ? 'Float64' : param === 'cells' ? 'String' : 'Int64';
  switch (param) {
    case 'cell':
      if (t === 'UInt64' || t === 'String') return t;
      return isInteger(t) ? 'Int64' : null;
    case 'coord':
      return isNumericOrDecimal(t) ? 'Float64' : null;
    case 'int':
      return isInteger(t) ? 'Int64' : null;
    case 'cells': {
      if (t === 'String') return t;
      const item = listItemTypeOf(t);
      if (item === 'UInt64' || item === 'String') return t;
      return item !== null && isInteger(item) ? listTypeOf('Int64') : null;
    }
  }
}

/**
 * A row-wise H3 function. Without `nullsIn`, a NULL argument gives NULL; the implementation gets
 * each argument as the binder cast it.
 */
function h3Function(
  name: string,
  params: Param[],
  returnType: DataType,
  fn: (args: Value[]) => Value,
  nullsIn = false,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind: (argTypes) => ({ argTypes: bindEach(name, argTypes, params, bindParam), returnType }),
    evaluate(args, rowCount) {
      const out = new Array<Value>(rowCount);
      const row = new Array<Value>(args.length);
      for (let r = 0; r < rowCount; r++) {
        let anyNull = false;
        for (let i = 0; i < args.length; i++) {
          const v = (args[i] as Value[])[r] as Value;
          row[i] = v;
          if (v === null) anyNull = true;
        }
        out[r] = anyNull && !nullsIn ? null : fn(row);
      }
      return out;
    },
  };
}

/** A cell argument (UInt64, Int64 bits or hex text) as h3-js' hex index, checked. */
function cellOf(v: Value): string {
  const hex = typeof v === 'string' ? v.toLowerCase() : BigInt.asUintN(64, v as bigint).toString(16);
  if (!h3().isValidCell(hex)) throw h3Error(`invalid cell index ${typeof v === 'string' ? JSON.stringify(v) : v}`);
  return hex;
}

function cellNumber(hex: string): bigint {
  return BigInt(`0x${hex}`);
}

/** GreptimeDB takes a resolution's low byte (`v as u8`); H3 has 0..15. */
function resolutionOf(v: Value): number {
  const r = Number(BigInt.asUintN(8, BigInt(v as bigint | number)));
  if (r > 15) throw h3Error(`invalid resolution (got Some(${r})): out of range`);
  return r;
}

/** A grid distance or child position: never negative. */
function nonNegative(v: Value, what: string): number {
  const n = Number(v);
  if (n < 0) throw new DbError(ErrorCode.InvalidArguments, `Invalid ${what}: ${n}, expected a non-negative value`);
  return n;
}

function latLngOf(lat: Value, lng: Value): [number, number] {
  return [Number(lat), Number(lng)];
}

function latLngToCell([lat, lng, res]: Value[]): string {
  const r = resolutionOf(res as Value);
  return guarded(() => h3().latLngToCell(...latLngOf(lat as Value, lng as Value), r));
}

/** The cells of a list or of comma-separated text (`h3_cells_contains`'s first argument). */
function cellsOf(v: Value): string[] {
  if (v === null) return [];
  if (typeof v === 'string') return v.split(',').map((s) => cellOf(s.trim()));
  return (v as Value[]).map((item) => cellOf(typeof item === 'string' ? item.trim() : item));
}

const CELL_LIST: DataType = listTypeOf('UInt64');

/** H3 functions by SQL name. */
export const H3_FUNCTIONS: Record<string, ScalarFunction> = {
  h3_latlng_to_cell: h3Function('h3_latlng_to_cell', ['coord', 'coord', 'int'], 'UInt64', (a) =>
    cellNumber(latLngToCell(a)),
  ),
  h3_latlng_to_cell_string: h3Function('h3_latlng_to_cell_string', ['coord', 'coord', 'int'], 'String', latLngToCell),
  h3_cell_to_string: h3Function('h3_cell_to_string', ['cell'], 'String', ([c]) => cellOf(c as Value)),
  h3_string_to_cell: h3Function('h3_string_to_cell', ['cell'], 'UInt64', ([c]) => cellNumber(cellOf(c as Value))),
  h3_cell_center_latlng: h3Function('h3_cell_center_latlng', ['cell'], listTypeOf('Float64'), ([c]) =>
    h3().cellToLatLng(cellOf(c as Value)),
  ),
  h3_cell_resolution: h3Function('h3_cell_resolution', ['cell'], 'UInt8', ([c]) =>
    h3().getResolution(cellOf(c as Value)),
  ),
  h3_cell_base: h3Function('h3_cell_base', ['cell'], 'UInt8', ([c]) => h3().getBaseCellNumber(cellOf(c as Value))),
  h3_cell_is_pentagon: h3Function('h3_cell_is_pentagon', ['cell'], 'Boolean', ([c]) =>
    h3().isPentagon(cellOf(c as Value)),
  ),
  // A parent must be coarser, a centre child finer, than the cell: else NULL.
  h3_cell_parent: h3Function('h3_cell_parent', ['cell', 'int'], 'UInt64', ([c, res]) => {
    const cell = cellOf(c as Value);
    const r = resolutionOf(res as Value);
    return r > h3().getResolution(cell) ? null : cellNumber(h3().cellToParent(cell, r));
  }),
  h3_cell_center_child: h3Function('h3_cell_center_child', ['cell', 'int'], 'UInt64', ([c, res]) => {
    const cell = cellOf(c as Value);
    const r = resolutionOf(res as Value);
    return r < h3().getResolution(cell) ? null : cellNumber(h3().cellToCenterChild(cell, r));
  }),
  h3_cell_to_children: h3Function('h3_cell_to_children', ['cell', 'int'], CELL_LIST, ([c, res]) => {
    const cell = cellOf(c as Value);
    const r = resolutionOf(res as Value);
    return r < h3().getResolution(cell) ? [] : h3().cellToChildren(cell, r).map(cellNumber);
  }),
  h3_cell_to_children_size: h3Function('h3_cell_to_children_size', ['cell', 'int'], 'UInt64', ([c, res]) => {
    const cell = cellOf(c as Value);
    const r = resolutionOf(res as Value);
    return r < h3().getResolution(cell) ? 0n : BigInt(h3().cellToChildrenSize(cell, r));
  }),
  h3_cell_to_child_pos: h3Function('h3_cell_to_child_pos', ['cell', 'int'], 'UInt64', ([c, res]) => {
    const cell = cellOf(c as Value);
    const r = resolutionOf(res as Value);
    return r > h3().getResolution(cell) ? null : BigInt(h3().cellToChildPos(cell, r));
  }),
  h3_child_pos_to_cell: h3Function('h3_child_pos_to_cell', ['int', 'cell', 'int'], 'UInt64', ([pos, c, res]) => {
    const position = nonNegative(pos as Value, 'position');
    const cell = cellOf(c as Value);
    const r = resolutionOf(res as Value);
    // No such child (position past the last, or a resolution coarser than the cell's): NULL.
    try {
      return cellNumber(h3().childPosToCell(position, cell, r));
    } catch {
      return null;
    }
  }),
  h3_grid_disk: h3Function('h3_grid_disk', ['cell', 'int'], CELL_LIST, ([c, k]) =>
    guarded(() =>
      h3()
        .gridDisk(cellOf(c as Value), nonNegative(k as Value, 'distance'))
        .map(cellNumber),
    ),
  ),
  // Every cell of the disk, nearest rings first (the distances themselves are not returned).
  h3_grid_disk_distances: h3Function('h3_grid_disk_distances', ['cell', 'int'], CELL_LIST, ([c, k]) =>
    guarded(() =>
      h3()
        .gridDiskDistances(cellOf(c as Value), nonNegative(k as Value, 'distance'))
        .flat()
        .map(cellNumber),
    ),
  ),
  h3_grid_distance: h3Function('h3_grid_distance', ['cell', 'cell'], 'Int32', ([a, b]) =>
    guarded(() => h3().gridDistance(cellOf(a as Value), cellOf(b as Value))),
  ),
  h3_grid_path_cells: h3Function('h3_grid_path_cells', ['cell', 'cell'], CELL_LIST, ([a, b]) =>
    guarded(() =>
      h3()
        .gridPathCells(cellOf(a as Value), cellOf(b as Value))
        .map(cellNumber),
    ),
  ),
  // Whether a listed cell is the cell itself or one of its ancestors.
  h3_cells_contains: h3Function(
    'h3_cells_contains',
    ['cells', 'cell'],
    'Boolean',
    ([list, c]) => {
      if (c === null) return null;
      const cell = cellOf(c as Value);
      const resolution = h3().getResolution(cell);
      return cellsOf(list as Value).some((candidate) => {
        const r = h3().getResolution(candidate);
        return r <= resolution && h3().cellToParent(cell, r) === candidate;
      });
    },
    true,
  ),
  // Between the cells' centres: great-circle kilometres (H3's earth radius), or plain degrees.
  h3_distance_sphere_km: h3Function('h3_distance_sphere_km', ['cell', 'cell'], 'Float64', ([a, b]) =>
    h3().greatCircleDistance(h3().cellToLatLng(cellOf(a as Value)), h3().cellToLatLng(cellOf(b as Value)), 'km'),
  ),
  h3_distance_degree: h3Function('h3_distance_degree', ['cell', 'cell'], 'Float64', ([a, b]) => {
    const [lat1, lng1] = h3().cellToLatLng(cellOf(a as Value));
    const [lat2, lng2] = h3().cellToLatLng(cellOf(b as Value));
    return Math.sqrt((lat1 - lat2) ** 2 + (lng1 - lng2) ** 2);
  }),
};
