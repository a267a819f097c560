/**
 * The shard side of a SQL query: scan the shard's rows of one table (pruned by time range and
 * series filter), filter them, then either project rows (sorted and cut to the query's top rows
 * when ORDER BY/LIMIT allow) or fold them into partial aggregate states per group.
 *
 *   ScanSource.scan → chunk → typed columns → WHERE → rows sink | aggregate sink → ShardResult
 *
 * Pure code: runs in the shard worker thread and, for `SELECT` without FROM and the built-in
 * `numbers` table, in the router.
 */
import { Internal } from '../../../shared/errors.js';
import type { ScanChunk, ScanRequest, ScanSource, SeriesSummary } from '../../../shared/scan.js';
import { type DataType, isBinaryLike, type Vector } from '../../../shared/types.js';
import type { EvalContext } from '../functions/types.js';
import { type Batch, evaluate, filterBatch } from '../plan/eval.js';
import { CELL_BYTES, GROUP_BYTES, MemoryBudget } from '../plan/memory-budget.js';
import type { PlanExpr, SeriesFilterSpec, ShardOutput, ShardPlan, ShardResult } from '../plan/plan.js';
import { extractPruning, residualFilter } from '../plan/time-range.js';
import { tagValue } from '../types/tag-text.js';
import { castValue, type Value, valueKey } from '../types/values.js';
import { createState, updateStates } from './aggregate-exec.js';
import { blockFiltersOf } from './block-filters.js';
import { groupsResultOfColumns } from './group-wire.js';
import { KeyIndex } from './key-index.js';
import { RangeSink } from './range-exec.js';
import { RowSink } from './row-sink.js';
import { foldSeriesRuns, foldSummaries, type SeriesRunPlan, seriesRunPlanOf, takesSummaries } from './series-runs.js';
import type { Sink } from './sink.js';
import { foldTyped } from './typed-fold.js';

/**
 * Executes a plan fragment made by the planner against this shard's storage. Chunks may come
 * asynchronously: a shard's scan pauses between slices so writes waiting for the thread get it.
 */
export async function runShardPlan(plan: ShardPlan, source: ScanSource): Promise<ShardResult> {
  const p = plan;
  // The plan crossed a thread boundary as data: its version is checked, not assumed.
  if (p?.version !== 1) throw new Internal('unsupported SQL shard plan');
  const run = new PlanRun(p, storageFilter(p));
  for await (const batch of batchesOf(p, source)) if (!run.add(batch)) break;
  return run.finish();
}

/**
 * The filter left to evaluate over this plan's storage scan: without the time comparisons the
 * scan's bounds already enforce (checked, not assumed: the bounds must be at least as tight).
 */
function storageFilter(p: ShardPlan): PlanExpr | null {
  const scan = p.scan;
  if (!scan || !p.filter) return p.filter;
  const slot = scan.columns.findIndex((c) => c.role === 'time');
  if (slot < 0) return p.filter;
  const time = { slot, type: scan.types[slot] as DataType };
  const bounds = extractPruning(p.filter, { time, stringTags: new Map() });
  const tightEnough =
    (bounds.timeMin === undefined || (scan.timeMin !== undefined && scan.timeMin >= bounds.timeMin)) &&
    (bounds.timeMax === undefined || (scan.timeMax !== undefined && scan.timeMax <= bounds.timeMax));
  return tightEnough ? residualFilter(p.filter, time) : p.filter;
}

/**
 * Runs a plan's filter and output over batches of its scan columns (by slot). The router uses it
 * directly for plans over materialised relations.
 */
export function runPlanOnBatches(p: ShardPlan, batches: Iterable<Batch>): ShardResult {
  const run = new PlanRun(p);
  for (const batch of batches) if (!run.add(batch)) break;
  return run.finish();
}

/** One execution of a plan fragment: batches in, one partial result out. */
class PlanRun {
  private readonly ctx: EvalContext;
  private readonly sink: Sink;

  constructor(
    private readonly p: ShardPlan,
    private readonly filter: PlanExpr | null = p.filter,
  ) {
    this.ctx = { nowNanos: p.nowNanos, timezone: p.timezone };
    const budget = new MemoryBudget(p.memoryLimitBytes);
    this.sink =
      p.output.kind === 'rows'
        ? new RowSink(p.output, this.ctx, budget, p.sole === true)
        : p.output.kind === 'range'
          ? new RangeSink(p.output, this.ctx)
          : new AggregateSink(p.output, this.ctx, budget, seriesRunPlanOf(p));
  }

  /** Takes one batch of scan columns; false once the output wants no more rows. */
  add(batch: Batch): boolean {
    const p = this.p;
    const summaries = batch.chunk?.summaries;
    if (summaries !== undefined && this.sink instanceof AggregateSink) this.sink.addSummaries(summaries);
    const withCasts = p.scan?.casts ? castColumns(batch, p.scan.casts) : batch;
    const withFills = p.scan?.fills ? fillColumns(withCasts, p.scan.fills) : withCasts;
    const rows = this.filter ? filterBatch(this.filter, withFills, this.ctx) : withFills;
    return rows.rowCount === 0 || this.sink.add(rows);
  }

  finish(): ShardResult {
    return this.sink.finish();
  }
}

/**
 * Takes a value from an older kind where a row has one (rows written before MODIFY COLUMN), cast
 * to the column's type; a value that does not cast reads NULL, as a safe cast does.
 */
function castColumns(batch: Batch, casts: NonNullable<NonNullable<ShardPlan['scan']>['casts']>): Batch {
  const columns = batch.columns.slice();
  for (const { target, source, from, to } of casts) {
    const old = batch.columns[source] as Value[];
    const col = (columns[target] as Value[]).slice();
    for (let r = 0; r < batch.rowCount; r++) {
      const v = old[r] as Value;
      if (v === null) continue;
      try {
        col[r] = castValue(v, from, to);
      } catch {
        col[r] = null;
      }
    }
    columns[target] = col;
  }
  return {
    rowCount: batch.rowCount,
    columns,
    vectors: withoutSlots(
      batch,
      casts.map((c) => c.target),
    ),
  };
}

/** Replaces NULLs of columns with a fill value (NOT NULL columns added after rows were written). */
function fillColumns(batch: Batch, fills: Array<Value | undefined>): Batch {
  const columns = batch.columns.slice();
  fills.forEach((fill, slot) => {
    if (fill === undefined || fill === null) return;
    const col = batch.columns[slot] as Value[];
    columns[slot] = col.map((v) => (v === null ? fill : v));
  });
  const filled = fills.flatMap((fill, slot) => (fill === undefined || fill === null ? [] : [slot]));
  return { rowCount: batch.rowCount, columns, vectors: withoutSlots(batch, filled) };
}

/** The batch's vectors less those of `slots`, whose values were replaced. */
function withoutSlots(batch: Batch, slots: number[]): Batch['vectors'] {
  if (batch.vectors === undefined || batch.selection !== undefined) return undefined;
  const vectors = batch.vectors.slice();
  for (const slot of slots) vectors[slot] = undefined;
  return vectors;
}

async function* batchesOf(plan: ShardPlan, source: ScanSource): AsyncIterable<Batch> {
  const scan = plan.scan;
  if (!scan) {
    yield { rowCount: 1, columns: [] };
    return;
  }
  const request: ScanRequest = {
    tableId: scan.tableId,
    columns: scan.columns,
    timeMin: scan.timeMin,
    timeMax: scan.timeMax,
    ...seriesConditionsOf(scan.seriesFilter),
  };
  const runs = seriesRunPlanOf(plan);
  // Only the series-run fold takes series by their statistics (storage checks the rest).
  if (runs !== null && takesSummaries(runs)) request.summaries = true;
  const blockFilters = blockFiltersOf(scan, plan.filter);
  if (blockFilters.length > 0) request.blockFilters = blockFilters;
  for await (const chunk of source.scan(request)) yield chunkToBatch(chunk, scan.types);
}

/**
 * The plan's serialisable tag conditions as the scan wants them: index lookups (`seriesMatchers`)
 * and the series predicate that checks each candidate, made from the same value sets. A series
 * without the tag never passes.
 */
export function seriesConditionsOf(specs: SeriesFilterSpec[]): Pick<ScanRequest, 'seriesFilter' | 'seriesMatchers'> {
  if (specs.length === 0) return {};
  const matchers = specs.map((s) => {
    const values = new Set(s.values);
    return { id: s.columnId, values: s.values, test: (v: string) => values.has(v), missingMatches: false };
  });
  return {
    seriesFilter: (tags) =>
      matchers.every((m) => {
        const v = tags.get(m.id);
        return v !== undefined && m.test(v);
      }),
    seriesMatchers: matchers,
  };
}

/**
 * Converts storage vectors to value columns of the planned logical types. Columns convert on
 * first access: `SELECT count(*)` scans the time index only for row counts and never pays for
 * turning its values into bigints.
 */
export function chunkToBatch(chunk: ScanChunk, types: DataType[]): Batch {
  const n = chunk.rowCount;
  const columns: Value[][] = [];
  const vectors: Array<Vector | undefined> = [];
  chunk.vectors.forEach((vector, i) => {
    vectors[i] = keepsTyped(vector, types[i] ?? 'Null') ? vector : undefined;
    let converted: Value[] | null = null;
    Object.defineProperty(columns, i, {
      enumerable: true,
      get: () => {
        converted ??= vectorValues(vector, n, types[i] ?? 'Null');
        return converted;
      },
    });
  });
  return { rowCount: n, columns, chunk, vectors };
}

/** Whether a vector's cells already read as the values of `type` (see src/query/columns.ts). */
function keepsTyped(vector: Vector, type: DataType): boolean {
  return vector.kind !== 'str' || type === 'String' || isBinaryLike(type);
}

function vectorValues(vector: Vector, n: number, type: DataType): Value[] {
  const out = new Array<Value>(n);
  const valid = vector.valid;
  switch (vector.kind) {
    case 'str': {
      const values = vector.values as Array<string | null>;
      const asText = type === 'String' || isBinaryLike(type);
      for (let i = 0; i < n; i++) {
        const s = valid && valid[i] === 0 ? null : (values[i] ?? null);
        out[i] = asText ? s : tagValue(s, type);
      }
      return out;
    }
    case 'bool': {
      const values = vector.values as Uint8Array;
      for (let i = 0; i < n; i++) out[i] = valid && valid[i] === 0 ? null : values[i] === 1;
      return out;
    }
    default: {
      const values = vector.values as Float64Array | BigInt64Array | BigUint64Array;
      for (let i = 0; i < n; i++) out[i] = valid && valid[i] === 0 ? null : (values[i] as number | bigint);
      return out;
    }
  }
}

class AggregateSink implements Sink {
  private readonly groupIndex = new KeyIndex();
  /**
   * `keyColumns[c][g]`: key column c of group g. Kept as columns, as the answer sends them: an
   * array per group was one more object per group surviving the query's scavenges.
   */
  private readonly keyColumns: Value[][] = [];
  private groups = 0;
  /** `states[a][g]`: state of aggregate a for group g. */
  private readonly states: unknown[][];

  constructor(
    private readonly output: Extract<ShardOutput, { kind: 'aggregate' }>,
    private readonly ctx: EvalContext,
    private readonly budget: MemoryBudget,
    /** Set when the aggregate can fold whole series runs (series-runs.ts). */
    private readonly runs: SeriesRunPlan | null = null,
  ) {
    this.states = output.aggregates.map(() => []);
  }

  /** The group of a key of values (none for a global aggregate), made if new. */
  private readonly groupOfKey = (key: Value[]): number => this.groupIndex.numberOf(key, this.newGroup);

  private readonly newGroup = (key: readonly Value[]): number => {
    const g = this.groups++;
    this.budget.charge(GROUP_BYTES + key.length * CELL_BYTES, 'grouping in a shard');
    for (let c = 0; c < key.length; c++) (this.keyColumns[c] ??= []).push(key[c] as Value);
    this.output.aggregates.forEach((call, a) => {
      (this.states[a] as unknown[]).push(createState(call));
    });
    return g;
  };

  /** Series given by their statistics (asked for only when `runs` takes them). */
  addSummaries(summaries: readonly SeriesSummary[]): void {
    foldSummaries(this.runs as SeriesRunPlan, summaries, this.groupOfKey, this.states);
  }

  add(batch: Batch): boolean {
    if (this.runs !== null && batch.chunk && foldSeriesRuns(this.runs, batch.chunk, this.groupOfKey, this.states)) {
      return true;
    }
    const n = batch.rowCount;
    const sets = this.output.groupingSets;
    const keyColumns = this.output.groupBy.map((e) => evaluate(e, batch, this.ctx));
    if (sets !== undefined) {
      const args = this.output.aggregates.map((call) => call.args.map((e) => evaluate(e, batch, this.ctx)));
      sets.forEach((set, s) => {
        const groupOf = groupsInSet(keyColumns, set, s, n, this.groupOfKey);
        this.output.aggregates.forEach((call, a) => {
          updateStates(call, this.states[a] as unknown[], groupOf, args[a] as Value[][], n);
        });
      });
      return true;
    }
    const rowGroups = new Uint32Array(n);
    if (keyColumns.length === 0) {
      rowGroups.fill(this.groupOfKey([]));
    } else {
      groupRows(keyColumns as Value[][], n, rowGroups, this.groupOfKey);
    }
    this.fold(batch, rowGroups);
    return true;
  }

  /** Folds the batch's rows into the aggregates' states of their groups. */
  private fold(batch: Batch, groupOf: Uint32Array): void {
    this.output.aggregates.forEach((call, a) => {
      const states = this.states[a] as unknown[];
      if (foldTyped(call, batch, groupOf, states)) return;
      const args = call.args.map((e) => evaluate(e, batch, this.ctx));
      updateStates(call, states, groupOf, args, batch.rowCount);
    });
  }

  finish(): ShardResult {
    return groupsResultOfColumns(this.groups, this.keyColumns, this.states);
  }
}

/**
 * The group of each row by its key columns. A series' rows come together and in time order, so a
 * row mostly has the key of the row before (same tag values, same time bucket): it then takes that
 * row's group without a lookup. Values are compared by `===` (the same string, or bucket, is most
 * often the same reference); a NaN, or a list, never equals and just takes the lookup.
 */
function groupRows(keyColumns: Value[][], n: number, groupOf: Uint32Array, groupOfKey: (key: Value[]) => number): void {
  const width = keyColumns.length;
  const key = new Array<Value>(width);
  const previous = new Array<Value>(width);
  let group = -1;
  for (let r = 0; r < n; r++) {
    let same = group >= 0;
    for (let c = 0; c < width; c++) {
      const v = (keyColumns[c] as Value[])[r] as Value;
      key[c] = v;
      if (same && v !== previous[c]) same = false;
    }
    if (!same) {
      group = groupOfKey(key);
      for (let c = 0; c < width; c++) previous[c] = key[c] as Value;
    }
    groupOf[r] = group;
  }
}

/**
 * The group of each row in grouping set `s` (which groups by the key columns at `set`): the key
 * holds NULL for every other key column, then the set's position.
 */
function groupsInSet(
  keyColumns: Value[][],
  set: number[],
  s: number,
  n: number,
  groupOfKey: (key: Value[]) => number,
): Uint32Array {
  const groupOf = new Uint32Array(n);
  const key = new Array<Value>(keyColumns.length + 1).fill(null);
  key[keyColumns.length] = s;
  for (let r = 0; r < n; r++) {
    for (const c of set) key[c] = (keyColumns[c] as Value[])[r] as Value;
    groupOf[r] = groupOfKey(key);
  }
  return groupOf;
}

/** Group key text of a row of key values (shared with the router's merge). */
export function groupKeyOf(values: Value[]): string {
  let k = '';
  for (const v of values) k += `${valueKey(v)}\u0000`;
  return k;
}
