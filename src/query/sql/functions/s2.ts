/**
 * GreptimeDB's S2 functions over a port of Google's S2 library (`nodes2ts`): `s2_latlng_to_cell`
 * (the level-30 cell of a point, as UInt64), `s2_cell_level`, `s2_cell_to_token` and
 * `s2_cell_parent`. A cell argument is UInt64 or Int64 (its bits) and is taken as given, as
 * GreptimeDB does; a level must be 0..30. Loaded on a thread's first S2 call, like h3.ts' library.
 */

import { createRequire } from 'node:module';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import { isInteger, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { bindEach } from './typed.js';
import { mapRows, type ScalarFunction } from './types.js';

type S2 = typeof import('nodes2ts');
let loaded: S2 | null = null;
function s2(): S2 {
  loaded ??= createRequire(import.meta.url)('nodes2ts') as S2;
  return loaded;
}

const MAX_LEVEL = 30;

type Param = 'coord' | 'cell' | 'level';

function bindParam(param: Param, t: DataType): DataType | null {
  if (t === 'Null') return param === 'coord' ? 'Float64' : 'Int64';
  if (param === 'coord') return isNumericOrDecimal(t) ? 'Float64' : null;
  if (param === 'cell' && t === 'UInt64') return t;
  return isInteger(t) ? 'Int64' : null;
}

/** A row-wise S2 function; a NULL argument gives NULL. */
function s2Function(
  name: string,
  params: Param[],
  returnType: DataType,
  fn: (...args: Value[]) => Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind: (argTypes) => ({ argTypes: bindEach(name, argTypes, params, bindParam), returnType }),
    evaluate: (args, rowCount) => mapRows(args, rowCount, fn),
  };
}

function cellOf(v: Value): InstanceType<S2['S2CellId']> {
  const id = BigInt.asUintN(64, v as bigint);
  // The zero id has no level at all (every other bit pattern reads as some cell).
  if (id === 0n) throw new DbError(ErrorCode.InvalidArguments, 'Invalid S2 cell id 0');
  return new (s2().S2CellId)(id);
}

function levelOf(v: Value): number {
  const level = Number(v);
  if (!(level >= 0 && level <= MAX_LEVEL)) {
    throw new DbError(ErrorCode.InvalidArguments, `Invalid S2 level ${level}, expect value: [0, ${MAX_LEVEL}]`);
  }
  return level;
}

/** S2 functions by SQL name. */
export const S2_FUNCTIONS: Record<string, ScalarFunction> = {
  s2_latlng_to_cell: s2Function('s2_latlng_to_cell', ['coord', 'coord'], 'UInt64', (lat, lng) => {
    const point = s2().S2LatLng.fromDegrees(Number(lat), Number(lng));
    if (!point.isValid()) throw new DbError(ErrorCode.InvalidArguments, 'The input coordinates are invalid');
    return s2().S2CellId.fromPoint(point.toPoint()).id;
  }),
  s2_cell_level: s2Function('s2_cell_level', ['cell'], 'UInt64', (c) => BigInt(cellOf(c).level())),
  s2_cell_to_token: s2Function('s2_cell_to_token', ['cell'], 'String', (c) => cellOf(c).toToken()),
  s2_cell_parent: s2Function(
    's2_cell_parent',
    ['cell', 'level'],
    'UInt64',
    (c, level) => cellOf(c).parentL(levelOf(level)).id,
  ),
};
