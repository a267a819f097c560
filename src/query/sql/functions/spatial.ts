/**
 * GreptimeDB's spatial functions over WKT text, computed by JSTS (the JavaScript port of the JTS
 * topology suite): `st_distance` (planar, in degrees), `st_distance_sphere_m` (great circle between
 * two points, metres), `st_area` (planar, square degrees) and the relations `st_contains`,
 * `st_within`, `st_intersects`. A NULL argument gives NULL; text that is not WKT fails with
 * GreptimeDB's "Fail to parse WKT: ..." (3001).
 *
 * JSTS is loaded on a thread's first spatial call. Its package is ES modules, which cannot be
 * loaded synchronously, and evaluation here is synchronous; its UMD bundle is, so that bundle is
 * evaluated as CommonJS would evaluate it.
 */

import fs from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { typed } from './typed.js';
import type { ScalarFunction } from './types.js';

interface Geometry {
  distance(other: Geometry): number;
  getArea(): number;
  contains(other: Geometry): boolean;
  within(other: Geometry): boolean;
  intersects(other: Geometry): boolean;
  getGeometryType(): string;
  getCoordinate(): { x: number; y: number } | null;
}
interface Jsts {
  io: { WKTReader: new () => { read(text: string): Geometry } };
}

let reader: { read(text: string): Geometry } | null = null;
function wktReader(): { read(text: string): Geometry } {
  if (reader === null) {
    const file = createRequire(import.meta.url).resolve('jsts/dist/jsts.min.js');
    const module = { exports: {} as Jsts };
    const factory = vm.runInThisContext(`(function (exports, module) {${fs.readFileSync(file, 'utf8')}\n})`, {
      filename: file,
    }) as (exports: Jsts, module: { exports: Jsts }) => void;
    factory(module.exports, module);
    reader = new module.exports.io.WKTReader();
  }
  return reader;
}

function geometryOf(text: string): Geometry {
  try {
    return wktReader().read(text);
  } catch (err) {
    throw new DbError(ErrorCode.EngineExecuteQuery, `Fail to parse WKT: ${(err as Error).message ?? err}`);
  }
}

/** The mean earth radius (IUGG), as GreptimeDB's `geo` crate measures great circles with. */
const EARTH_RADIUS_M = 6371008.8;

function haversineMetres(a: { x: number; y: number }, b: { x: number; y: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.y - a.y) * rad;
  const dLng = (b.x - a.x) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.y * rad) * Math.cos(b.y * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(h));
}

function pointOf(g: Geometry): { x: number; y: number } {
  const c = g.getCoordinate();
  if (g.getGeometryType() !== 'Point' || c === null) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      'Great circle distance between non-point objects are not supported for now.',
    );
  }
  return c;
}

const two = (name: string, returnType: 'Float64' | 'Boolean', fn: (a: Geometry, b: Geometry) => number | boolean) =>
  typed(name, ['string', 'string'], 0, returnType, (a, b) => fn(geometryOf(a as string), geometryOf(b as string)));

/** Spatial functions by SQL name. */
export const SPATIAL_FUNCTIONS: Record<string, ScalarFunction> = {
  st_distance: two('st_distance', 'Float64', (a, b) => a.distance(b)),
  st_distance_sphere_m: two('st_distance_sphere_m', 'Float64', (a, b) => haversineMetres(pointOf(a), pointOf(b))),
  st_area: typed('st_area', ['string'], 0, 'Float64', (a) => geometryOf(a as string).getArea()),
  st_contains: two('st_contains', 'Boolean', (a, b) => a.contains(b)),
  st_within: two('st_within', 'Boolean', (a, b) => a.within(b)),
  st_intersects: two('st_intersects', 'Boolean', (a, b) => a.intersects(b)),
};
