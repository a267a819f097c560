/**
 * Series descriptions of Prometheus' test scripts (shared/conformance/README.md §1.3):
 * `name{a="x"} 1 2+3x4 _x2 stale {{schema:0 sum:1 count:1}}x2 {{sum:1}}+{{sum:2}}x3`.
 */

import { unquoteGoString } from '../../../src/query/promql/go-format.js';
import { addHistograms, subHistograms } from '../../../src/query/promql/histogram/arithmetic.js';
import type { FloatHistogram } from '../../../src/query/promql/histogram/float-histogram.js';
import { parseHistogramText } from '../../../src/query/promql/histogram/text.js';
import { labelsFromPairs, METRIC_NAME } from '../../../src/query/promql/labels.js';
import type { Labels } from '../../../src/query/promql/types.js';

/**
 * One position of a series: a value, a native histogram, a staleness marker, or no sample (`_`).
 * Staleness is a kind of its own because a NaN payload does not survive every JS storage (V8
 * canonicalises NaNs stored in plain number arrays); the marker is created where it is stored.
 */
export type SeriesItem =
  | { kind: 'value'; value: number }
  | { kind: 'histogram'; histogram: FloatHistogram; hintSet: boolean }
  | { kind: 'stale' }
  | { kind: 'none' };

export interface SeriesDescription {
  labels: Labels;
  items: SeriesItem[];
  /** The description contains native-histogram items. */
  hasHistogram: boolean;
}

const DURATION = /^(?:\d+(?:ms|[smhdwy]))+$/;

/** Durations as in the scripts: `50m`, `1h30m`, `0`, `8000s`, plain numbers as seconds. */
export function parseScriptDuration(text: string): number {
  if (text === '0') return 0;
  const units: Record<string, number> = {
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
    d: 86_400_000,
    w: 604_800_000,
    y: 31_536_000_000,
  };
  if (DURATION.test(text)) {
    let total = 0;
    for (const m of text.matchAll(/(\d+)(ms|[smhdwy])/g)) total += Number(m[1]) * (units[m[2] as string] as number);
    return total;
  }
  const seconds = Number(text);
  if (!Number.isFinite(seconds)) throw new Error(`bad duration ${text}`);
  return Math.round(seconds * 1000);
}

/** A number item: decimal, exponent, Inf/NaN in any case, or a duration meaning seconds. */
export function parseNumber(text: string): number {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[+-]/, '');
  const lower = body.toLowerCase();
  if (lower === 'inf') return sign * Number.POSITIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  if (DURATION.test(body)) return (sign * parseScriptDuration(body)) / 1000;
  if (/^(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(body)) return sign * Number(body.replace(/_/g, ''));
  throw new Error(`bad number ${JSON.stringify(text)}`);
}

/** Splits `name{labels}` from the values. */
export function parseSeriesLine(line: string): SeriesDescription {
  let pos = 0;
  const pairs: [string, string][] = [];
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (name) {
    pairs.push([METRIC_NAME, name[0]]);
    pos = name[0].length;
  }
  if (line[pos] === '{' && line[pos + 1] !== '{') {
    pos++;
    while (true) {
      while (/\s|,/.test(line[pos] ?? '')) pos++;
      if (line[pos] === '}') {
        pos++;
        break;
      }
      let labelName: string;
      if (line[pos] === '"' || line[pos] === "'" || line[pos] === '`') {
        const end = stringEnd(line, pos);
        labelName = unquoteGoString(line.slice(pos, end));
        pos = end;
      } else {
        const m = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(pos));
        if (!m) throw new Error(`bad label in ${line}`);
        labelName = m[0];
        pos += m[0].length;
      }
      while (line[pos] === ' ') pos++;
      if (line[pos] !== '=') {
        // A bare quoted name is the metric name.
        pairs.push([METRIC_NAME, labelName]);
        continue;
      }
      pos++;
      while (line[pos] === ' ') pos++;
      const end = stringEnd(line, pos);
      pairs.push([labelName, unquoteGoString(line.slice(pos, end))]);
      pos = end;
    }
  }
  const { items, hasHistogram } = parseItems(line.slice(pos));
  return { labels: labelsFromPairs(pairs), items, hasHistogram };
}

function stringEnd(line: string, start: number): number {
  const quote = line[start];
  let pos = start + 1;
  while (pos < line.length && line[pos] !== quote) pos += line[pos] === '\\' && quote !== '`' ? 2 : 1;
  if (pos >= line.length) throw new Error(`unterminated string in ${line}`);
  return pos + 1;
}

/** Splits value items on whitespace, keeping `{{...}}` (with spaces inside) in one piece. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    while (pos < text.length && /\s/.test(text[pos] as string)) pos++;
    if (pos >= text.length) break;
    let end = pos;
    while (end < text.length && !/\s/.test(text[end] as string)) {
      if (text.startsWith('{{', end)) {
        const close = text.indexOf('}}', end);
        end = close < 0 ? text.length : close + 2;
      } else end++;
    }
    out.push(text.slice(pos, end));
    pos = end;
  }
  return out;
}

// No hex here: Prometheus disallows it in series values, where `0x5` would read as 0 repeated.
const NUMBER =
  '(?:[+-]?(?:[Ii]nf|[Nn]a[Nn]|(?:\\d+(?:ms|[smhdwy]))+|(?:\\d[\\d_]*\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?))';
const UNSIGNED = NUMBER.replace('[+-]?', '');
const ITEM = new RegExp(`^(${NUMBER})(?:([+-])(${UNSIGNED}))?(?:x(\\d+))?$`);

export function parseItems(text: string): { items: SeriesItem[]; hasHistogram: boolean } {
  const items: SeriesItem[] = [];
  let hasHistogram = false;
  for (const token of tokens(text)) {
    if (token === '_') {
      items.push({ kind: 'none' });
      continue;
    }
    const gaps = /^_x(\d+)$/.exec(token);
    if (gaps) {
      for (let i = 0; i < Number(gaps[1]); i++) items.push({ kind: 'none' });
      continue;
    }
    if (token === 'stale') {
      items.push({ kind: 'stale' });
      continue;
    }
    if (token.startsWith('{{')) {
      hasHistogram = true;
      items.push(...histogramItems(token));
      continue;
    }
    const m = ITEM.exec(token);
    if (!m) throw new Error(`bad series item ${JSON.stringify(token)}`);
    const start = parseNumber(m[1] as string);
    if (m[4] === undefined) {
      items.push({ kind: 'value', value: start });
      continue;
    }
    const delta = m[3] === undefined ? 0 : parseNumber(m[3]) * (m[2] === '-' ? -1 : 1);
    let value = start;
    for (let i = 0; i <= Number(m[4]); i++) {
      items.push({ kind: 'value', value });
      value += delta;
    }
  }
  return { items, hasHistogram };
}

const HISTOGRAM_ITEM = /^(\{\{[^}]*\}\})(?:([+-])(\{\{[^}]*\}\}))?(?:x(\d+))?$/;

/**
 * `{{h}}`, `{{h}}xN` (N+1 copies) and `{{a}}+{{b}}xN` / `{{a}}-{{b}}xN` (a, a±b, a±2b, …). As in
 * promqltest, the expansion's samples report the increment's `counter_reset_hint` as written.
 */
function histogramItems(token: string): SeriesItem[] {
  const m = HISTOGRAM_ITEM.exec(token);
  if (!m) throw new Error(`bad histogram item ${JSON.stringify(token)}`);
  const base = parseHistogramText(m[1] as string, parseNumber);
  const times = m[4] === undefined ? 0 : Number(m[4]);
  if (m[3] === undefined) {
    return Array.from({ length: times + 1 }, () => ({ kind: 'histogram' as const, ...base }));
  }
  const inc = parseHistogramText(m[3], parseNumber);
  if (m[4] === undefined) throw new Error(`histogram expansion needs a count: ${token}`);
  const out: SeriesItem[] = [{ kind: 'histogram', histogram: base.histogram, hintSet: inc.hintSet }];
  let current = base.histogram;
  for (let i = 1; i <= times; i++) {
    if (current.schema > inc.histogram.schema)
      throw new Error(`cannot merge from schema ${inc.histogram.schema} to ${current.schema}`);
    current = (m[2] === '+' ? addHistograms : subHistograms)(current, inc.histogram).histogram;
    out.push({ kind: 'histogram', histogram: current, hintSet: inc.hintSet });
  }
  return out;
}
