/**
 * Element-wise arithmetic functions. Each maps one sample value; scalar arguments arrive in
 * `scalarArgs` in call order.
 */

/**
 * Go's math.Max: an infinite argument wins over NaN, which JavaScript's Math.max does not do.
 * clamp relies on it so that clamping NaN to an infinite bound matches Prometheus.
 */
function goMax(a: number, b: number): number {
  if (a === Number.POSITIVE_INFINITY || b === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  return Math.max(a, b);
}

/** Go's math.Min: -Inf wins over NaN. */
function goMin(a: number, b: number): number {
  if (a === Number.NEGATIVE_INFINITY || b === Number.NEGATIVE_INFINITY) return Number.NEGATIVE_INFINITY;
  return Math.min(a, b);
}

export function abs(v: number): number {
  return Math.abs(v);
}

export function ceil(v: number): number {
  return Math.ceil(v);
}

export function floor(v: number): number {
  return Math.floor(v);
}

export function exp(v: number): number {
  return Math.exp(v);
}

/** Natural logarithm. */
export function ln(v: number): number {
  return Math.log(v);
}

export function log2(v: number): number {
  return Math.log2(v);
}

export function log10(v: number): number {
  return Math.log10(v);
}

export function sqrt(v: number): number {
  return Math.sqrt(v);
}

/** -1 for negatives, 1 for positives, and the value itself for zeros and NaN. */
export function sgn(v: number): number {
  if (v < 0) return -1;
  if (v > 0) return 1;
  return v;
}

/**
 * Rounds to the nearest multiple of scalarArgs[0] (default 1), ties upwards. Prometheus divides by
 * the inverse of the multiple because that loses less precision for fractions such as 0.1.
 */
export function round(v: number, scalarArgs: number[]): number {
  const toNearest = scalarArgs.length > 0 ? (scalarArgs[0] as number) : 1;
  const inverse = 1 / toNearest;
  return Math.floor(v * inverse + 0.5) / inverse;
}

/**
 * clamp(v, min, max). Prometheus returns an empty vector when max < min; an element-wise function
 * cannot drop samples, so the registry pairs it with `clampIsEmpty` as its `emptyWhen`.
 */
export function clamp(v: number, scalarArgs: number[]): number {
  return goMax(scalarArgs[0] as number, goMin(scalarArgs[1] as number, v));
}

/** True when clamp(_, min, max) must return no samples at all, i.e. max < min. */
export function clampIsEmpty(scalarArgs: number[]): boolean {
  return (scalarArgs[1] as number) < (scalarArgs[0] as number);
}

export function clampMin(v: number, scalarArgs: number[]): number {
  return goMax(scalarArgs[0] as number, goMin(Number.POSITIVE_INFINITY, v));
}

export function clampMax(v: number, scalarArgs: number[]): number {
  return goMax(Number.NEGATIVE_INFINITY, goMin(scalarArgs[0] as number, v));
}
