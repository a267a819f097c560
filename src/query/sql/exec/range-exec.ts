/**
 * The shard side of a range query (see plan-range.ts): each row is folded into the partial
 * states of every (BY key, time slot) whose window holds it. Aggregates with different RANGE
 * durations share the slots but not the rows: a row updates an aggregate only for slots within
 * that aggregate's range.
 *
 * Both the groups and the expansion are bounded: a new group is counted against the query's
 * range bounds (range-bounds.ts) before it is created, and (row, slot) pairs are folded in chunks
 * of PAIRS_PER_CHUNK, since one row may fall into thousands of slots.
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import type { EvalContext } from '../functions/types.js';
import { type Batch, evaluate } from '../plan/eval.js';
import type { ShardOutput, ShardResult } from '../plan/plan.js';
import { RangeGroupGuard } from '../plan/range-bounds.js';
import { type Value, valueKey } from '../types/values.js';
import { createState, updateStates } from './aggregate-exec.js';
import { groupsResult } from './group-wire.js';
import type { Sink } from './sink.js';

type RangeOutput = Extract<ShardOutput, { kind: 'range' }>;

/** (row, slot) pairs expanded before they are folded into states: bounds the scratch arrays. */
const PAIRS_PER_CHUNK = 65_536;

/** Folds rows into range-query partial states keyed by `[...by, slot]`. */
export class RangeSink implements Sink {
  private readonly groupIndex = new Map<string, number>();
  private readonly keys: Value[][] = [];
  /** `states[a][g]`: state of aggregate a for group g. */
  private readonly states: unknown[][];
  /** Distinct RANGE durations, with the aggregates that use each. */
  private readonly ranges: Array<{ rangeNanos: bigint; aggregates: number[] }> = [];
  private readonly guard: RangeGroupGuard;

  constructor(
    private readonly output: RangeOutput,
    private readonly ctx: EvalContext,
  ) {
    this.states = output.aggregates.map(() => []);
    this.guard = new RangeGroupGuard(output.bounds, output.by.length + 1);
    output.aggregates.forEach((call, a) => {
      const rangeNanos = call.rangeNanos ?? output.alignNanos;
      let entry = this.ranges.find((r) => r.rangeNanos === rangeNanos);
      if (!entry) this.ranges.push((entry = { rangeNanos, aggregates: [] }));
      entry.aggregates.push(a);
    });
  }

  private groupOf(by: Value[], slot: bigint): number {
    let k = '';
    for (const v of by) k += `${valueKey(v)}\u0000`;
    k += slot;
    let g = this.groupIndex.get(k);
    if (g === undefined) {
      this.guard.reserve(1);
      g = this.keys.length;
      this.keys.push([...by, slot]);
      this.output.aggregates.forEach((call, a) => {
        (this.states[a] as unknown[]).push(createState(call));
      });
      this.groupIndex.set(k, g);
    }
    return g;
  }

  add(batch: Batch): boolean {
    const { by, time, timeUnitNanos, alignNanos, originNanos, aggregates } = this.output;
    const byColumns = by.map((e) => evaluate(e, batch, this.ctx));
    const times = evaluate(time, batch, this.ctx);
    const args = aggregates.map((call) => call.args.map((e) => evaluate(e, batch, this.ctx)));
    for (const range of this.ranges) {
      let rows: number[] = [];
      let groups: number[] = [];
      const fold = (): void => {
        const groupOf = Uint32Array.from(groups);
        for (const a of range.aggregates) {
          const call = aggregates[a];
          if (!call) continue;
          const expanded = (args[a] as Value[][]).map((col) => rows.map((r) => col[r] as Value));
          updateStates(call, this.states[a] as unknown[], groupOf, expanded, rows.length);
        }
        rows = [];
        groups = [];
      };
      for (let r = 0; r < batch.rowCount; r++) {
        const t = times[r];
        if (t === null || t === undefined) continue;
        const nanos = (t as bigint) * timeUnitNanos;
        // Slots s = origin + k·align with t - range < s <= t.
        const kMax = floorDiv(nanos - originNanos, alignNanos);
        const kMin = floorDiv(nanos - range.rangeNanos - originNanos, alignNanos) + 1n;
        const keyValues = byColumns.map((c) => c[r] as Value);
        for (let k = kMin; k <= kMax; k++) {
          const slot = floorDiv(originNanos + k * alignNanos, timeUnitNanos);
          rows.push(r);
          groups.push(this.groupOf(keyValues, slot));
          if (rows.length >= PAIRS_PER_CHUNK) fold();
        }
      }
      if (rows.length > 0) fold();
    }
    return true;
  }

  finish(): ShardResult {
    return groupsResult(this.keys, this.states);
  }
}
