/** Element-wise trigonometric functions and degree/radian conversion (pi() is the engine's). */

export const sin = (v: number): number => Math.sin(v);
export const cos = (v: number): number => Math.cos(v);
export const tan = (v: number): number => Math.tan(v);
export const asin = (v: number): number => Math.asin(v);
export const acos = (v: number): number => Math.acos(v);
export const atan = (v: number): number => Math.atan(v);
export const sinh = (v: number): number => Math.sinh(v);
export const cosh = (v: number): number => Math.cosh(v);
export const tanh = (v: number): number => Math.tanh(v);
export const asinh = (v: number): number => Math.asinh(v);
export const acosh = (v: number): number => Math.acosh(v);
export const atanh = (v: number): number => Math.atanh(v);

/** Radians to degrees, in Prometheus' operation order so results match to the last bit. */
export const deg = (v: number): number => (v * 180) / Math.PI;

/** Degrees to radians. */
export const rad = (v: number): number => (v * Math.PI) / 180;
