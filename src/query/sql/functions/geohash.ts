/**
 * GreptimeDB's geohash functions: `geohash(lat, lng, resolution)` and
 * `geohash_neighbours(lat, lng, resolution)` (the eight cells around, in GreptimeDB's order n, nw,
 * w, sw, s, se, e, ne), plus `wkt_point_from_latlng`. Written here because the encoding is a few lines of bit interleaving; the
 * H3 and S2 families use their libraries (h3.ts, s2.ts).
 */

import { DbError, ErrorCode } from '../../../shared/errors.js';
import { listTypeOf } from '../../../shared/types.js';
import type { Value } from '../types/values.js';
import { typed } from './typed.js';
import type { ScalarFunction } from './types.js';

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

function geoError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, message);
}

function resolutionOf(v: Value): number {
  const r = Number(v);
  if (!(r > 0 && r <= 12)) throw geoError(`Invalid geohash resolution ${r}, expect value: [1, 12]`);
  return r;
}

/** Interleaves longitude and latitude halvings (longitude first), five bits per character. */
function encode(lat: number, lng: number, length: number): string {
  if (!(lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180)) {
    throw geoError('Geohash error: invalid coordinate range');
  }
  const lat0 = [-90, 90];
  const lng0 = [-180, 180];
  let out = '';
  let bits = 0;
  let count = 0;
  let evenBit = true;
  while (out.length < length) {
    const range = evenBit ? lng0 : lat0;
    const value = evenBit ? lng : lat;
    const mid = ((range[0] as number) + (range[1] as number)) / 2;
    bits <<= 1;
    if (value >= mid) {
      bits |= 1;
      range[0] = mid;
    } else {
      range[1] = mid;
    }
    evenBit = !evenBit;
    if (++count === 5) {
      out += BASE32[bits];
      bits = 0;
      count = 0;
    }
  }
  return out;
}

/** The cell's centre and half sizes, by replaying its bits. */
function decode(hash: string): { lat: number; lng: number; latError: number; lngError: number } {
  const lat0 = [-90, 90];
  const lng0 = [-180, 180];
  let evenBit = true;
  for (const ch of hash) {
    const v = BASE32.indexOf(ch);
    for (let bit = 4; bit >= 0; bit--) {
      const range = evenBit ? lng0 : lat0;
      const mid = ((range[0] as number) + (range[1] as number)) / 2;
      if ((v >> bit) & 1) range[0] = mid;
      else range[1] = mid;
      evenBit = !evenBit;
    }
  }
  const [latLow, latHigh] = lat0 as [number, number];
  const [lngLow, lngHigh] = lng0 as [number, number];
  return {
    lat: (latLow + latHigh) / 2,
    lng: (lngLow + lngHigh) / 2,
    latError: (latHigh - latLow) / 2,
    lngError: (lngHigh - lngLow) / 2,
  };
}

/** Steps (latitude, longitude) of the neighbours, in GreptimeDB's order. */
const STEPS: Array<[number, number]> = [
  [1, 0],
  [1, -1],
  [0, -1],
  [-1, -1],
  [-1, 0],
  [-1, 1],
  [0, 1],
  [1, 1],
];

function neighbours(lat: Value, lng: Value, resolution: Value): Value {
  const hash = encode(lat as number, lng as number, resolutionOf(resolution));
  const cell = decode(hash);
  return STEPS.map(([dLat, dLng]) => {
    // Longitude wraps around the antimeridian, as the geohash crate does.
    let x = cell.lng + 2 * cell.lngError * dLng;
    if (x > 180) x -= 360;
    if (x < -180) x += 360;
    return encode(cell.lat + 2 * cell.latError * dLat, x, hash.length);
  });
}

/** Geohash functions by SQL name. */
export const GEOHASH_FUNCTIONS: Record<string, ScalarFunction> = {
  geohash: typed('geohash', ['float', 'float', 'integer'], 0, 'String', (lat, lng, resolution) =>
    encode(lat as number, lng as number, resolutionOf(resolution)),
  ),
  // WKT puts longitude first; numbers print as Rust prints f64 (shortest round-trip form).
  wkt_point_from_latlng: typed(
    'wkt_point_from_latlng',
    ['float', 'float'],
    0,
    'String',
    (lat, lng) => `POINT(${String(lng)} ${String(lat)})`,
  ),
  geohash_neighbours: typed('geohash_neighbours', ['float', 'float', 'integer'], 0, listTypeOf('String'), neighbours),
};
