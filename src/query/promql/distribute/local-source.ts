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
import type { TableSelect } from '../store/plan.js';
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
  private readonly tablesOf = new Map<string, TableSelect[]>();
  /** Raw samples read so far (for the shard's own accounting). */
  samplesRead = 0;

  constructor(
    private readonly scan: ScanSource,
    selectors: readonly SelectorTables[],
    private readonly samplesMax: number,
  ) {
    for (const s of selectors) this.tablesOf.set(matchersKey(s.matchers), s.tables);
  }

  async select(request: SelectRequest): Promise<SeriesSamples[]> {
    const tables = this.tablesOf.get(matchersKey(request.matchers));
    if (tables === undefined) throw new PromqlError('internal', 'a selector of a shard plan has no resolved tables');
    if (tables.length === 0) return [];
    // (start, end] in ms, as ShardSampleSource.select turns it into inclusive bounds.
    const minMs = Number.isFinite(request.startMs) ? Math.floor(request.startMs) + 1 : null;
    const maxMs = Number.isFinite(request.endMs) ? Math.floor(request.endMs) : null;
    const series = await selectLocal(this.scan, { tables, minMs, maxMs, samplesMax: this.samplesMax });
    for (const s of series) this.samplesRead += s.t.length;
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
