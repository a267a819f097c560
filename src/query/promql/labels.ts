/**
 * Label-set helpers for the evaluator. A label set is a sorted array of `{name, value}` without
 * empty values (types.ts). Sets are compared and hashed through a string key, which keeps map
 * lookups cheap in JS (no structural hashing) and compares like Prometheus' `labels.Compare`
 * for ordering.
 */

import type { Label, Labels } from './types.js';

/** The label that carries the metric name. */
export const METRIC_NAME = '__name__';

/** Prometheus' classic-histogram bucket bound label. */
export const BUCKET_LABEL = 'le';

// 0xff never occurs in valid UTF-8 text, so it cannot be confused with label content.
const SEPARATOR = '\xff';

/** A string that is equal for two label sets exactly when the sets are equal. */
export function labelsKey(labels: Labels): string {
  let key = '';
  for (const label of labels) key += label.name + SEPARATOR + label.value + SEPARATOR;
  return key;
}

/** The value of a label, '' when absent (Prometheus treats the two alike). */
export function getLabel(labels: Labels, name: string): string {
  for (const label of labels) if (label.name === name) return label.value;
  return '';
}

/** Builds a sorted label set from name/value pairs, dropping empty values. */
export function labelsFromPairs(pairs: Iterable<readonly [string, string]>): Label[] {
  const out: Label[] = [];
  for (const [name, value] of pairs) if (value !== '') out.push({ name, value });
  out.sort(compareNames);
  return dedupeSorted(out);
}

function compareNames(a: Label, b: Label): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Later duplicates win, as with repeated `Set` calls on a Prometheus label builder. */
function dedupeSorted(labels: Label[]): Label[] {
  let write = 0;
  for (let read = 0; read < labels.length; read++) {
    const label = labels[read] as Label;
    if (write > 0 && (labels[write - 1] as Label).name === label.name) labels[write - 1] = label;
    else labels[write++] = label;
  }
  labels.length = write;
  return labels;
}

/** A copy of `labels` with `name` set to `value` (or removed when `value` is empty). */
export function withLabel(labels: Labels, name: string, value: string): Label[] {
  const out: Label[] = [];
  let placed = value === '';
  for (const label of labels) {
    if (label.name === name) continue;
    if (!placed && label.name > name) {
      out.push({ name, value });
      placed = true;
    }
    out.push(label);
  }
  if (!placed) out.push({ name, value });
  return out;
}

/** Prometheus' `labels.Compare`: by name, then value, pairwise; a prefix sorts first. */
export function compareLabels(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as Label;
    const y = b[i] as Label;
    if (x.name !== y.name) return x.name < y.name ? -1 : 1;
    if (x.value !== y.value) return x.value < y.value ? -1 : 1;
  }
  return a.length - b.length;
}

const LEGACY_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Whether a name needs no quoting in PromQL text (Prometheus' legacy validation). */
export function isLegacyLabelName(name: string): boolean {
  return LEGACY_LABEL_NAME.test(name);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Prometheus 3 accepts any non-empty valid UTF-8 label name. Invalid bytes written as `\xHH`
 * escapes reach us as lone surrogates (see go-strings.ts), so a lone surrogate means invalid.
 */
export function isValidLabelName(name: string): boolean {
  return name.length > 0 && !LONE_SURROGATE.test(name);
}

/**
 * Go's `strconv.Quote` as Prometheus uses it for label values: printable Unicode stays, the
 * usual escapes for control characters, `\x` for other bytes below 0x20 and 0x7f.
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    switch (char) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0xdc80 && code <= 0xdcff) out += `\\x${(code - 0xdc00).toString(16)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else if ((code >= 0x80 && code < 0xa0) || code === 0xad) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** A label name as Prometheus prints it: bare when legacy-valid, quoted otherwise. */
export function formatLabelName(name: string): string {
  return isLegacyLabelName(name) ? name : goQuote(name);
}

/** `labels.Labels.String()`: `{a="1", b="2"}`. */
export function formatLabels(labels: Labels): string {
  return `{${labels.map((l) => `${formatLabelName(l.name)}=${goQuote(l.value)}`).join(', ')}}`;
}
