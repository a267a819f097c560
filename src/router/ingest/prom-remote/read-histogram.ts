/**
 * A native histogram sample as a remote read `prometheus.Histogram` (field numbers in
 * shared/proto/prometheus.ts). The engine's sparse buckets become spans again; a histogram
 * written as an integer histogram goes out as one (`count_int`, deltas), any other as a float
 * histogram (`count_float`, absolute counts).
 */
import type protobuf from 'protobufjs';
import type { Buckets, CounterResetHint, FloatHistogram } from '../../../query/promql/histogram/float-histogram.js';

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;

function tag(field: number, wireType: number): number {
  return (field << 3) | wireType;
}

const HINT_NUMBERS: Record<CounterResetHint, number> = { unknown: 0, reset: 1, not_reset: 2, gauge: 3 };

/** Whether every count is a whole number (an integer histogram's always are). */
export function isWhole(h: FloatHistogram): boolean {
  const whole = (x: number): boolean => Number.isSafeInteger(x) && x >= 0;
  return whole(h.count) && whole(h.zeroCount) && h.positive.count.every(whole) && h.negative.count.every(whole);
}

/** Spans (field `spanField`) and buckets (deltas or counts) of one side. */
function writeSide(w: protobuf.Writer, b: Buckets, spanField: number, integer: boolean): void {
  let previousEnd = 0;
  let k = 0;
  while (k < b.index.length) {
    const first = b.index[k] as number;
    let length = 1;
    while (k + length < b.index.length && (b.index[k + length] as number) === first + length) length++;
    w.uint32(tag(spanField, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, VARINT)).sint32(k === 0 ? first : first - previousEnd);
    w.uint32(tag(2, VARINT)).uint32(length);
    w.ldelim();
    previousEnd = first + length;
    k += length;
  }
  if (b.index.length === 0) return;
  // Packed: deltas (sint64) in field spanField + 1, counts (double) in spanField + 2.
  w.uint32(tag(integer ? spanField + 1 : spanField + 2, LENGTH_DELIMITED)).fork();
  let previous = 0;
  for (const c of b.count) {
    if (integer) {
      w.sint64(c - previous);
      previous = c;
    } else w.double(c);
  }
  w.ldelim();
}

/** Writes `h` at `timestampMs` as a Histogram message in field `field` of the open message. */
export function writeHistogram(
  w: protobuf.Writer,
  field: number,
  timestampMs: number,
  h: FloatHistogram,
  writtenAsInteger: boolean,
): void {
  const integer = writtenAsInteger && isWhole(h);
  w.uint32(tag(field, LENGTH_DELIMITED)).fork();
  if (integer) w.uint32(tag(1, VARINT)).uint64(h.count);
  else w.uint32(tag(2, FIXED64)).double(h.count);
  w.uint32(tag(3, FIXED64)).double(h.sum);
  w.uint32(tag(4, VARINT)).sint32(h.schema);
  w.uint32(tag(5, FIXED64)).double(h.zeroThreshold);
  if (integer) w.uint32(tag(6, VARINT)).uint64(h.zeroCount);
  else w.uint32(tag(7, FIXED64)).double(h.zeroCount);
  writeSide(w, h.negative, 8, integer);
  writeSide(w, h.positive, 11, integer);
  w.uint32(tag(14, VARINT)).uint32(HINT_NUMBERS[h.hint]);
  w.uint32(tag(15, VARINT)).int64(timestampMs);
  if (h.customValues.length > 0) {
    w.uint32(tag(16, LENGTH_DELIMITED)).fork();
    for (const v of h.customValues) w.double(v);
    w.ldelim();
  }
  w.ldelim();
}
