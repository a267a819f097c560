/**
 * Partial topk, bottomk, limitk and limit_ratio. A series the whole query selects for a group at
 * a step is also among what its own shard selects there (the shard's k best, its first k, or its
 * ratio-selected series), so each shard runs the same selection over its own series and ships
 * only the selected series' step values; the router runs the selection again over the union, fed
 * in the order the unpushed evaluation would see those series (sorted by label set, as the
 * source delivers them), with the global series count bounding k. Go's heap then makes the same
 * moves, so the same series come out in the same order. The exception is ties at the k-th value
 * (equal values, or several NaNs): which of the tied series Go's heap keeps depends on series it
 * never selects, which the router no longer sees; it then keeps an equally valid tied series.
 */
import { type AggregateExpr, unwrapParens } from '../ast.js';
import { groupLabels, selectK } from '../eval/aggregate.js';
import type { EvalHost } from '../eval/eval-host.js';
import type { StepSeries } from '../eval/values.js';
import { compareLabels, labelsKey } from '../labels.js';
import { PromqlError } from '../types.js';
import type { PackedSeries, PartialGroups } from './eval-plan.js';
import { groupSeries, mergeGroups } from './partial-fold.js';
import { packSeries, unpackSeries } from './step-pack.js';

async function paramOf(ev: EvalHost, node: AggregateExpr): Promise<Float64Array> {
  return ev.scalar(unwrapParens(node.param as NonNullable<AggregateExpr['param']>));
}

/** The wire form of a shard's k selection. */
export interface KPartialWire {
  kind: 'k';
  groups: PartialGroups;
  inputCount: number;
  series: PackedSeries;
}

/** Shard side: this shard's selection (the parameter is evaluated before the input, as unpushed). */
export async function selectKPartial(ev: EvalHost, node: AggregateExpr): Promise<KPartialWire> {
  const param = await paramOf(ev, node);
  const input = await ev.vector(node.expr);
  const { groups, groupOf } = groupSeries(node, input, new Set(node.grouping));
  const selected = await selectK(ev, node, param, input, groupOf, groups.labels.length, input.length);
  return { kind: 'k', groups, inputCount: input.length, series: packSeries(selected, ev.steps) };
}

/** Router side: the selection over the union of the shards' selections. */
export async function mergeK(
  ev: EvalHost,
  node: AggregateExpr,
  partials: readonly KPartialWire[],
): Promise<StepSeries[]> {
  const param = await paramOf(ev, node);
  const merged = mergeGroups(partials.map((p) => p.groups));
  const globalIndex = new Map(merged.labels.map((labels, g) => [labelsKey(labels), g]));
  const grouping = new Set(node.grouping);
  const candidates: Array<{ series: StepSeries; group: number }> = [];
  let inputCount = 0;
  for (const partial of partials) {
    inputCount += partial.inputCount;
    for (const series of unpackSeries(partial.series, ev.steps)) {
      const group = globalIndex.get(labelsKey(groupLabels(series.labels, grouping, node.without)));
      if (group === undefined) throw new PromqlError('internal', 'a shard selected a series outside its groups');
      candidates.push({ series, group });
    }
  }
  candidates.sort((a, b) => compareLabels(a.series.labels, b.series.labels));
  const input = candidates.map((c) => c.series);
  const groupOf = Int32Array.from(candidates, (c) => c.group);
  return selectK(ev, node, param, input, groupOf, merged.labels.length, inputCount);
}
