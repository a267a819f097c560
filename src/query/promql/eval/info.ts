/**
 * Prometheus 3's experimental `info(v [, {data label selector}])`: each series of `v` gains the
 * data labels of the info series (`target_info` unless the selector names others by `__name__`)
 * that share its identifying labels, `instance` and `job`. Info series are read as an instant
 * vector on the query's grid, at the `@`/offset of `v`'s first selector, each step remembering
 * its sample's own time: of two info series with one signature the newer sample wins, and two
 * of the same time are a conflict. A selector's data label matchers both filter the info series
 * and limit which of their labels are copied; when none matched a series and one of those
 * matchers refuses the empty string, the series is dropped at that step.
 */

import { childrenOf, type Expr, type SubqueryExpr, unwrapParens, type VectorSelector } from '../ast.js';
import { formatLabels, getLabel, labelsFromPairs, labelsKey, METRIC_NAME } from '../labels.js';
import { type CompiledMatcher, compileMatcher, compileMatchers } from '../matchers.js';
import { type Label, type Labels, type Matcher, PromqlError } from '../types.js';
import type { EvalHost } from './eval-host.js';
import { histogramAt, SeriesCollector, type StepSeries, type Value } from './values.js';

const TARGET_INFO = 'target_info';
const IDENTIFYING_LABELS = ['instance', 'job'];

/**
 * The `__name__` matchers that pick info series: as given when one is positive; with only
 * negative ones, those after an implied `=~".+_info"`; with none, `="target_info"`.
 */
function effectiveNameMatchers(matchers: Matcher[]): Matcher[] {
  if (matchers.some((m) => m.op === '=' || m.op === '=~')) return matchers;
  if (matchers.length > 0) return [{ name: METRIC_NAME, op: '=~', value: '.+_info' }, ...matchers];
  return [{ name: METRIC_NAME, op: '=', value: TARGET_INFO }];
}

/** Go's regexp.QuoteMeta. */
function quoteMeta(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/**
 * The first selector of `expr` in walk order with the subqueries around it: its `@` (or the
 * innermost enclosing subquery's) pins when info series are read, and the offsets up to it add.
 */
function firstSelector(
  expr: Expr,
  path: SubqueryExpr[] = [],
): { selector: VectorSelector; path: SubqueryExpr[] } | null {
  if (expr.type === 'VectorSelector') return { selector: expr, path };
  if (expr.type === 'MatrixSelector') return { selector: expr.selector, path };
  const inner = expr.type === 'SubqueryExpr' ? [...path, expr] : path;
  for (const child of childrenOf(expr)) {
    const found = firstSelector(child, inner);
    if (found) return found;
  }
  return null;
}

/** A selector for the info series with the time modifiers that govern `base`. */
function infoSelector(ev: EvalHost, base: Expr, matchers: Matcher[]): VectorSelector {
  let offsetMs = 0;
  let atMs: number | null = null;
  const found = firstSelector(base);
  if (found) {
    const own = ev.resolveModifiers(found.selector);
    offsetMs = own.offsetMs;
    atMs = own.atMs;
    for (let i = found.path.length - 1; atMs === null && i >= 0; i--) {
      const sq = ev.resolveModifiers(found.path[i] as SubqueryExpr);
      offsetMs += sq.offsetMs;
      atMs = sq.atMs;
    }
  }
  return {
    type: 'VectorSelector',
    name: '',
    matchers,
    offsetMs,
    offsetExpr: null,
    atMs,
    startOrEnd: null,
    pos: { start: 0, end: 0 },
  };
}

/** `__name__` plus the identifying labels present: what a base and an info series join on. */
function signature(name: string, labels: Labels): string {
  let sig = name;
  for (const id of IDENTIFYING_LABELS) {
    const v = getLabel(labels, id);
    if (v !== '') sig += `\xff${id}\xff${v}`;
  }
  return sig;
}

export async function evalInfo(ev: EvalHost, args: Expr[]): Promise<Value> {
  const baseExpr = args[0] as Expr;
  const base = await ev.vector(unwrapParens(baseExpr));
  // Data label matchers by label name; `__name__` ones choose the info metrics.
  const dataMatchers = new Map<string, Matcher[]>();
  const nameMatchers: Matcher[] = [];
  const selector = args[1] === undefined ? null : (unwrapParens(args[1]) as VectorSelector);
  if (selector !== null) {
    for (const m of selector.matchers) {
      if (m.name === METRIC_NAME) nameMatchers.push(m);
      else dataMatchers.set(m.name, [...(dataMatchers.get(m.name) ?? []), m]);
    }
  }
  const effective = compileMatchers(effectiveNameMatchers(nameMatchers));
  // Info series themselves are not enriched.
  const ignored = base.map((s) => effective.every((m) => m.matches(getLabel(s.labels, METRIC_NAME))));

  const idValues = new Map<string, Set<string>>();
  base.forEach((s, k) => {
    if (ignored[k]) return;
    for (const id of IDENTIFYING_LABELS) {
      const v = getLabel(s.labels, id);
      if (v === '') continue;
      let values = idValues.get(id);
      if (values === undefined) idValues.set(id, (values = new Set()));
      values.add(v);
    }
  });
  let info: StepSeries[] = [];
  if (idValues.size > 0) {
    const matchers: Matcher[] = [];
    for (const [id, values] of idValues) {
      matchers.push({ name: id, op: '=~', value: [...values].map(quoteMeta).join('|') });
    }
    for (const ms of dataMatchers.values()) matchers.push(...ms);
    matchers.push(...effectiveNameMatchers(nameMatchers));
    info = await ev.selectVector(infoSelector(ev, baseExpr, matchers), true);
  }
  return { kind: 'vector', series: combine(ev, base, ignored, info, dataMatchers) };
}

function combine(
  ev: EvalHost,
  base: StepSeries[],
  ignored: boolean[],
  info: StepSeries[],
  dataMatchers: Map<string, Matcher[]>,
): StepSeries[] {
  const infoNames = [...new Set(info.map((s) => getLabel(s.labels, METRIC_NAME)))];
  const baseSigs = base.map((s) => infoNames.map((name) => signature(name, s.labels)));
  const infoSigs = info.map((s) => signature(getLabel(s.labels, METRIC_NAME), s.labels));
  // A series dropped when nothing matched it: some data matcher refuses the empty value.
  const compiled: CompiledMatcher[] = [...dataMatchers.values()].flat().map(compileMatcher);
  const emptyAccepted = compiled.every((m) => m.matches(''));
  const out = new SeriesCollector(ev.steps);
  const bySig = new Map<string, { series: StepSeries; t: number }>();
  for (let step = 0; step < ev.steps; step++) {
    ev.checkCancelled();
    bySig.clear();
    info.forEach((s, k) => {
      if (s.present[step] === 0) return;
      if (histogramAt(s, step) !== undefined) throw new PromqlError('execution', 'info sample should be float');
      const t = s.timestamps?.[step] as number;
      const sig = infoSigs[k] as string;
      const existing = bySig.get(sig);
      if (existing === undefined || existing.t < t) bySig.set(sig, { series: s, t });
      else if (existing.t === t) {
        throw new PromqlError(
          'execution',
          `found duplicate series for info metric: existing ${formatLabels(existing.series.labels)} @ ${existing.t}, new ${formatLabels(s.labels)} @ ${t}`,
        );
      }
    });
    base.forEach((s, k) => {
      if (s.present[step] === 0) return;
      let labels: Labels = s.labels;
      if (!ignored[k]) {
        const added = new Map<string, string>();
        let matched = 0;
        for (const sig of baseSigs[k] as string[]) {
          const found = bySig.get(sig);
          if (found === undefined) continue;
          matched++;
          for (const l of found.series.labels) {
            if (l.name === METRIC_NAME) continue;
            if (dataMatchers.size > 0 && !dataMatchers.has(l.name)) continue;
            const had = added.get(l.name);
            if (had !== undefined && had !== l.value)
              throw new PromqlError('execution', `conflicting label: ${l.name}`);
            if (getLabel(s.labels, l.name) !== '') continue;
            added.set(l.name, l.value);
          }
        }
        if (matched === 0 && !emptyAccepted) return;
        if (added.size > 0)
          labels = labelsFromPairs([...s.labels.map((l: Label) => [l.name, l.value] as const), ...added]);
      }
      const h = histogramAt(s, step);
      if (h !== undefined) out.addHistogram(labels, s.dropName, step, h, labelsKey(labels));
      else out.add(labels, s.dropName, step, s.values[step] as number, labelsKey(labels));
    });
  }
  return out.result();
}
