/**
 * The router's `SampleSource`: PromQL selectors (and remote read queries) answered from the
 * shards. Matchers that need the catalog are resolved here — `__name__` against table names, the
 * database labels against databases, `__field__` against field columns, matchers on labels a
 * table lacks against the empty string — and what is left becomes one `LocalSelect` that every
 * shard runs over its own data (src/query/promql/store). Series live on exactly one shard, so the
 * router only concatenates and sorts. `query.max_series` bounds each shard's part of a selection
 * there, and the sum over the shards here (query/promql/limits.ts).
 *
 * Any table with a timestamp time index and a numeric field is selectable: its tag columns are
 * the labels, `__name__` is the table name, the value is `greptime_value` (or the first numeric
 * field, or the one `__field__` picks), and times are converted to ms. A table with a Binary
 * `greptime_histogram` field also yields its native histogram samples (rows whose value is NULL),
 * unless `__field__` picks the value column.
 */
import {
  answerBytes,
  type EvalAnswer,
  type EvalRequest,
  type ShardEvaluation,
} from '../query/promql/distribute/eval-plan.js';
import type { PromqlShardPlan } from '../query/promql/distribute/shard-plan.js';
import { presentCount } from '../query/promql/distribute/step-pack.js';
import type { FloatHistogram } from '../query/promql/histogram/float-histogram.js';
import { compareLabels, labelsKey } from '../query/promql/labels.js';
import { PROMQL_LIMITS_DEFAULT, type PromqlLimits, seriesOverLimit, tooManySeries } from '../query/promql/limits.js';
import { compileLabelTest, type LabelTest } from '../query/promql/store/matchers.js';
import {
  type LocalSelect,
  PROMQL_SHARD_PLAN_VERSION,
  type SelectBounds,
  type TableSelect,
  type TagMatcher,
} from '../query/promql/store/plan.js';
import type { Labels, Matcher, SampleSource, SelectRequest, SeriesSamples } from '../query/promql/types.js';
import type { ShardQueryPlan } from '../shared/messages.js';
import { spreadsRows } from '../shared/partition.js';
import type { DatabaseSchema, TableSchema } from '../shared/types.js';
import { physicalKindOf, timeUnitOf } from '../shared/types.js';
import { checkPermission } from './auth/credentials.js';
import type { AuthedUser } from './auth/user-provider.js';

export const METRIC_NAME_LABEL = '__name__';
/** Picks the value column of a multi-field table. */
export const FIELD_LABEL = '__field__';
/** Labels that pick the database instead of filtering series; `__schema__` wins over the others. */
export const DATABASE_LABELS = ['x_greptime_database', '__database__', '__schema__'] as const;
/** The value column remote write and OTLP create. */
const DEFAULT_VALUE_COLUMN = 'greptime_value';
/** The native histogram column remote write and OTLP create (shared/ingest/series-inserts.ts). */
const HISTOGRAM_COLUMN = 'greptime_histogram';

/**
 * `SHOALDB_PROMQL_PUSHDOWN=off` makes the router evaluate every PromQL query itself from raw
 * samples, as before pushdown: a switch for comparing the two (bench/query/promql-queries.ts) and
 * for ruling pushdown out when an answer looks wrong.
 */
export const PROMQL_PUSHDOWN_DEFAULT = process.env.SHOALDB_PROMQL_PUSHDOWN !== 'off';

/** What shards returned to the router for PromQL: raw samples, per-step values, partial states. */
export type ShardTrafficKind = 'raw' | 'step' | 'partial';

/**
 * Process-wide tallies of what shards returned for PromQL queries (`/metrics`:
 * `shoaldb_promql_shard_samples_returned_total` and `..._bytes_returned_total`). "Samples" are raw
 * samples, present step values, or present partial entries (one per group and step, or per
 * selected series and step).
 */
export const promqlShardTraffic: Record<ShardTrafficKind, { samples: number; bytes: number }> = {
  raw: { samples: 0, bytes: 0 },
  step: { samples: 0, bytes: 0 },
  partial: { samples: 0, bytes: 0 },
};

function countAnswer(answer: EvalAnswer): void {
  if (!answer.ok) return;
  const r = answer.result;
  let samples = 0;
  if (r.kind === 'step' || r.kind === 'k') samples = presentCount(r.series);
  else if (r.kind === 'fold') {
    // A (group, step) slot with floats, histograms or both is one partial value.
    const histograms = r.state.histogram?.count;
    r.state.count.forEach((c, slot) => {
      samples += c > 0 || (histograms?.[slot] ?? 0) > 0 ? 1 : 0;
    });
  } else samples = r.state.count.length;
  const tally = promqlShardTraffic[r.kind === 'step' ? 'step' : 'partial'];
  tally.samples += samples;
  tally.bytes += answerBytes(answer);
}

/** What the source reads of the catalog. */
export interface CatalogView {
  getDatabase(name: string): DatabaseSchema | undefined;
  listTables(db: string): TableSchema[];
}

/** What the source needs of the shards: the scatter of `ShardCluster.query`. */
export interface ShardQuery {
  query<T>(query: ShardQueryPlan & { lang: 'promql' }, signal?: AbortSignal): Promise<T[]>;
}

export interface SampleSourceOptions {
  /** Database of the request (`db` parameter / header); matchers on database labels override it. */
  db: string;
  /** The authenticated user, when a user provider is configured: must be allowed to read. */
  user?: AuthedUser | null | undefined;
  /**
   * `[query]` bounds (the same object the engine gets): samples per shard and series per
   * selection, carried to the shards in their plans; default PROMQL_LIMITS_DEFAULT.
   */
  limits?: PromqlLimits | undefined;
  /** Evaluate series-local subtrees in the shards; default PROMQL_PUSHDOWN_DEFAULT. */
  pushdown?: boolean | undefined;
}

function isDatabaseLabel(name: string): boolean {
  return (DATABASE_LABELS as readonly string[]).includes(name);
}

/** The value column of a table: the one `__field__` picks, else greptime_value, else the first numeric field. */
function valueColumnOf(table: TableSchema, fieldTests: LabelTest[]): TableSelect['value'] | null {
  const numeric = table.columns.filter((c) => {
    if (c.semantic !== 'FIELD' || c.type === 'Date') return false;
    const kind = physicalKindOf(c.type);
    return kind === 'f64' || kind === 'i64' || kind === 'u64';
  });
  const chosen =
    fieldTests.length > 0
      ? numeric.find((c) => fieldTests.every((test) => test(c.name)))
      : (numeric.find((c) => c.name === DEFAULT_VALUE_COLUMN) ?? numeric[0]);
  if (!chosen) return null;
  return { id: chosen.id, kind: physicalKindOf(chosen.type) as TableSelect['value']['kind'] };
}

/**
 * Resolves matchers against the catalog into the plan every shard runs, or null when no table can
 * match. `minMs`/`maxMs` are inclusive (null = unbounded). Invalid regexes throw InvalidArgument.
 */
export function planLocalSelect(
  catalog: CatalogView,
  defaultDb: string,
  matchers: readonly Matcher[],
  minMs: number | null,
  maxMs: number | null,
  bounds: SelectBounds,
): LocalSelect | null {
  let db = defaultDb;
  let schemaDb: string | null = null;
  const databaseTests: LabelTest[] = [];
  const nameTests: LabelTest[] = [];
  const fieldTests: LabelTest[] = [];
  const labelMatchers: Array<{ matcher: Matcher; test: LabelTest }> = [];
  for (const m of matchers) {
    const test = compileLabelTest(m.name, m.op, m.value);
    if (isDatabaseLabel(m.name)) {
      if (m.op === '=' && m.value !== '') {
        if (m.name === '__schema__') schemaDb = m.value;
        else db = m.value;
      } else {
        databaseTests.push(test);
      }
    } else if (m.name === METRIC_NAME_LABEL) nameTests.push(test);
    else if (m.name === FIELD_LABEL) fieldTests.push(test);
    else labelMatchers.push({ matcher: m, test });
  }
  if (schemaDb !== null) db = schemaDb;
  if (db.startsWith('greptime-')) db = db.slice('greptime-'.length);
  if (!databaseTests.every((test) => test(db)) || !catalog.getDatabase(db)) return null;

  const tables: TableSelect[] = [];
  for (const table of catalog.listTables(db)) {
    if (!nameTests.every((test) => test(table.name))) continue;
    const timeColumn = table.columns.find((c) => c.name === table.timeIndex);
    const timeUnit = timeColumn ? timeUnitOf(timeColumn.type) : null;
    if (!timeUnit) continue;
    const value = valueColumnOf(table, fieldTests);
    if (!value) continue;
    const tags = table.columns.filter((c) => c.semantic === 'TAG').map((c) => ({ id: c.id, name: c.name }));
    const tagMatchers: TagMatcher[] = [];
    let possible = true;
    for (const { matcher, test } of labelMatchers) {
      const tag = tags.find((t) => t.name === matcher.name);
      if (tag) tagMatchers.push({ columnId: tag.id, op: matcher.op, value: matcher.value });
      // A label the table does not have is empty on every series of it.
      else if (!test('')) possible = false;
    }
    if (!possible) continue;
    const histogram = table.columns.find(
      (c) => c.name === HISTOGRAM_COLUMN && c.semantic === 'FIELD' && c.type === 'Binary',
    );
    tables.push({
      tableId: table.id,
      metric: table.name,
      timeUnit,
      tags,
      value,
      matchers: tagMatchers,
      ...(histogram && fieldTests.length === 0 ? { histogram: { id: histogram.id } } : {}),
      ...(spreadsRows(table) ? { spread: true as const } : {}),
    });
  }
  if (tables.length === 0) return null;
  return { tables, minMs, maxMs, ...bounds };
}

/** ms bound of a SampleSource argument: integers pass, infinities mean unbounded. */
function boundOf(ms: number, round: (x: number) => number): number | null {
  return Number.isFinite(ms) ? round(ms) : null;
}

export class ShardSampleSource implements SampleSource, ShardEvaluation {
  /** Bounds of a selection of samples, in each shard. */
  private readonly bounds: SelectBounds;
  /**
   * Bounds of a listing of label sets (series, label names and values): unbounded in series.
   * They load no samples, and their answers have Prometheus' own `limit`.
   */
  private readonly listBounds: SelectBounds;
  readonly pushdownEnabled: boolean;

  constructor(
    private readonly catalog: CatalogView,
    private readonly shards: ShardQuery,
    private readonly options: SampleSourceOptions,
  ) {
    const limits = options.limits ?? PROMQL_LIMITS_DEFAULT;
    this.bounds = { samplesMax: limits.maxSamples, seriesMax: limits.maxSeries };
    this.listBounds = { samplesMax: limits.maxSamples, seriesMax: 0 };
    this.pushdownEnabled = options.pushdown ?? PROMQL_PUSHDOWN_DEFAULT;
  }

  private mayRead(): void {
    if (this.options.user) checkPermission(this.options.user, 'read');
  }

  /** Series and samples in (startMs, endMs], as selectors read them. */
  select(request: SelectRequest, signal?: AbortSignal): Promise<SeriesSamples[]> {
    const minMs = boundOf(request.startMs, (x) => Math.floor(x) + 1);
    return this.selectRange(request.matchers, minMs, boundOf(request.endMs, Math.floor), signal);
  }

  /** Series and samples in [minMs, maxMs] (null = unbounded), sorted by label set. */
  async selectRange(
    matchers: readonly Matcher[],
    minMs: number | null,
    maxMs: number | null,
    signal?: AbortSignal,
  ): Promise<SeriesSamples[]> {
    this.mayRead();
    const select = planLocalSelect(this.catalog, this.options.db, matchers, minMs, maxMs, this.bounds);
    if (!select) return [];
    const plan: PromqlShardPlan = { version: PROMQL_SHARD_PLAN_VERSION, op: 'select', select };
    const perShard = await this.shards.query<SeriesSamples[]>({ lang: 'promql', plan }, signal);
    const series = perShard.flat();
    // Each shard stayed within the bound; their sum may not.
    if (seriesOverLimit(series.length, this.bounds.seriesMax)) throw tooManySeries(this.bounds.seriesMax);
    for (const s of series) {
      promqlShardTraffic.raw.samples += s.t.length;
      promqlShardTraffic.raw.bytes += s.t.byteLength + s.v.byteLength;
    }
    return joinSplitSeries(series.sort((a, b) => compareLabels(a.labels, b.labels)));
  }

  /** Whether no table the selectors can match spreads its series over the shards. */
  seriesWhole(selectorMatchers: ReadonlyArray<readonly Matcher[]>): boolean {
    for (const matchers of selectorMatchers) {
      const select = planLocalSelect(this.catalog, this.options.db, matchers, null, null, this.bounds);
      if (select?.tables.some((t) => t.spread === true)) return false;
    }
    return true;
  }

  /**
   * Evaluates a series-local subtree (or a partial aggregation) in every shard. Each selector's
   * tables are resolved here, as `selectRange` resolves them; a selector no table can match reads
   * nothing in the shards.
   */
  async evaluateInShards(request: EvalRequest, signal?: AbortSignal): Promise<EvalAnswer[]> {
    this.mayRead();
    const { selectorMatchers, ...rest } = request;
    const selectors = selectorMatchers.map((matchers) => ({
      matchers,
      tables: planLocalSelect(this.catalog, this.options.db, matchers, null, null, this.bounds)?.tables ?? [],
    }));
    const plan: PromqlShardPlan = {
      version: PROMQL_SHARD_PLAN_VERSION,
      op: 'eval',
      eval: { ...rest, selectors, ...this.bounds },
    };
    const answers = await this.shards.query<EvalAnswer>({ lang: 'promql', plan }, signal);
    this.checkSeriesSelected(answers, selectors.length);
    for (const answer of answers) countAnswer(answer);
    return answers;
  }

  /** Refuses an evaluation whose selection of one selector, summed over the shards, passed the bound. */
  private checkSeriesSelected(answers: readonly EvalAnswer[], selectorCount: number): void {
    const max = this.bounds.seriesMax;
    if (max === 0) return;
    for (let i = 0; i < selectorCount; i++) {
      let sum = 0;
      for (const answer of answers) if (answer.ok) sum += answer.seriesSelected[i] ?? 0;
      if (seriesOverLimit(sum, max)) throw tooManySeries(max);
    }
  }

  /** Label sets of series matching any matcher set with a sample in [startMs, endMs], sorted. */
  async series(
    matcherSets: readonly (readonly Matcher[])[],
    startMs: number,
    endMs: number,
    signal?: AbortSignal,
  ): Promise<Labels[]> {
    this.mayRead();
    const minMs = boundOf(startMs, Math.ceil);
    const maxMs = boundOf(endMs, Math.floor);
    const answers = await Promise.all(
      matcherSets.map(async (matchers) => {
        const select = planLocalSelect(this.catalog, this.options.db, matchers, minMs, maxMs, this.listBounds);
        if (!select) return [];
        const plan: PromqlShardPlan = { version: PROMQL_SHARD_PLAN_VERSION, op: 'series', select };
        return (await this.shards.query<Labels[]>({ lang: 'promql', plan }, signal)).flat();
      }),
    );
    const unique = new Map<string, Labels>();
    for (const labels of answers.flat()) unique.set(labelsKey(labels), labels);
    return [...unique.values()].sort(compareLabels);
  }

  /** Label names over series matching any matcher set (all series when there is none), sorted. */
  async labelNames(
    matcherSets: readonly (readonly Matcher[])[],
    startMs: number,
    endMs: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const names = new Set<string>();
    for (const labels of await this.series(matcherSets.length > 0 ? matcherSets : [[]], startMs, endMs, signal)) {
      for (const label of labels) names.add(label.name);
    }
    return [...names].sort();
  }

  /** Values of one label over series matching any matcher set (all series when there is none), sorted. */
  async labelValues(
    name: string,
    matcherSets: readonly (readonly Matcher[])[],
    startMs: number,
    endMs: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const values = new Set<string>();
    for (const labels of await this.series(matcherSets.length > 0 ? matcherSets : [[]], startMs, endMs, signal)) {
      for (const label of labels) if (label.name === name) values.add(label.value);
    }
    return [...values].sort();
  }
}

/** The sample source of one request over the server's catalog and shards. */
export function createSampleSource(
  catalog: CatalogView,
  shards: ShardQuery,
  options: SampleSourceOptions,
): ShardSampleSource {
  return new ShardSampleSource(catalog, shards, options);
}

/**
 * Series of append-mode tables have rows in several shards (partition.ts, `spreadsRows`): their
 * parts come back as series with equal label sets, adjacent once sorted, and are joined here in
 * time order.
 */
function joinSplitSeries(sorted: SeriesSamples[]): SeriesSamples[] {
  let out: SeriesSamples[] | null = null;
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i] as SeriesSamples;
    const last = out === null ? (i > 0 ? sorted[i - 1] : undefined) : out[out.length - 1];
    if (last === undefined || compareLabels(last.labels, s.labels) !== 0) {
      out?.push(s);
      continue;
    }
    out ??= sorted.slice(0, i);
    out[out.length - 1] = joinSamples(last, s);
  }
  return out ?? sorted;
}

/**
 * Two parts of a series, each in time order, merged in time order (`a`'s sample first on a tie).
 * Values are copied as words, so a NaN keeps its payload (stale markers).
 */
function joinSamples(a: SeriesSamples, b: SeriesSamples): SeriesSamples {
  const n = a.t.length + b.t.length;
  const t = new Float64Array(n);
  const v = new Float64Array(n);
  const out = new Int32Array(v.buffer);
  const aw = new Int32Array(a.v.buffer, a.v.byteOffset, a.v.length * 2);
  const bw = new Int32Array(b.v.buffer, b.v.byteOffset, b.v.length * 2);
  // Native histograms go along with their samples, when either part has any.
  const h = a.h !== undefined || b.h !== undefined ? new Array<FloatHistogram | undefined>(n) : null;
  const hInteger: boolean[] = [];
  let i = 0;
  let j = 0;
  for (let k = 0; k < n; k++) {
    const fromA = j >= b.t.length || (i < a.t.length && (a.t[i] as number) <= (b.t[j] as number));
    const words = fromA ? aw : bw;
    const part = fromA ? a : b;
    const at = fromA ? i++ : j++;
    t[k] = part.t[at] as number;
    out[2 * k] = words[2 * at] as number;
    out[2 * k + 1] = words[2 * at + 1] as number;
    if (h !== null) {
      h[k] = part.h?.[at];
      hInteger[k] = part.hInteger?.[at] === true;
    }
  }
  return h === null ? { labels: a.labels, t, v } : { labels: a.labels, t, v, h, hInteger };
}
