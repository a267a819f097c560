/**
 * The window a range function reads (its own module, so that the functions and the registry
 * that lists them do not import each other).
 */
/** Samples of one series inside one step's range window. */
export interface RangeWindow {
  /** The series' whole sample arrays (ms, values; stale markers already removed). */
  t: Float64Array;
  v: Float64Array;
  /** Samples [lo, hi) lie in (rangeStartMs, rangeEndMs]. */
  lo: number;
  hi: number;
  rangeStartMs: number;
  rangeEndMs: number;
  /** Metric name ends _total/_sum/_count/_bucket (for annotations only; may ignore). */
  isCounter: boolean;
  /**
   * The step's evaluation time, which differs from rangeEndMs under `offset` and `@`. Only predict_linear
   * reads it (Prometheus anchors its regression there); when absent, rangeEndMs stands in.
   */
  evalTimeMs?: number;
}
