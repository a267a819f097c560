/**
 * Runs one PromQL test script against the engine over an in-memory source and judges every eval
 * case as Prometheus' promqltest does (shared/conformance/README.md §1.4): exact label sets,
 * float equality within 1e-6 relative, order only when `ordered`, expected failures and their
 * messages, and annotation expectations (reported separately as `valuesPass`).
 */

import { instantQuery, type QueryOutcome, rangeQuery } from '../../../src/query/promql/engine.js';
import { type FloatHistogram, histogramsEqual } from '../../../src/query/promql/histogram/float-histogram.js';
import { histogramTestExpression } from '../../../src/query/promql/histogram/text.js';
import { compareLabels, formatLabels, labelsKey } from '../../../src/query/promql/labels.js';
import { MemorySource } from '../../../src/query/promql/memory-source.js';
import { compileGoRegex } from '../../../src/query/promql/regex.js';
import { isStaleNaN, type Labels, staleNaN } from '../../../src/query/promql/types.js';
import { atModifierVariants, QUERY_CONTEXT_FUNCTIONS } from './harness-checks.js';
import { classicToNhcb } from './nhcb.js';
import { type AnnotationExpectation, type EvalCase, parseScript } from './script.js';
import type { SeriesItem } from './series.js';

/** A case's place in MANIFEST.tsv. */
export interface ManifestEntry {
  scope: 'core' | 'out_of_scope';
  tags: string[];
}

export interface CaseOutcome {
  file: string;
  line: number;
  query: string;
  scope: 'core' | 'out_of_scope';
  tags: string[];
  /** Result (or failure) and annotations as expected. */
  pass: boolean;
  /** Result (or failure) as expected, annotations not considered. */
  valuesPass: boolean;
  /** What differed, for the log. */
  problem: string;
}

const MIN_NORMAL = 2.2250738585072014e-308;
const EPSILON = 1e-6;

/** promqltest's `almostEqual`, with a staleness marker only equal to another one. */
export function almostEqual(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) && isStaleNaN(a) === isStaleNaN(b);
  if (a === b) return true;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || absSum < MIN_NORMAL) return diff < EPSILON * MIN_NORMAL;
  return diff / Math.min(absSum, Number.MAX_VALUE) < EPSILON;
}

/** promqltest compiles expected-message regexes with Go's `regexp.MustCompile`: unanchored RE2. */
function goRegex(re: string): { test(text: string): boolean } {
  return compileGoRegex(re);
}

/** Reads MANIFEST.tsv into `file:line` → entry. */
export function parseManifest(text: string): Map<string, ManifestEntry> {
  const out = new Map<string, ManifestEntry>();
  for (const row of text.split('\n')) {
    if (row === '' || row.startsWith('#')) continue;
    const [file, line, , scope, tags] = row.split('\t');
    out.set(`${file}:${line}`, {
      scope: scope === 'core' ? 'core' : 'out_of_scope',
      tags: tags === '-' || tags === undefined ? [] : tags.split(','),
    });
  }
  return out;
}

/** Runs every command of a script; one outcome per eval case. */
export async function runScript(
  file: string,
  source: string,
  manifest: Map<string, ManifestEntry>,
): Promise<CaseOutcome[]> {
  const store = new MemorySource();
  const outcomes: CaseOutcome[] = [];
  for (const command of parseScript(source)) {
    if (command.kind === 'clear') {
      store.clear();
      continue;
    }
    if (command.kind === 'load') {
      const byLabels = new Map<string, (typeof command.series)[number]>();
      for (const series of command.series) byLabels.set(labelsKey(series.labels), series);
      for (const series of byLabels.values()) {
        series.items.forEach((item, k) => {
          if (item.kind === 'value') store.add(series.labels, k * command.intervalMs, item.value);
          else if (item.kind === 'histogram') store.addHistogram(series.labels, k * command.intervalMs, item.histogram);
          else if (item.kind === 'stale') store.add(series.labels, k * command.intervalMs, staleNaN());
        });
      }
      if (command.withNhcb) {
        for (const series of classicToNhcb([...byLabels.values()]))
          for (const { index, histogram } of series.samples)
            store.addHistogram(series.labels, index * command.intervalMs, histogram);
      }
      continue;
    }
    const entry = manifest.get(`${file}:${command.line}`) ?? { scope: 'core', tags: [] };
    const { valuesProblem, annotationsProblem } = await judge(command, store);
    outcomes.push({
      file,
      line: command.line,
      query: command.query,
      scope: entry.scope,
      tags: entry.tags,
      pass: valuesProblem === '' && annotationsProblem === '',
      valuesPass: valuesProblem === '',
      problem: valuesProblem || annotationsProblem,
    });
  }
  return outcomes;
}

async function judge(c: EvalCase, store: MemorySource): Promise<{ valuesProblem: string; annotationsProblem: string }> {
  if (!c.instant) {
    const run = await attempt(() => rangeQuery(c.query, c.startMs, c.endMs, c.stepMs, { source: store }));
    return judgeRun(c, run);
  }
  // promqltest evaluates an `expect range vector` case at the end of that range.
  const timeMs = c.rangeVector?.endMs ?? c.startMs;
  const variants = [{ query: c.query, timeMs }, ...atModifierVariants(c.query, timeMs)];
  for (const variant of variants) {
    const label =
      variant.query === c.query && variant.timeMs === timeMs ? '' : ` [as ${variant.query} at ${variant.timeMs}]`;
    const run = await attempt(() => instantQuery(variant.query, variant.timeMs, { source: store }));
    const verdict = judgeRun(c, run);
    if (verdict.valuesProblem !== '' || verdict.annotationsProblem !== '') {
      return {
        valuesProblem: verdict.valuesProblem && verdict.valuesProblem + label,
        annotationsProblem: verdict.annotationsProblem && verdict.annotationsProblem + label,
      };
    }
    if (
      c.fail ||
      c.rangeVector !== undefined ||
      c.expectedString !== undefined ||
      QUERY_CONTEXT_FUNCTIONS.test(variant.query)
    )
      continue;
    const problem = await rangeModeProblem(c, store, variant.query, variant.timeMs, run.result as QueryOutcome);
    if (problem !== '') return { valuesProblem: `${problem} (range mode)${label}`, annotationsProblem: '' };
  }
  return { valuesProblem: '', annotationsProblem: '' };
}

interface Run {
  result: QueryOutcome | null;
  error: Error | null;
}

async function attempt(query: () => Promise<QueryOutcome>): Promise<Run> {
  try {
    return { result: await query(), error: null };
  } catch (e) {
    return { result: null, error: e as Error };
  }
}

function judgeRun(c: EvalCase, { result, error }: Run): { valuesProblem: string; annotationsProblem: string } {
  if (c.fail) {
    if (error === null) return { valuesProblem: 'expected a failure, query succeeded', annotationsProblem: '' };
    if (c.failMessage !== undefined && error.message.trim() !== c.failMessage) {
      return {
        valuesProblem: `error ${JSON.stringify(error.message)} is not ${JSON.stringify(c.failMessage)}`,
        annotationsProblem: '',
      };
    }
    if (c.failRegex !== undefined && !goRegex(c.failRegex).test(error.message)) {
      return {
        valuesProblem: `error ${JSON.stringify(error.message)} does not match /${c.failRegex}/`,
        annotationsProblem: '',
      };
    }
    return { valuesProblem: '', annotationsProblem: '' };
  }
  if (error !== null || result === null)
    return { valuesProblem: `unexpected error: ${error?.message}`, annotationsProblem: '' };
  return { valuesProblem: compareResult(c, result), annotationsProblem: compareAnnotations(c, result) };
}

/** Harness check (a): the middle step of t−1m..t+1m must match the expectation too. */
async function rangeModeProblem(
  c: EvalCase,
  store: MemorySource,
  query: string,
  timeMs: number,
  instant: QueryOutcome,
): Promise<string> {
  const run = await attempt(() => rangeQuery(query, timeMs - 60_000, timeMs + 60_000, 60_000, { source: store }));
  if (run.error !== null || run.result === null) return `error ${run.error?.message}`;
  if (c.ordered) return '';
  const matrix = run.result;
  if (matrix.resultType !== 'matrix') return `range query gave ${matrix.resultType}`;
  for (let i = 1; i < matrix.series.length; i++) {
    const previous = matrix.series[i - 1] as (typeof matrix.series)[number];
    const current = matrix.series[i] as (typeof matrix.series)[number];
    if (compareLabels(previous.labels, current.labels) > 0) return 'matrix not sorted by labels';
  }
  const samples = [];
  for (const s of matrix.series) {
    const index = s.t.indexOf(timeMs);
    if (index >= 0) samples.push({ labels: s.labels, t: timeMs, v: s.v[index] as number });
    const hIndex = s.histograms?.t.indexOf(timeMs) ?? -1;
    if (hIndex >= 0) samples.push({ labels: s.labels, t: timeMs, v: Number.NaN, h: s.histograms?.h[hIndex] });
  }
  if (instant.resultType === 'scalar') {
    const sample = samples[0];
    if (!sample) return 'no value at the middle step';
    return compareResult(c, { resultType: 'scalar', t: timeMs, v: sample.v, warnings: [], infos: [] });
  }
  return compareResult(c, { resultType: 'vector', samples, warnings: [], infos: [] });
}

function expectedPoints(items: SeriesItem[], startMs: number, stepMs: number): { t: number; v: number }[] {
  const points: { t: number; v: number }[] = [];
  items.forEach((item, i) => {
    if (item.kind === 'value') points.push({ t: startMs + i * stepMs, v: item.value });
  });
  return points;
}

/** promqltest's histogram comparison: empty buckets ignored, 1e-6 tolerance, the hint only when written. */
function sameHistogram(expected: SeriesItem & { kind: 'histogram' }, got: FloatHistogram | undefined): boolean {
  if (got === undefined) return false;
  if (expected.hintSet && expected.histogram.hint !== got.hint) return false;
  return histogramsEqual(expected.histogram, got, almostEqual);
}

function compareHistogramPoints(
  labels: Labels,
  items: SeriesItem[],
  startMs: number,
  stepMs: number,
  got: { t: number[]; h: FloatHistogram[] } | undefined,
): string {
  const wanted: { t: number; item: SeriesItem & { kind: 'histogram' } }[] = [];
  items.forEach((item, i) => {
    if (item.kind === 'histogram') wanted.push({ t: startMs + i * stepMs, item });
  });
  const gotT = got?.t ?? [];
  const show = (): string =>
    `${formatLabels(labels)}: histograms ${gotT.map((t, i) => `${t}:${histogramTestExpression(got?.h[i] as FloatHistogram)}`).join(' ')} instead of ${wanted.map((w) => `${w.t}:${histogramTestExpression(w.item.histogram)}`).join(' ')}`;
  if (wanted.length !== gotT.length) return show();
  for (let i = 0; i < wanted.length; i++) {
    const w = wanted[i] as (typeof wanted)[number];
    if (w.t !== gotT[i] || !sameHistogram(w.item, got?.h[i])) return show();
  }
  return '';
}

function comparePoints(labels: Labels, expected: { t: number; v: number }[], t: number[], v: number[]): string {
  const got = t.map((time, i) => `${time}:${v[i]}`).join(' ');
  const want = expected.map((p) => `${p.t}:${p.v}`).join(' ');
  if (expected.length !== t.length) return `${formatLabels(labels)}: points ${got} instead of ${want}`;
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i] as { t: number; v: number };
    if (e.t !== t[i] || !almostEqual(e.v, v[i] as number))
      return `${formatLabels(labels)}: points ${got} instead of ${want}`;
  }
  return '';
}

function compareResult(c: EvalCase, result: QueryOutcome): string {
  if (c.expectedString !== undefined) {
    if (result.resultType !== 'string') return `expected a string, got ${result.resultType}`;
    return result.v === c.expectedString
      ? ''
      : `string ${JSON.stringify(result.v)} instead of ${JSON.stringify(c.expectedString)}`;
  }
  if (c.expectedScalar !== undefined) {
    if (result.resultType !== 'scalar') return `expected a scalar, got ${result.resultType}`;
    return almostEqual(result.v, c.expectedScalar) ? '' : `scalar ${result.v} instead of ${c.expectedScalar}`;
  }
  const expected = c.series;
  if (c.instant && c.rangeVector === undefined) {
    if (result.resultType !== 'vector') {
      if (expected.length === 0 && result.resultType === 'matrix' && result.series.length === 0) return '';
      return `expected an instant vector, got ${result.resultType}`;
    }
    const got = new Map(result.samples.map((s, i) => [labelsKey(s.labels), { sample: s, index: i }]));
    if (result.samples.length !== expected.length) {
      return `${result.samples.length} samples (${result.samples.map((s) => formatLabels(s.labels)).join(' ')}) instead of ${expected.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const { description, raw } = expected[i] as EvalCase['series'][number];
      const match = got.get(labelsKey(description.labels));
      if (!match)
        return `missing ${raw}; got ${result.samples.map((s) => `${formatLabels(s.labels)} ${s.v}`).join(', ')}`;
      const item = description.items[0];
      if (description.items.length !== 1 || (item?.kind !== 'value' && item?.kind !== 'histogram'))
        return `expected line needs one value: ${raw}`;
      const gotText = match.sample.h ? histogramTestExpression(match.sample.h) : String(match.sample.v);
      if (item.kind === 'histogram') {
        if (!sameHistogram(item, match.sample.h)) return `${raw}: got ${gotText}`;
      } else if (match.sample.h !== undefined || !almostEqual(match.sample.v, item.value))
        return `${raw}: got ${gotText}`;
      if (c.ordered && match.index !== i) return `${raw}: at position ${match.index} instead of ${i}`;
    }
    return '';
  }
  if (result.resultType !== 'matrix') {
    if (expected.length === 0 && result.resultType === 'vector' && result.samples.length === 0) return '';
    return `expected a range vector, got ${result.resultType}`;
  }
  const grid = c.rangeVector ?? { startMs: c.startMs, endMs: c.endMs, stepMs: c.stepMs };
  const got = new Map(result.series.map((s) => [labelsKey(s.labels), s]));
  const wanted = expected.filter((e) =>
    e.description.items.some((item) => item.kind === 'value' || item.kind === 'histogram'),
  );
  if (result.series.length !== wanted.length) {
    return `${result.series.length} series (${result.series.map((s) => formatLabels(s.labels)).join(' ')}) instead of ${wanted.length}`;
  }
  for (const { description, raw } of wanted) {
    const series = got.get(labelsKey(description.labels));
    if (!series) return `missing ${raw}`;
    const problem = comparePoints(
      description.labels,
      expectedPoints(description.items, grid.startMs, grid.stepMs),
      series.t,
      series.v,
    );
    if (problem !== '') return problem;
    const histogramProblem = compareHistogramPoints(
      description.labels,
      description.items,
      grid.startMs,
      grid.stepMs,
      series.histograms,
    );
    if (histogramProblem !== '') return histogramProblem;
  }
  return '';
}

function compareAnnotations(c: EvalCase, result: QueryOutcome): string {
  if (c.noWarn && result.warnings.length > 0) return `unexpected warnings: ${result.warnings.join('; ')}`;
  if (c.noInfo && result.infos.length > 0) return `unexpected infos: ${result.infos.join('; ')}`;
  for (const kind of ['warn', 'info'] as const) {
    const wanted = c.annotations.filter((a) => a.kind === kind);
    if (wanted.length === 0) continue;
    const got = kind === 'warn' ? result.warnings : result.infos;
    if (got.length === 0) return `expected ${kind} annotations, got none`;
    const matches = (a: AnnotationExpectation, text: string): boolean =>
      a.message !== undefined ? text === a.message : a.regex !== undefined ? goRegex(a.regex).test(text) : true;
    const specific = wanted.filter((a) => a.message !== undefined || a.regex !== undefined);
    for (const a of specific) {
      if (!got.some((text) => matches(a, text)))
        return `no ${kind} annotation matches ${a.message ?? a.regex}; got ${got.join('; ')}`;
    }
    if (specific.length > 0) {
      for (const text of got)
        if (!specific.some((a) => matches(a, text))) return `unexpected ${kind} annotation ${text}`;
    }
  }
  return '';
}
