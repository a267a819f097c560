/**
 * The text form of a histogram in Prometheus' test scripts and rule unit tests:
 * `{{schema:1 count:10 sum:15 z_bucket:1 z_bucket_w:0.001 offset:-1 buckets:[3 2] n_buckets:[1]
 * counter_reset_hint:gauge custom_values:[5 10]}}`. Bucket lists are one run of consecutive
 * indexes starting at the offset (0 when absent).
 */

import { type Buckets, type CounterResetHint, type FloatHistogram, makeHistogram } from './float-histogram.js';

const HINTS: Record<string, CounterResetHint> = {
  unknown: 'unknown',
  reset: 'reset',
  not_reset: 'not_reset',
  gauge: 'gauge',
};

export interface ParsedHistogram {
  histogram: FloatHistogram;
  /** `counter_reset_hint` was written (results are then compared on it too). */
  hintSet: boolean;
}

/** Parses the inside or the whole of `{{...}}`; `parseNumber` reads numbers as the script does. */
export function parseHistogramText(text: string, parseNumber: (s: string) => number = Number): ParsedHistogram {
  const body = text.trim().replace(/^\{\{/, '').replace(/\}\}$/, '');
  const fields: Record<string, string> = {};
  const re = /([a-z_]+)\s*:\s*(\[[^\]]*\]|[^\s\]]+)/g;
  for (const m of body.matchAll(re)) {
    const key = m[1] as string;
    if (key in fields) throw new Error(`duplicate ${key} in histogram ${text}`);
    fields[key] = m[2] as string;
  }
  if (body.replace(re, '').trim() !== '') throw new Error(`bad histogram ${JSON.stringify(text)}`);
  const list = (key: string): number[] | undefined => {
    const v = fields[key];
    if (v === undefined) return undefined;
    if (!v.startsWith('[')) throw new Error(`${key} needs a list in ${text}`);
    return v
      .slice(1, -1)
      .trim()
      .split(/\s+/)
      .filter((x) => x !== '')
      .map(parseNumber);
  };
  const num = (key: string): number | undefined => (fields[key] === undefined ? undefined : parseNumber(fields[key]));
  const buckets = (key: string, offsetKey: string): Buckets => {
    const counts = list(key) ?? [];
    const offset = num(offsetKey) ?? 0;
    return { index: counts.map((_, k) => offset + k), count: counts };
  };
  const hintText = fields.counter_reset_hint;
  let hint: CounterResetHint = 'unknown';
  if (hintText !== undefined) {
    const found = HINTS[hintText];
    if (found === undefined) throw new Error(`unknown counter_reset_hint ${hintText}`);
    hint = found;
  }
  const histogram = makeHistogram({
    schema: num('schema') ?? 0,
    count: num('count') ?? 0,
    sum: num('sum') ?? 0,
    zeroCount: num('z_bucket') ?? 0,
    zeroThreshold: num('z_bucket_w') ?? 0,
    positive: buckets('buckets', 'offset'),
    negative: buckets('n_buckets', 'n_offset'),
    customValues: list('custom_values') ?? [],
    hint,
  });
  return { histogram, hintSet: hintText !== undefined };
}

/** Prometheus' `TestExpression`: the script form, default fields left out, one run per side. */
export function histogramTestExpression(h: FloatHistogram): string {
  const parts: string[] = [];
  if (h.schema !== 0) parts.push(`schema:${h.schema}`);
  if (h.count !== 0) parts.push(`count:${h.count}`);
  if (h.sum !== 0) parts.push(`sum:${h.sum}`);
  if (h.zeroCount !== 0) parts.push(`z_bucket:${h.zeroCount}`);
  if (h.zeroThreshold !== 0) parts.push(`z_bucket_w:${h.zeroThreshold}`);
  if (h.customValues.length > 0) parts.push(`custom_values:[${h.customValues.join(' ')}]`);
  if (h.hint !== 'unknown') parts.push(`counter_reset_hint:${h.hint}`);
  const side = (b: Buckets, key: string, offsetKey: string): void => {
    if (b.index.length === 0) return;
    const first = b.index[0] as number;
    const last = b.index[b.index.length - 1] as number;
    const dense = new Array<number>(last - first + 1).fill(0);
    b.index.forEach((idx, k) => {
      dense[idx - first] = b.count[k] as number;
    });
    if (first !== 0) parts.push(`${offsetKey}:${first}`);
    parts.push(`${key}:[${dense.join(' ')}]`);
  };
  side(h.positive, 'buckets', 'offset');
  side(h.negative, 'n_buckets', 'n_offset');
  return `{{${parts.join(' ')}}}`;
}
