/**
 * Decodes a remote write 2.0 `io.prometheus.write.v2.Request` (Prometheus'
 * `prompb/io/prometheus/write/v2/types.proto`) into the same `DecodedWrite` as 1.0, so that
 * everything after decoding is shared:
 *
 *   Request     4 symbols string*   5 timeseries TimeSeries*
 *   TimeSeries  1 labels_refs uint32* (pairs of symbol indexes)   2 samples Sample*
 *               3 histograms Histogram* (as 1.0's, wire-histogram.ts)   4 exemplars Exemplar*
 *               5 metadata {1 type, 3 help_ref, 4 unit_ref}   6 created_timestamp int64
 *   Sample      1 value double   2 timestamp int64
 *
 * Not the hot path (Prometheus falls back to 1.0 unless configured for 2.0), so it uses
 * `WireReader` and no series cache: label sets are made of symbols, not of bytes that repeat
 * from one request to the next. Timeseries are read once every symbol is known, whatever the
 * field order. Exemplars are counted and dropped; the created timestamp is ignored.
 */
import { encodeStoredHistogram } from '../../../query/promql/histogram/stored-histogram.js';
import { decodeWireHistogram } from '../../../query/promql/histogram/wire-histogram.js';
import { histogramProblem } from '../../../query/promql/histogram/wire-validate.js';
import { InvalidArgument } from '../../errors.js';
import { WireError, WireReader, WireType } from '../../proto/wire.js';
import type { SeriesEntry } from '../byte-series-cache.js';
import { seriesEntryOf } from './series-labels.js';
import type { DecodedMetadata, DecodedWrite, SeriesResolver } from './write-decode.js';

const NO_BYTES = new Uint8Array(0);

/** Growable runs of stored histograms per series. */
class HistogramRuns {
  series: SeriesEntry[] = [];
  start: number[] = [];
  count: number[] = [];
  timestamps: number[] = [];
  values: string[] = [];

  add(entry: SeriesEntry, timestamps: number[], values: string[]): void {
    if (timestamps.length === 0) return;
    this.series.push(entry);
    this.start.push(this.timestamps.length);
    this.count.push(timestamps.length);
    for (const t of timestamps) this.timestamps.push(t);
    for (const v of values) this.values.push(v);
  }
}

function uint32s(r: WireReader, tag: number, out: number[]): void {
  if ((tag & 7) === WireType.Varint) {
    out.push(r.uint32());
    return;
  }
  r.expect(tag, WireType.LengthDelimited, 'TimeSeries');
  const sub = r.sub();
  while (!sub.done) out.push(sub.uint32());
}

interface SeriesParts {
  refs: number[];
  sampleTimes: number[];
  /** Sample values as a Float64Array-backed list: plain arrays would canonicalise NaN payloads. */
  sampleValues: Float64Array;
  sampleCount: number;
  histogramTimes: number[];
  histograms: string[];
  exemplars: number;
  metadata: { type: number; helpRef: number; unitRef: number } | null;
}

function sample(r: WireReader, parts: SeriesParts): void {
  let value = 0;
  let timestamp = 0;
  while (!r.done) {
    const t = r.tag();
    if (t >>> 3 === 1) {
      r.expect(t, WireType.Fixed64, 'Sample');
      value = r.double();
    } else if (t >>> 3 === 2) {
      r.expect(t, WireType.Varint, 'Sample');
      timestamp = r.int64();
    } else r.skip(t & 7);
  }
  if (parts.sampleCount === parts.sampleValues.length) {
    const grown = new Float64Array(parts.sampleValues.length * 2 + 4);
    grown.set(parts.sampleValues);
    parts.sampleValues = grown;
  }
  parts.sampleValues[parts.sampleCount++] = value;
  parts.sampleTimes.push(timestamp);
}

function metadata(r: WireReader): { type: number; helpRef: number; unitRef: number } {
  const m = { type: 0, helpRef: 0, unitRef: 0 };
  while (!r.done) {
    const t = r.tag();
    const field = t >>> 3;
    if (field === 1 || field === 3 || field === 4) {
      r.expect(t, WireType.Varint, 'Metadata');
      const v = r.uint32();
      if (field === 1) m.type = v;
      else if (field === 3) m.helpRef = v;
      else m.unitRef = v;
    } else r.skip(t & 7);
  }
  return m;
}

function timeSeries(r: WireReader): SeriesParts {
  const parts: SeriesParts = {
    refs: [],
    sampleTimes: [],
    sampleValues: new Float64Array(4),
    sampleCount: 0,
    histogramTimes: [],
    histograms: [],
    exemplars: 0,
    metadata: null,
  };
  while (!r.done) {
    const t = r.tag();
    switch (t >>> 3) {
      case 1:
        uint32s(r, t, parts.refs);
        break;
      case 2:
        r.expect(t, WireType.LengthDelimited, 'TimeSeries');
        sample(r.sub(), parts);
        break;
      case 3: {
        r.expect(t, WireType.LengthDelimited, 'TimeSeries');
        const h = decodeWireHistogram(r.sub());
        const problem = histogramProblem(h);
        if (problem !== null) throw new InvalidArgument(`invalid native histogram at ${h.timestampMs}: ${problem}`);
        parts.histogramTimes.push(h.timestampMs);
        parts.histograms.push(encodeStoredHistogram(h));
        break;
      }
      case 4:
        r.expect(t, WireType.LengthDelimited, 'TimeSeries');
        r.delimited();
        parts.exemplars++;
        break;
      case 5:
        r.expect(t, WireType.LengthDelimited, 'TimeSeries');
        parts.metadata = metadata(r.sub());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return parts;
}

function symbolOf(symbols: readonly string[], ref: number): string {
  const s = symbols[ref];
  if (s === undefined) throw new WireError(`symbol reference ${ref} is out of range of ${symbols.length} symbols`);
  return s;
}

/** Decodes a 2.0 Request; throws `WireError` (malformed) or InvalidArgument (bad labels or histograms). */
export function decodeWriteRequestV2(bytes: Uint8Array, resolver: SeriesResolver): DecodedWrite {
  const r = new WireReader(bytes);
  const symbols: string[] = [];
  const seriesRanges: Array<[number, number]> = [];
  while (!r.done) {
    const t = r.tag();
    if (t >>> 3 === 4) {
      r.expect(t, WireType.LengthDelimited, 'Request');
      symbols.push(r.string('symbol'));
    } else if (t >>> 3 === 5) {
      r.expect(t, WireType.LengthDelimited, 'Request');
      const start = r.delimited();
      seriesRanges.push([start, r.pos]);
    } else r.skip(t & 7);
  }
  // Float samples stay in each series' Float64Array until copied into one (NaN bits kept).
  const floatSeries: SeriesEntry[] = [];
  const floatParts: SeriesParts[] = [];
  const histograms = new HistogramRuns();
  const metadataEntries: DecodedMetadata[] = [];
  // One entry per label set in the request: a series may come in several TimeSeries.
  const entries = new Map<string, SeriesEntry>();
  let exemplars = 0;
  for (const [start, end] of seriesRanges) {
    const parts = timeSeries(new WireReader(bytes, start, end));
    if (parts.refs.length % 2 !== 0) throw new WireError(`labels_refs has an odd length ${parts.refs.length}`);
    const names: string[] = [];
    const values: string[] = [];
    for (let i = 0; i < parts.refs.length; i += 2) {
      names.push(symbolOf(symbols, parts.refs[i] as number));
      values.push(symbolOf(symbols, parts.refs[i + 1] as number));
    }
    exemplars += parts.exemplars;
    const key = JSON.stringify([names, values]);
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = seriesEntryOf(names, values, resolver.defaultDb, resolver.shards, NO_BYTES, 0, 0);
      entries.set(key, entry);
    }
    if (parts.metadata !== null && parts.metadata.type !== 0) {
      metadataEntries.push({
        type: parts.metadata.type,
        family: entry.table,
        help: symbolOf(symbols, parts.metadata.helpRef),
        unit: symbolOf(symbols, parts.metadata.unitRef),
      });
    }
    if (parts.sampleCount > 0) {
      floatSeries.push(entry);
      floatParts.push(parts);
    }
    histograms.add(entry, parts.histogramTimes, parts.histograms);
  }
  let sampleCount = 0;
  for (const parts of floatParts) sampleCount += parts.sampleCount;
  const sampleStart = new Uint32Array(floatParts.length);
  const sampleCounts = new Uint32Array(floatParts.length);
  const timestamps = new Float64Array(sampleCount);
  const values = new Float64Array(sampleCount);
  let at = 0;
  floatParts.forEach((parts, i) => {
    sampleStart[i] = at;
    sampleCounts[i] = parts.sampleCount;
    timestamps.set(parts.sampleTimes, at);
    values.set(parts.sampleValues.subarray(0, parts.sampleCount), at);
    at += parts.sampleCount;
  });
  return {
    series: floatSeries,
    sampleStart,
    sampleCounts,
    timestamps,
    values,
    sampleCount,
    metadata: metadataEntries,
    histograms: {
      series: histograms.series,
      start: Uint32Array.from(histograms.start),
      count: Uint32Array.from(histograms.count),
      timestamps: Float64Array.from(histograms.timestamps),
      values: histograms.values,
    },
    exemplarCount: exemplars,
  };
}
