/**
 * Partial count_values. Each shard counts its own series per (output label set, step) and names,
 * for each count, the first input series that made it (the order key); the router adds the counts
 * of equal label sets and emits each step's label sets in order of their first input series, which
 * is the order the unpushed evaluation meets them in (series sorted by label set).
 */
import { type AggregateExpr, unwrapParens } from '../ast.js';
import { groupLabels } from '../eval/aggregate.js';
import type { EvalHost } from '../eval/eval-host.js';
import { SeriesCollector, type StepSeries } from '../eval/values.js';
import { formatFloatF } from '../go-format.js';
import { compareLabels, goQuote, isValidLabelName, labelsKey, withLabel } from '../labels.js';
import { type Labels, PromqlError } from '../types.js';
import type { CountValuesState } from './eval-plan.js';

/** count_values' label name, checked as the unpushed evaluation checks it. */
async function valueLabelOf(ev: EvalHost, node: AggregateExpr): Promise<string> {
  const param = unwrapParens(node.param as NonNullable<AggregateExpr['param']>);
  const value = await ev.eval(param);
  if (value.kind !== 'string') throw new PromqlError('internal', 'count_values needs a string parameter');
  if (!isValidLabelName(value.value)) throw new PromqlError('execution', `invalid label name ${goQuote(value.value)}`);
  return value.value;
}

/** Interns label sets so a reply lists each once. */
class LabelTable {
  readonly list: Labels[] = [];
  private readonly index = new Map<string, number>();
  add(labels: Labels, key = labelsKey(labels)): number {
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.list.length;
      this.index.set(key, i);
      this.list.push(labels);
    }
    return i;
  }
}

/** Shard side: this shard's counts. */
export async function countValuesPartial(ev: EvalHost, node: AggregateExpr): Promise<CountValuesState> {
  const valueLabel = await valueLabelOf(ev, node);
  const input = await ev.vector(node.expr);
  const grouping = new Set(node.grouping);
  if (!node.without) grouping.add(valueLabel);
  const keys = new LabelTable();
  const firsts = new LabelTable();
  const step: number[] = [];
  const key: number[] = [];
  const first: number[] = [];
  const count: number[] = [];
  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    const counts = new Map<number, number>();
    for (const s of input) {
      if (s.present[i] !== 1) continue;
      const labelled = withLabel(s.labels, valueLabel, formatFloatF(s.values[i] as number));
      const k = keys.add(groupLabels(labelled, grouping, node.without));
      const entry = counts.get(k);
      if (entry !== undefined) {
        count[entry] = (count[entry] as number) + 1;
        continue;
      }
      counts.set(k, count.length);
      step.push(i);
      key.push(k);
      first.push(firsts.add(s.labels));
      count.push(1);
    }
  }
  return {
    keys: keys.list,
    firsts: firsts.list,
    step: Int32Array.from(step),
    key: Int32Array.from(key),
    first: Int32Array.from(first),
    count: Float64Array.from(count),
  };
}

/** Router side: the shards' counts added up, in the unpushed evaluation's order. */
export async function mergeCountValues(
  ev: EvalHost,
  node: AggregateExpr,
  states: readonly CountValuesState[],
): Promise<StepSeries[]> {
  await valueLabelOf(ev, node);
  const perStep: Array<Map<string, { labels: Labels; first: Labels; count: number }>> = Array.from(
    { length: ev.steps },
    () => new Map(),
  );
  for (const state of states) {
    for (let e = 0; e < state.step.length; e++) {
      const labels = state.keys[state.key[e] as number] as Labels;
      const first = state.firsts[state.first[e] as number] as Labels;
      const k = labelsKey(labels);
      const entries = perStep[state.step[e] as number] as Map<string, { labels: Labels; first: Labels; count: number }>;
      const entry = entries.get(k);
      if (entry === undefined) entries.set(k, { labels, first, count: state.count[e] as number });
      else {
        entry.count += state.count[e] as number;
        if (compareLabels(first, entry.first) < 0) entry.first = first;
      }
    }
  }
  const collector = new SeriesCollector(ev.steps);
  for (let i = 0; i < ev.steps; i++) {
    await ev.checkpoint();
    const entries = [...(perStep[i] as Map<string, { labels: Labels; first: Labels; count: number }>)];
    entries.sort((a, b) => compareLabels(a[1].first, b[1].first));
    for (const [k, entry] of entries) collector.add(entry.labels, false, i, entry.count, k);
  }
  return collector.result();
}
