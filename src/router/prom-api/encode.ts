/**
 * The Prometheus API envelope and value encodings, byte-compatible with Prometheus'
 * `web/api/v1/json_codec.go` and `util/jsonutil`:
 *
 *   success  {"status":"success","data":<data>[,"warnings":[...]][,"infos":[...]]}
 *   error    {"status":"error","errorType":"bad_data","error":"<message>"}
 *   vector   [{"metric":{<labels>},"value":[<t>,"<v>"]},...]
 *   matrix   [{"metric":{<labels>},"values":[[<t>,"<v>"],...]},...]
 *   scalar   [<t>,"<v>"]          string  [<t>,"<text>"]
 *   native histograms: "histogram":[<t>,<h>] in a vector, "histograms":[[<t>,<h>],...] in a
 *   matrix, <h> = {"count":"<v>","sum":"<v>","buckets":[[<rule>,"<lower>","<upper>","<count>"],...]}
 *   (rule: 0 open left, 1 open right, 2 open both, 3 closed both; empty buckets left out, and
 *   "buckets" too when none is left)
 *
 * `<t>` is Unix seconds with the milliseconds written as three digits when non-zero (`1.500`);
 * `<v>` is the shortest round-trip decimal, in exponent form below 1e-6 and from 1e21, with
 * `NaN`, `+Inf` and `-Inf` for the special values.
 */
import zlib from 'node:zlib';
import { formatFloatF } from '../../query/promql/go-format.js';
import { allBuckets, type FloatHistogram } from '../../query/promql/histogram/float-histogram.js';
import type { Labels, QueryResult } from '../../query/promql/types.js';
import type { HttpResponse } from '../http/context.js';

/** Bodies smaller than this go out uncompressed even when the client accepts gzip. */
const COMPRESS_BYTES_MIN = 1024;

/** Prometheus' `MarshalTimestamp`: ms → seconds text without going through a float. */
export function formatTimestamp(ms: number): string {
  // Whole seconds, the common case (samples on a scrape or step grid): no rounding or padding.
  if (ms >= 0 && ms % 1000 === 0) return String(ms / 1000);
  let t = Math.round(ms);
  let sign = '';
  if (t < 0) {
    sign = '-';
    t = -t;
  }
  const seconds = Math.floor(t / 1000);
  const fraction = t % 1000;
  return fraction === 0 ? `${sign}${seconds}` : `${sign}${seconds}.${String(fraction).padStart(3, '0')}`;
}

/** Prometheus' `MarshalFloat` (without the quotes). */
export function formatSampleValue(v: number): string {
  const magnitude = Math.abs(v);
  if (magnitude !== 0 && Number.isFinite(v) && (magnitude < 1e-6 || magnitude >= 1e21)) {
    const [mantissa, exponentText] = v.toExponential().split('e') as [string, string];
    const exponent = Number(exponentText);
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
  }
  return formatFloatF(v);
}

/** A label set as a JSON object, keys in label order (sorted by name). */
export function labelsJson(labels: Labels): string {
  let out = '{';
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as Labels[number];
    if (i > 0) out += ',';
    out += `${JSON.stringify(label.name)}:${JSON.stringify(label.value)}`;
  }
  return `${out}}`;
}

function pointJson(t: number, v: number): string {
  return `[${formatTimestamp(t)},"${formatSampleValue(v)}"]`;
}

/**
 * A series' points, comma-separated: one string grown in place, not a string per point joined
 * after (a third less time for an hour of raw samples, 360 points).
 */
function pointsJson(t: ArrayLike<number>, v: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < t.length; i++) {
    if (i > 0) out += ',';
    out += pointJson(t[i] as number, v[i] as number);
  }
  return out;
}

/**
 * A histogram as Prometheus' `marshalHistogram` writes it. Negative buckets include their lower
 * bound (rule 1), positive ones their upper bound (rule 0), the zero bucket both (rule 3).
 */
export function histogramJson(h: FloatHistogram): string {
  let out = `{"count":"${formatSampleValue(h.count)}","sum":"${formatSampleValue(h.sum)}"`;
  const buckets: string[] = [];
  for (const b of allBuckets(h)) {
    if (b.count === 0) continue;
    const zero =
      b.lowerInclusive && b.lower === -h.zeroThreshold && b.upper === h.zeroThreshold && h.zeroCount === b.count;
    const rule = zero ? 3 : b.lowerInclusive ? 1 : 0;
    buckets.push(
      `[${rule},"${formatSampleValue(b.lower)}","${formatSampleValue(b.upper)}","${formatSampleValue(b.count)}"]`,
    );
  }
  if (buckets.length > 0) out += `,"buckets":[${buckets.join(',')}]`;
  return `${out}}`;
}

function histogramPointJson(t: number, h: FloatHistogram): string {
  return `[${formatTimestamp(t)},${histogramJson(h)}]`;
}

/** The `result` of a query as Prometheus writes it for its `resultType`. */
export function resultJson(result: QueryResult): string {
  switch (result.resultType) {
    case 'scalar':
      return pointJson(result.t, result.v);
    case 'string':
      return `[${formatTimestamp(result.t)},${JSON.stringify(result.v)}]`;
    case 'vector': {
      const parts = result.samples.map((s) =>
        s.h !== undefined
          ? `{"metric":${labelsJson(s.labels)},"histogram":${histogramPointJson(s.t, s.h)}}`
          : `{"metric":${labelsJson(s.labels)},"value":${pointJson(s.t, s.v)}}`,
      );
      return `[${parts.join(',')}]`;
    }
    case 'matrix': {
      const parts = result.series.map((s) => {
        // Prometheus omits `values` for a series without float points (a histogram-only series),
        // and `histograms` for one without histogram points.
        let out = `{"metric":${labelsJson(s.labels)}`;
        if (s.t.length > 0) out += `,"values":[${pointsJson(s.t, s.v)}]`;
        const hs = s.histograms;
        if (hs && hs.t.length > 0) {
          const hp = hs.t.map((t, i) => histogramPointJson(t, hs.h[i] as FloatHistogram));
          out += `,"histograms":[${hp.join(',')}]`;
        }
        return `${out}}`;
      });
      return `[${parts.join(',')}]`;
    }
  }
}

/** `data` of query and query_range. */
export function queryDataJson(result: QueryResult): string {
  return `{"resultType":"${result.resultType}","result":${resultJson(result)}}`;
}

/** Whether the client accepts a gzip answer (`Accept-Encoding: gzip`, not `gzip;q=0`). */
function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function jsonResponse(status: number, body: string, acceptEncoding: string | undefined): HttpResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (body.length >= COMPRESS_BYTES_MIN && acceptsGzip(acceptEncoding)) {
    headers['content-encoding'] = 'gzip';
    headers.vary = 'Accept-Encoding';
    // Level 1: on this router thread, level 6 spent 47 ms on a 2 MB range-query answer (a third
    // of the query) and 84 µs on a 7 KB one; level 1 takes 7 ms and 27 µs for 3–30% more bytes
    // (Prometheus' own gzip handler is of this speed class).
    return { status, headers, body: zlib.gzipSync(body, { level: zlib.constants.Z_BEST_SPEED }) };
  }
  return { status, headers, body };
}

/** Extra texts a successful answer may carry. */
export interface Notes {
  warnings?: readonly string[] | undefined;
  infos?: readonly string[] | undefined;
}

/** A success envelope around already-encoded `data` JSON. */
export function successResponse(dataJson: string, notes: Notes = {}, acceptEncoding?: string): HttpResponse {
  let body = `{"status":"success","data":${dataJson}`;
  if (notes.warnings && notes.warnings.length > 0) body += `,"warnings":${JSON.stringify(notes.warnings)}`;
  if (notes.infos && notes.infos.length > 0) body += `,"infos":${JSON.stringify(notes.infos)}`;
  return jsonResponse(200, `${body}}`, acceptEncoding);
}
