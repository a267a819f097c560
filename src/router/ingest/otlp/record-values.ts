/**
 * Checks and conversions shared by the trace and log mappings: id lengths, nanosecond times that
 * must fit the signed 64-bit time index, and the ISO-8601 text of span event times.
 */

/** Largest nanosecond time a TIMESTAMP(9) column holds (2262-04-11). */
export const TIME_NANOS_MAX = 2n ** 63n - 1n;

/** Byte lengths of OTLP ids. */
export const TRACE_ID_BYTES = 16;
export const SPAN_ID_BYTES = 8;

/**
 * Why an id is unusable, or null when it is fine: empty when `optional`, else exactly `bytes`
 * long. Lengths are checked here because the protobuf decoder accepts any `bytes` value.
 */
export function idProblem(id: Uint8Array, bytes: number, what: string, optional: boolean): string | null {
  if (id.length === 0) return optional ? null : `${what} is empty`;
  if (id.length !== bytes) return `${what} must be ${bytes} bytes, got ${id.length}`;
  return null;
}

/** The nanosecond time as an i64, or null when it does not fit the time index. */
export function timeNanosOrNull(nanos: bigint): bigint | null {
  return nanos >= 0n && nanos <= TIME_NANOS_MAX ? nanos : null;
}

/** `2023-11-14T22:13:20.123456789Z`: RFC 3339 / ISO-8601 in UTC with all nine fraction digits. */
export function isoNanos(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0');
  const date = new Date(Number(seconds) * 1000).toISOString(); // yyyy-mm-ddThh:mm:ss.000Z
  return `${date.slice(0, 19)}.${fraction}Z`;
}
