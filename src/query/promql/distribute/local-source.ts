/**
 * The `SampleSource` of an evaluation inside a shard: selectors read this shard's storage through
 * `selectLocal`, with the tables the router resolved for each selector (the shard has no
 * catalog). Series come back sorted by label set, the order the router's source delivers the
 * merged series in, so that a shard's series meet every order-sensitive step (groups, topk,
 * count_values) in the same relative order as the unpushed evaluation.
 */
import type { ScanSource } from '../../../shared/scan.js';
import { compareLabels } from '../labels.js';
import { selectLocal } from '../store/local-select.js';
import type { SelectBounds, TableSelect } from '../store/plan.js';
import {
  type Labels,
  type Matcher,
  PromqlError,
  type SampleSource,
  type SelectRequest,
  type SeriesSamples,
} from '../types.js';
import type { SelectorTables } from './eval-plan.js';

function matchersKey(matchers: readonly Matcher[]): string {
  return JSON.stringify(matchers.map((m) => [m.name, m.op, m.value]));
}

export class LocalSampleSource implements SampleSource {
  /** Per matchers key: the resolved tables and the plan's selector indexes with those matchers. */
  private readonly selectorsOf = new Map<string, { tables: TableSelect[]; indexes: number[] }>();
  /** Raw samples read so far (for the shard's own accounting). */
  samplesRead = 0;
  /** Whether a selection returned native histogram samples. */
  histogramsRead = false;
  /**
   * Per selector of the plan, the most series one selection of it read (`EvalAnswer`): the
   * router sums them over the shards, since each shard sees only its part of a selection.
   */
  readonly seriesSelected: number[];

  constructor(
    private readonly scan: ScanSource,
    selectors: readonly SelectorTables[],
    private readonly bounds: SelectBounds,
  ) {
    this.seriesSelected = selectors.map(() => 0);
    selectors.forEach((s, index) => {
      const key = matchersKey(s.matchers);
      const known = this.selectorsOf.get(key);
      if (known) known.indexes.push(index);
      else this.selectorsOf.set(key, { tables: s.tables, indexes: [index] });
    });
  }

  async select(request: SelectRequest): Promise<SeriesSamples[]> {
    const selector = this.selectorsOf.get(matchersKey(request.matchers));
    if (selector === undefined) throw new PromqlError('internal', 'a selector of a shard plan has no resolved tables');
    const { tables, indexes } = selector;
    if (tables.length === 0) return [];
    // (start, end] in ms, as ShardSampleSource.select turns it into inclusive bounds.
    const minMs = Number.isFinite(request.startMs) ? Math.floor(request.startMs) + 1 : null;
    const maxMs = Number.isFinite(request.endMs) ? Math.floor(request.endMs) : null;
    const series = await selectLocal(this.scan, { tables, minMs, maxMs, ...this.bounds });
    for (const s of series) {
      this.samplesRead += s.t.length;
      if (s.h !== undefined) this.histogramsRead = true;
    }
    for (const index of indexes) {
      this.seriesSelected[index] = Math.max(this.seriesSelected[index] as number, series.length);
    }
    return series.sort((a, b) => compareLabels(a.labels, b.labels));
  }

  series(): Promise<Labels[]> {
    throw new PromqlError('internal', 'series() is not available inside a shard evaluation');
  }

  labelNames(): Promise<string[]> {
    throw new PromqlError('internal', 'labelNames() is not available inside a shard evaluation');
  }

  labelValues(): Promise<string[]> {
    throw new PromqlError('internal', 'labelValues() is not available inside a shard evaluation');
  }
}
