/**
 * The shards' groups merged by key, in the router. A group that one shard alone sent (most of
 * them: a series lives on one shard) stays where it arrived, packed (group-wire.ts), and is
 * remembered as two numbers; only a group that several shards sent gets state objects to merge
 * into. Key cells and states are read out of the packed columns when the groups are finished, so
 * the objects made per group die young instead of living through the whole merge, which made a
 * large GROUP BY's router mostly garbage collection.
 */
import type { TimeSlice } from '../../../shared/time-slice.js';
import type { AggregateCall, GroupsResult } from '../plan/plan.js';
import type { Value } from '../types/values.js';
import { mergeState } from './aggregate-exec.js';
import { keyAt, stateAt } from './group-wire.js';
import { KeyIndex } from './key-index.js';

export class GroupMerge {
  private readonly index = new KeyIndex();
  private readonly results: GroupsResult[] = [];
  /** Per group: the result and row it first came in (-1 for a group made here). */
  private readonly source: number[] = [];
  private readonly row: number[] = [];
  /** Per group: its states once another shard's were merged into them (or it was made here). */
  private readonly merged: Array<unknown[] | undefined> = [];
  /** Keys of the groups made here, by group. */
  private readonly madeKeys = new Map<number, Value[]>();

  constructor(private readonly aggregates: readonly AggregateCall[]) {}

  get count(): number {
    return this.source.length;
  }

  /** Merges one shard's groups in, yielding to the event loop as `slice` says. */
  async add(result: GroupsResult, slice: TimeSlice): Promise<void> {
    const r = this.results.push(result) - 1;
    // One key array for every lookup: the index keeps no key it is given.
    const key = new Array<Value>(result.keys.length);
    for (let i = 0; i < result.count; i++) {
      if (slice.tick()) await slice.next();
      for (let c = 0; c < key.length; c++) key[c] = keyAt(result.keys[c] as GroupsResult['keys'][number], i);
      const count = this.source.length;
      const g = this.index.numberOf(key, () => count);
      if (g === count) {
        this.source.push(r);
        this.row.push(i);
        this.merged.push(undefined);
        continue;
      }
      const target = this.statesOf(g);
      for (let a = 0; a < this.aggregates.length; a++) {
        mergeState(
          this.aggregates[a] as AggregateCall,
          target[a],
          stateAt(result.states[a] as GroupsResult['states'][number], i),
        );
      }
    }
  }

  /** Adds a group no shard sent, with its key and states. */
  make(key: Value[], states: unknown[]): void {
    this.madeKeys.set(this.source.length, key);
    this.source.push(-1);
    this.row.push(-1);
    this.merged.push(states);
  }

  /** Key column `c` of group `g`. */
  keyAt(g: number, c: number): Value {
    const s = this.source[g] as number;
    if (s < 0) return (this.madeKeys.get(g) as Value[])[c] as Value;
    return keyAt((this.results[s] as GroupsResult).keys[c] as GroupsResult['keys'][number], this.row[g] as number);
  }

  /** The state of aggregate `a` in group `g` (a fresh object for a group only one shard sent). */
  stateAt(g: number, a: number): unknown {
    const merged = this.merged[g];
    if (merged !== undefined) return merged[a];
    const result = this.results[this.source[g] as number] as GroupsResult;
    return stateAt(result.states[a] as GroupsResult['states'][number], this.row[g] as number);
  }

  /** Group g's states as objects of its own, kept from now on (the next merge folds into them). */
  private statesOf(g: number): unknown[] {
    let states = this.merged[g];
    if (states === undefined) {
      states = this.aggregates.map((_, a) => this.stateAt(g, a));
      this.merged[g] = states;
    }
    return states;
  }
}
