/**
 * What both forms of a Loki push decode to: streams of entries, each entry with its exact
 * nanosecond timestamp, its line and its structured metadata. Labels and metadata keep the order
 * they were sent in; `to-inserts.ts` decides column order.
 */

/** One log line of a stream. */
export interface LokiEntry {
  /** Nanoseconds since the epoch, within int64. */
  timestampNs: bigint;
  line: string;
  /** Structured metadata name/value pairs; a repeated name keeps its last value. */
  metadata: Array<[string, string]>;
}

/** One stream: its label set and its entries. */
export interface LokiStream {
  /** Label name/value pairs; names are unique. */
  labels: Array<[string, string]>;
  entries: LokiEntry[];
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Whether a nanosecond timestamp fits the TimestampNanosecond column (int64). */
export function timestampNsInRange(ns: bigint): boolean {
  return ns >= INT64_MIN && ns <= INT64_MAX;
}
