/**
 * Decodes a remote write 1.0 `WriteRequest` (field numbers in shared/proto/prometheus.ts) in one pass over
 * the decompressed bytes, with no object per message: the position lives in a local, varints are
 * read inline, and a series' labels stay bytes. Each `TimeSeries`' label bytes are hashed and
 * looked up in the series cache; only a label set never seen before is decoded into strings and
 * checked (series-labels.ts). Samples go to two Float64Arrays, which keep NaN payloads (the stale
 * marker) bit for bit — a plain JS array would canonicalise them.
 *
 * Strict as Go's generated unmarshalers: field number 0, group and unknown wire types, varints
 * over 10 bytes, lengths past the end and known fields with the wrong wire type are refused, and
 * strings must be valid UTF-8 (checked when a label set is new: a cache hit has the very bytes
 * that passed before). Exemplars are accepted and skipped (counted); metadata entries are
 * returned for the metadata table. Native histograms (field 4, a cold path: `WireReader`) are
 * decoded, checked (an invalid one fails the request, wire-validate.ts) and kept in their
 * stored form, beside the float samples, for the general write path.
 */
import { isUtf8 } from 'node:buffer';
import { encodeStoredHistogram } from '../../../query/promql/histogram/stored-histogram.js';
import { decodeWireHistogram } from '../../../query/promql/histogram/wire-histogram.js';
import { histogramProblem } from '../../../query/promql/histogram/wire-validate.js';
import { InvalidArgument } from '../../errors.js';
import { WireError, WireReader, WireType } from '../../proto/wire.js';
import type { SeriesCache, SeriesEntry } from '../byte-series-cache.js';
import { hashBytes } from '../byte-series-cache.js';
import { seriesEntryOf } from './series-labels.js';

/** One `MetricMetadata` entry. */
export interface DecodedMetadata {
  /** `MetricMetadata.MetricType` number (0 unknown ... 7 stateset). */
  type: number;
  family: string;
  help: string;
  unit: string;
}

/**
 * `series`, `sampleStart`, `sampleCounts`, `timestamps` and `values` are the decoding thread's own buffers,
 * reused by its next `decodeWriteRequest`: callers copy what they keep first (the sample parts
 * and series inserts built from them both copy). A request allocating ~120 KiB of them afresh was
 * off-heap garbage that V8 answers with early scavenges.
 */
export interface DecodedWrite {
  /** The series of every `TimeSeries` that has samples, in request order. */
  series: SeriesEntry[];
  /** `sampleStart[i]`: index of series i's first sample in `timestamps`/`values`. */
  sampleStart: Uint32Array;
  sampleCounts: Uint32Array;
  /** Sample timestamps, ms since the epoch (exact integers). */
  timestamps: Float64Array;
  values: Float64Array;
  sampleCount: number;
  metadata: DecodedMetadata[];
  /** Native histogram samples, as runs per series like the float samples (none: all empty). */
  histograms: DecodedHistograms;
  /** Skipped parts of the request, for logs and tests. */
  exemplarCount: number;
}

/** Runs of histogram samples: run i is `series[i]` with `[start[i], start[i] + count[i])`. */
export interface DecodedHistograms {
  series: SeriesEntry[];
  start: Uint32Array;
  count: Uint32Array;
  /** ms since the epoch. */
  timestamps: Float64Array;
  /** Each sample in its stored form (stored-histogram.ts). */
  values: string[];
}

/** Where series come from: the cache of the request's default database and the shard count. */
export interface SeriesResolver {
  cache: SeriesCache;
  defaultDb: string;
  shards: number;
}

const TWO_POW_32 = 4294967296;
const TAG_LABELS = 0x0a; // field 1, length-delimited
const TAG_SAMPLES = 0x12; // field 2, length-delimited
const TAG_SAMPLE_VALUE = 0x09; // field 1, fixed64
const TAG_SAMPLE_TIME = 0x10; // field 2, varint

// The wire primitives below (varint32/varint64/tag/delimitedEnd/skip) are the shared reader's
// (shared/proto/wire.ts, strict dialect) specialised for this loop, and deliberately kept here:
// they move a module-level cursor, with no object and no field load/store per byte, and profiling
// showed this loop is what makes remote write fast; routing it through `WireReader` objects is a
// hot-path change that only the ingest bench could justify. They throw the same `WireError`s with
// the same messages; the cold part (metadata entries) uses `WireReader` itself.
// The decoder's cursor. Module state, not an object: one decode runs at a time (synchronously).
let buf: Uint8Array = new Uint8Array(0);
let view: DataView = new DataView(new ArrayBuffer(0));
let pos = 0;
let varintHigh = 0;

function varint32(end: number): number {
  if (pos >= end) throw new WireError(`truncated varint at offset ${pos}`);
  const b0 = buf[pos] as number;
  if (b0 < 0x80) {
    pos++;
    return b0;
  }
  const v = varint64(end);
  if (varintHigh !== 0) throw new WireError(`varint too large at offset ${pos}`);
  return v;
}

/** A varint of up to 64 bits: the low word is returned, the high word left in `varintHigh`. */
function varint64(end: number): number {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw new WireError(`truncated varint at offset ${pos}`);
    const b = buf[pos++] as number;
    if (i < 4) lo |= (b & 0x7f) << (7 * i);
    else if (i === 4) {
      lo |= (b & 0x0f) << 28;
      hi |= (b & 0x7f) >>> 4;
    } else hi |= (b & 0x7f) << (7 * i - 32);
    if (b < 0x80) {
      varintHigh = hi >>> 0;
      return lo >>> 0;
    }
  }
  throw new WireError(`varint longer than 10 bytes at offset ${pos}`);
}

/** Reads a tag; checks field number and wire type. Returns the raw tag (field << 3 | type). */
function tag(end: number): number {
  const start = pos;
  const t = varint32(end);
  const wireType = t & 7;
  if (t >>> 3 === 0) throw new WireError(`illegal field number 0 at offset ${start}`);
  if (wireType !== 0 && wireType !== 1 && wireType !== 2 && wireType !== 5) {
    throw new WireError(`unsupported wire type ${wireType} at offset ${start}`);
  }
  return t;
}

/** A length prefix; returns the end of the delimited bytes (pos is at their start). */
function delimitedEnd(end: number): number {
  const length = varint32(end);
  if (length > end - pos) throw new WireError(`length ${length} at offset ${pos} runs past the end`);
  return pos + length;
}

function skip(wireType: number, end: number): void {
  if (wireType === WireType.Varint) varint64(end);
  else if (wireType === WireType.Fixed64) {
    if (pos + 8 > end) throw new WireError(`truncated fixed64 at offset ${pos}`);
    pos += 8;
  } else if (wireType === WireType.LengthDelimited) pos = delimitedEnd(end);
  else {
    if (pos + 4 > end) throw new WireError(`truncated fixed32 at offset ${pos}`);
    pos += 4;
  }
}

function wrongType(t: number, message: string, expected: number): never {
  throw new WireError(`${message} field ${t >>> 3} has wire type ${t & 7}, expected ${expected}`);
}

class SampleBuffer {
  timestamps = new Float64Array(4096);
  values = new Float64Array(4096);
  count = 0;

  reset(): this {
    this.count = 0;
    return this;
  }

  grow(): void {
    const t = new Float64Array(this.count * 2);
    t.set(this.timestamps);
    this.timestamps = t;
    const v = new Float64Array(this.count * 2);
    v.set(this.values);
    this.values = v;
  }
}

/** Histogram samples of a request, in order: times and stored values, and their runs per series. */
class HistogramBuffer {
  timestamps = new Float64Array(64);
  values: string[] = [];
  series = new SeriesList();

  decoded(): DecodedHistograms {
    const { start, count } = this.series;
    return { series: this.series.finish(), start, count, timestamps: this.timestamps, values: this.values };
  }

  push(timestamp: number, value: string): void {
    const n = this.values.length;
    if (n === this.timestamps.length) {
      const t = new Float64Array(n * 2);
      t.set(this.timestamps);
      this.timestamps = t;
    }
    this.timestamps[n] = timestamp;
    this.values.push(value);
  }

  truncate(n: number): void {
    this.values.length = n;
  }
}

const NO_HISTOGRAMS: DecodedHistograms = {
  series: [],
  start: new Uint32Array(0),
  count: new Uint32Array(0),
  timestamps: new Float64Array(0),
  values: [],
};

class SeriesList {
  /** Reused from request to request, like the typed arrays: see `finish`. */
  private readonly list: SeriesEntry[] = [];
  private n = 0;
  start = new Uint32Array(1024);
  count = new Uint32Array(1024);

  reset(): this {
    this.n = 0;
    return this;
  }

  push(entry: SeriesEntry, start: number, count: number): void {
    const n = this.n;
    if (n === this.start.length) {
      const s = new Uint32Array(n * 2);
      s.set(this.start);
      this.start = s;
      const c = new Uint32Array(n * 2);
      c.set(this.count);
      this.count = c;
    }
    // Within the array's length an assignment allocates nothing; past it, it appends.
    if (n < this.list.length) this.list[n] = entry;
    else this.list.push(entry);
    this.start[n] = start;
    this.count[n] = count;
    this.n = n + 1;
  }

  /**
   * The entries pushed since `reset`: the same array every request, cut to this one's length
   * (V8 trims it in place), so a steady stream of requests of a few thousand series each grows
   * no new array. A fresh array a request was 17% of a remote-write shard's allocations.
   */
  finish(): SeriesEntry[] {
    this.list.length = this.n;
    return this.list;
  }
}

const threadSamples = new SampleBuffer();
const threadSeries = new SeriesList();

/** Decodes a WriteRequest; throws `WireError` (malformed) or InvalidArgument (bad labels). */
export function decodeWriteRequest(bytes: Uint8Array, resolver: SeriesResolver): DecodedWrite {
  buf = bytes;
  view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pos = 0;
  const samples = threadSamples.reset();
  const series = threadSeries.reset();
  const metadata: DecodedMetadata[] = [];
  // `previous`: the series decoded last, whose `next` guesses the one after it.
  const skipped: Skipped = { exemplars: 0, previous: undefined, histogramCount: 0, histograms: null };
  const end = bytes.length;
  try {
    while (pos < end) {
      const t = tag(end);
      const field = t >>> 3;
      if (field === 1 || field === 3) {
        if ((t & 7) !== WireType.LengthDelimited) wrongType(t, 'WriteRequest', WireType.LengthDelimited);
        const messageEnd = delimitedEnd(end);
        if (field === 1) timeSeries(messageEnd, samples, series, skipped, resolver);
        else metadata.push(decodeMetadata(new WireReader(bytes, pos, messageEnd)));
        pos = messageEnd;
      } else {
        skip(t & 7, end);
      }
    }
  } finally {
    buf = new Uint8Array(0);
    view = new DataView(new ArrayBuffer(0));
  }
  return {
    series: series.finish(),
    sampleStart: series.start,
    sampleCounts: series.count,
    timestamps: samples.timestamps,
    values: samples.values,
    sampleCount: samples.count,
    metadata,
    histograms: skipped.histograms === null ? NO_HISTOGRAMS : skipped.histograms.decoded(),
    exemplarCount: skipped.exemplars,
  };
}

// Label field ranges of the series being decoded: [start of tag, end of message] pairs.
let labelRanges = new Int32Array(128);

function timeSeries(
  end: number,
  samples: SampleBuffer,
  series: SeriesList,
  skipped: Skipped,
  resolver: SeriesResolver,
): void {
  const firstSample = samples.count;
  const firstHistogram = skipped.histogramCount;
  const seriesStart = pos;
  const exemplarsBefore = skipped.exemplars;
  let labels = 0;
  let contiguous = true;
  // The series after the previous one, guessed: when its label bytes open this message and no
  // label follows them, the labels are known without walking them field by field.
  const guess = skipped.previous?.next;
  let guessed: SeriesEntry | undefined;
  if (guess !== undefined) {
    const after = pos + guess.bytes.length;
    if (
      after <= end &&
      (after === end || buf[after] !== TAG_LABELS) &&
      resolver.cache.matches(guess, buf, pos, after)
    ) {
      guessed = guess;
      pos = after;
    }
  }
  while (pos < end) {
    const fieldStart = pos;
    const t = tag(end);
    if (t === TAG_LABELS) {
      const labelEnd = delimitedEnd(end);
      if (labels > 0 && labelRanges[2 * labels - 1] !== fieldStart) contiguous = false;
      if (2 * labels + 2 > labelRanges.length) {
        const grown = new Int32Array(labelRanges.length * 2);
        grown.set(labelRanges);
        labelRanges = grown;
      }
      labelRanges[2 * labels] = fieldStart;
      labelRanges[2 * labels + 1] = labelEnd;
      labels++;
      pos = labelEnd;
    } else if (t === TAG_SAMPLES) {
      const sampleEnd = delimitedEnd(end);
      sample(sampleEnd, samples);
      pos = sampleEnd;
    } else {
      const field = t >>> 3;
      if (field === 1 || field === 2 || field === 3 || field === 4) {
        if ((t & 7) !== WireType.LengthDelimited) wrongType(t, 'TimeSeries', WireType.LengthDelimited);
        const fieldEnd = delimitedEnd(end);
        if (field === 3) skipped.exemplars++;
        else if (field === 4) histogram(fieldEnd, skipped);
        pos = fieldEnd;
      } else {
        skip(t & 7, end);
      }
    }
  }
  if (guessed !== undefined && labels > 0) {
    // A label after the samples: the message is not the guessed one's shape. Walk it whole.
    pos = seriesStart;
    samples.count = firstSample;
    skipped.exemplars = exemplarsBefore;
    skipped.histogramCount = firstHistogram;
    skipped.histograms?.truncate(firstHistogram);
    skipped.previous = undefined;
    timeSeries(end, samples, series, skipped, resolver);
    return;
  }
  const count = samples.count - firstSample;
  const histogramCount = skipped.histogramCount - firstHistogram;
  if (count === 0 && histogramCount === 0) return;
  const afterSeries = pos;
  let entry: SeriesEntry;
  if (guessed !== undefined) {
    resolver.cache.touch(guessed);
    entry = guessed;
  } else {
    entry = resolve(labels, contiguous, resolver);
  }
  if (skipped.previous !== undefined) skipped.previous.next = entry;
  skipped.previous = entry;
  if (count > 0) series.push(entry, firstSample, count);
  if (histogramCount > 0) skipped.histograms?.series.push(entry, firstHistogram, histogramCount);
  pos = afterSeries;
}

/** Parts of the request the series loop keeps beside the float samples. */
interface Skipped {
  exemplars: number;
  previous: SeriesEntry | undefined;
  /** Histogram samples so far (a number on the object: the series loop reads it twice a series). */
  histogramCount: number;
  /** Made on the first histogram: a request of float samples allocates nothing for them. */
  histograms: HistogramBuffer | null;
}

/** One `Histogram` message in [pos, end): decoded, checked, kept in its stored form. */
function histogram(end: number, skipped: Skipped): void {
  const h = decodeWireHistogram(new WireReader(buf, pos, end));
  const problem = histogramProblem(h);
  if (problem !== null) throw new InvalidArgument(`invalid native histogram at ${h.timestampMs}: ${problem}`);
  skipped.histograms ??= new HistogramBuffer();
  skipped.histograms.push(h.timestampMs, encodeStoredHistogram(h));
  skipped.histogramCount++;
}

function sample(end: number, samples: SampleBuffer): void {
  if (canonicalSample(end, samples)) return;
  let value = 0;
  let timestamp = 0;
  while (pos < end) {
    const t = tag(end);
    if (t === TAG_SAMPLE_VALUE) {
      if (pos + 8 > end) throw new WireError(`truncated double at offset ${pos}`);
      value = view.getFloat64(pos, true);
      pos += 8;
    } else if (t === TAG_SAMPLE_TIME) {
      const lo = varint64(end);
      timestamp = (varintHigh | 0) * TWO_POW_32 + lo;
    } else if (t >>> 3 === 1) {
      wrongType(t, 'Sample', WireType.Fixed64);
    } else if (t >>> 3 === 2) {
      wrongType(t, 'Sample', WireType.Varint);
    } else {
      skip(t & 7, end);
    }
  }
  if (samples.count === samples.timestamps.length) samples.grow();
  samples.timestamps[samples.count] = timestamp;
  samples.values[samples.count] = value;
  samples.count++;
}

/**
 * A sample as every Prometheus sends it: its value, then a non-negative time of at most 7 varint
 * bytes (ms up to year 6429), and nothing else. Read in one go; false (nothing read) for any other
 * layout, which the general loop then reads with all its checks. Most of a rw-20 request's bytes
 * are samples, and the general loop's per-field tag and varint steps were 7% of a shard's thread.
 */
function canonicalSample(end: number, samples: SampleBuffer): boolean {
  const length = end - pos;
  if (length < 11 || length > 17 || buf[pos] !== TAG_SAMPLE_VALUE || buf[pos + 9] !== TAG_SAMPLE_TIME) return false;
  let at = pos + 10;
  let timestamp = 0;
  let scale = 1;
  for (;;) {
    const b = buf[at++] as number;
    timestamp += (b & 0x7f) * scale;
    if (b < 0x80) break;
    if (at === end) return false;
    scale *= 128;
  }
  if (at !== end) return false;
  if (samples.count === samples.timestamps.length) samples.grow();
  samples.timestamps[samples.count] = timestamp;
  samples.values[samples.count] = view.getFloat64(pos + 1, true);
  samples.count++;
  pos = end;
  return true;
}

/** The series of the labels just read: from the cache, or decoded, checked and cached. */
function resolve(labels: number, contiguous: boolean, resolver: SeriesResolver): SeriesEntry {
  const start = labels > 0 ? (labelRanges[0] as number) : pos;
  const stop = labels > 0 ? (labelRanges[2 * labels - 1] as number) : pos;
  const hash = contiguous ? hashBytes(view, start, stop) : 0;
  if (contiguous) {
    const hit = resolver.cache.get(hash, buf, start, stop);
    if (hit !== undefined) return hit;
  }
  const names: string[] = [];
  const values: string[] = [];
  for (let i = 0; i < labels; i++) {
    pos = labelRanges[2 * i] as number;
    const labelEnd = labelRanges[2 * i + 1] as number;
    tag(labelEnd);
    label(delimitedEnd(labelEnd), names, values);
  }
  const entry = seriesEntryOf(names, values, resolver.defaultDb, resolver.shards, buf, start, stop);
  // Labels split by other fields have no single byte range to key them by: never cached.
  if (contiguous) resolver.cache.add(entry);
  return entry;
}

function label(end: number, names: string[], values: string[]): void {
  let name = '';
  let value = '';
  while (pos < end) {
    const t = tag(end);
    const field = t >>> 3;
    if (field === 1 || field === 2) {
      if ((t & 7) !== WireType.LengthDelimited) wrongType(t, 'Label', WireType.LengthDelimited);
      const stringEnd = delimitedEnd(end);
      const text = utf8(pos, stringEnd, field === 1 ? 'label name' : `value of label ${name || '(unnamed)'}`);
      if (field === 1) name = text;
      else value = text;
      pos = stringEnd;
    } else {
      skip(t & 7, end);
    }
  }
  names.push(name);
  values.push(value);
}

function utf8(start: number, end: number, what: string): string {
  if (end === start) return '';
  const slice = Buffer.from(buf.buffer, buf.byteOffset + start, end - start);
  if (!isUtf8(slice)) throw new WireError(`${what} is not valid UTF-8`);
  return slice.toString('utf8');
}

function decodeMetadata(r: WireReader): DecodedMetadata {
  const m: DecodedMetadata = { type: 0, family: '', help: '', unit: '' };
  while (!r.done) {
    const t = r.tag();
    switch (t >>> 3) {
      case 1:
        r.expect(t, WireType.Varint, 'MetricMetadata');
        m.type = r.uint32();
        break;
      case 2:
        r.expect(t, WireType.LengthDelimited, 'MetricMetadata');
        m.family = r.string('metric family name');
        break;
      case 4:
        r.expect(t, WireType.LengthDelimited, 'MetricMetadata');
        m.help = r.string('metric help');
        break;
      case 5:
        r.expect(t, WireType.LengthDelimited, 'MetricMetadata');
        m.unit = r.string('metric unit');
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
