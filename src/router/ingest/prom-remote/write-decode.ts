/**
 * Decodes a remote write 1.0 `WriteRequest` (field numbers in proto-schema.ts) straight from the
 * wire into flat arrays: one entry per `TimeSeries` with its labels as sent, and every sample's
 * timestamp and value in two Float64Arrays. No object is made per sample, and values stay in typed
 * arrays from the wire to the insert, which keeps NaN payloads (the stale marker) bit for bit —
 * a plain JS array would canonicalise them.
 *
 * Exemplars and native histograms are accepted and skipped (counted, not stored); metadata entries
 * are returned for the metadata table.
 */
import { WireError, WireReader, WireType } from './wire-reader.js';

/** One `TimeSeries` of the request: labels as sent, samples as a range of the flat arrays. */
export interface DecodedSeries {
  labelNames: string[];
  labelValues: string[];
  /** Index of the first sample in `DecodedWrite.timestamps/values`. */
  sampleStart: number;
  sampleCount: number;
}

/** One `MetricMetadata` entry. */
export interface DecodedMetadata {
  /** `MetricMetadata.MetricType` number (0 unknown ... 7 stateset). */
  type: number;
  family: string;
  help: string;
  unit: string;
}

export interface DecodedWrite {
  series: DecodedSeries[];
  /** Sample timestamps, ms since the epoch (exact integers). */
  timestamps: Float64Array;
  values: Float64Array;
  sampleCount: number;
  metadata: DecodedMetadata[];
  /** Skipped parts of the request, for logs and tests. */
  exemplarCount: number;
  histogramCount: number;
}

class SampleBuffer {
  timestamps = new Float64Array(1024);
  values = new Float64Array(1024);
  count = 0;

  push(timestamp: number, value: number): void {
    if (this.count === this.timestamps.length) {
      const t = new Float64Array(this.count * 2);
      t.set(this.timestamps);
      this.timestamps = t;
      const v = new Float64Array(this.count * 2);
      v.set(this.values);
      this.values = v;
    }
    this.timestamps[this.count] = timestamp;
    this.values[this.count] = value;
    this.count++;
  }
}

/** Decodes a WriteRequest; throws `WireError` on anything malformed. */
export function decodeWriteRequest(bytes: Uint8Array): DecodedWrite {
  const r = new WireReader(bytes);
  const samples = new SampleBuffer();
  const out: DecodedWrite = {
    series: [],
    timestamps: samples.timestamps,
    values: samples.values,
    sampleCount: 0,
    metadata: [],
    exemplarCount: 0,
    histogramCount: 0,
  };
  while (!r.done) {
    const [field, wireType] = r.tag();
    if (field === 1) {
      r.expect(field, wireType, WireType.LengthDelimited, 'WriteRequest');
      const { start, end } = r.delimited();
      out.series.push(decodeTimeSeries(new WireReader(bytes, start, end), samples, out));
    } else if (field === 3) {
      r.expect(field, wireType, WireType.LengthDelimited, 'WriteRequest');
      const { start, end } = r.delimited();
      out.metadata.push(decodeMetadata(new WireReader(bytes, start, end)));
    } else {
      r.skip(wireType);
    }
  }
  out.timestamps = samples.timestamps;
  out.values = samples.values;
  out.sampleCount = samples.count;
  return out;
}

function decodeTimeSeries(r: WireReader, samples: SampleBuffer, out: DecodedWrite): DecodedSeries {
  const series: DecodedSeries = { labelNames: [], labelValues: [], sampleStart: samples.count, sampleCount: 0 };
  while (!r.done) {
    const [field, wireType] = r.tag();
    switch (field) {
      case 1: {
        r.expect(field, wireType, WireType.LengthDelimited, 'TimeSeries');
        const { start, end } = r.delimited();
        decodeLabel(new WireReader(r.bytes, start, end), series);
        break;
      }
      case 2: {
        r.expect(field, wireType, WireType.LengthDelimited, 'TimeSeries');
        const { start, end } = r.delimited();
        decodeSample(new WireReader(r.bytes, start, end), samples);
        series.sampleCount++;
        break;
      }
      case 3:
        r.expect(field, wireType, WireType.LengthDelimited, 'TimeSeries');
        r.delimited();
        out.exemplarCount++;
        break;
      case 4:
        r.expect(field, wireType, WireType.LengthDelimited, 'TimeSeries');
        r.delimited();
        out.histogramCount++;
        break;
      default:
        r.skip(wireType);
    }
  }
  return series;
}

function decodeLabel(r: WireReader, series: DecodedSeries): void {
  let name = '';
  let value = '';
  while (!r.done) {
    const [field, wireType] = r.tag();
    if (field === 1) {
      r.expect(field, wireType, WireType.LengthDelimited, 'Label');
      name = r.string('label name');
    } else if (field === 2) {
      r.expect(field, wireType, WireType.LengthDelimited, 'Label');
      value = r.string(`value of label ${name || '(unnamed)'}`);
    } else {
      r.skip(wireType);
    }
  }
  series.labelNames.push(name);
  series.labelValues.push(value);
}

function decodeSample(r: WireReader, samples: SampleBuffer): void {
  let value = 0;
  let timestamp = 0;
  while (!r.done) {
    const [field, wireType] = r.tag();
    if (field === 1) {
      r.expect(field, wireType, WireType.Fixed64, 'Sample');
      value = r.double();
    } else if (field === 2) {
      r.expect(field, wireType, WireType.Varint, 'Sample');
      timestamp = r.int64();
    } else {
      r.skip(wireType);
    }
  }
  samples.push(timestamp, value);
}

function decodeMetadata(r: WireReader): DecodedMetadata {
  const m: DecodedMetadata = { type: 0, family: '', help: '', unit: '' };
  while (!r.done) {
    const [field, wireType] = r.tag();
    switch (field) {
      case 1:
        r.expect(field, wireType, WireType.Varint, 'MetricMetadata');
        m.type = r.uint32();
        break;
      case 2:
        r.expect(field, wireType, WireType.LengthDelimited, 'MetricMetadata');
        m.family = r.string('metric family name');
        break;
      case 4:
        r.expect(field, wireType, WireType.LengthDelimited, 'MetricMetadata');
        m.help = r.string('metric help');
        break;
      case 5:
        r.expect(field, wireType, WireType.LengthDelimited, 'MetricMetadata');
        m.unit = r.string('metric unit');
        break;
      default:
        r.skip(wireType);
    }
  }
  return m;
}

export { WireError };
