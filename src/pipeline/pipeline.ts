/**
 * A compiled pipeline and its run loop: each record goes through the processors, then either to a
 * dispatcher rule (batched, and run through that rule's pipeline afterwards) or to the row maker
 * (transform, v2, auto-transform or identity), and its row lands in a table chosen by
 * `greptime_table_suffix` or the `table_suffix` template. A record that fails leaves nothing
 * behind: its rows are rolled back, and it is reported (skip_error) or thrown.
 */
import { type Dispatcher, type DispatchRule, rulePipeline, type SuffixTemplate } from './dispatch.js';
import type { OutputColumn, OutputTable, RecordFailure, RowMaker, RunResult } from './output.js';
import { TableSet } from './output.js';
import { DROP, type Processor, RecordError } from './processor.js';
import { TextPlan } from './text-plan.js';
import { TransformRows } from './transform.js';
import { type PipelineRecord, PipelineTimestamp, type PipelineValue, rfc3339, toJsonText } from './value.js';

/** How a pipeline runs a batch of records. */
export interface RunOptions {
  /** Drop failing records (reported in failures) instead of throwing RecordError on the first one. */
  skipError: boolean;
  /** Current time in ns (for default time indexes); injectable for tests. */
  nowNanos: () => bigint;
  /** Stored pipelines named by dispatcher rules; undefined → greptime_identity. */
  resolve?: (name: string) => Pipeline | undefined;
}

/** Record keys that become per-row table options (the `greptime_` prefix dropped). */
export const HINT_KEYS = [
  'greptime_auto_create_table',
  'greptime_ttl',
  'greptime_append_mode',
  'greptime_merge_mode',
  'greptime_physical_table',
  'greptime_skip_wal',
];
export const SUFFIX_KEY = 'greptime_table_suffix';
const HINT_PREFIX = 'greptime_'.length;
/** Dispatch into pipelines that dispatch again is allowed, but not for ever (a rule naming its own pipeline). */
const DISPATCH_DEPTH_MAX = 8;

export interface PipelineParts {
  version: 1 | 2;
  description?: string | undefined;
  processors: Processor[];
  rows: RowMaker;
  hasTransform: boolean;
  dispatcher?: Dispatcher | undefined;
  suffix?: SuffixTemplate | undefined;
  /** The pipeline of rules that name none (greptime_identity); injected to keep modules acyclic. */
  identity?: (() => Pipeline) | undefined;
}

/** One processor's effect on a record in a trace: its output (JSON text), a drop, or its error. */
export interface ProcessorStep {
  processor: string;
  outputJson?: string;
  dropped?: boolean;
  error?: string;
}

interface Batch {
  records: PipelineRecord[];
  indexes: number[];
}

export class Pipeline {
  readonly version: 1 | 2;
  readonly description: string | undefined;
  /** A dispatcher or a table_suffix: rows may go to tables other than the request's. */
  readonly hasDispatcher: boolean;
  readonly hasTransform: boolean;
  private readonly processors: Processor[];
  private readonly rows: RowMaker;
  private readonly dispatcher: Dispatcher | undefined;
  private readonly suffix: SuffixTemplate | undefined;
  private readonly identity: (() => Pipeline) | undefined;
  private plan: TextPlan | null | undefined;

  constructor(parts: PipelineParts) {
    this.version = parts.version;
    this.description = parts.description;
    this.processors = parts.processors;
    this.rows = parts.rows;
    this.hasTransform = parts.hasTransform;
    this.dispatcher = parts.dispatcher;
    this.suffix = parts.suffix;
    this.identity = parts.identity;
    this.hasDispatcher = parts.dispatcher !== undefined || parts.suffix !== undefined;
  }

  /** The stored pipelines its dispatcher rules name (greptime_identity and unnamed rules left out). */
  ruleNames(): string[] {
    const names = new Set<string>();
    for (const rule of this.dispatcher?.rules ?? []) {
      if (rule.pipeline !== undefined && rule.pipeline !== 'greptime_identity') names.add(rule.pipeline);
    }
    return [...names];
  }

  /** The columns a transform section fixes (for CREATE TABLE), or null when they follow the data. */
  declaredColumns(): OutputColumn[] | null {
    return this.rows.declared === null ? null : this.rows.declared.map((c) => ({ ...c }));
  }

  /**
   * The byte-level run of `text/plain` bodies (text-plan.ts) when this pipeline has its shape, else
   * null; made on first use.
   */
  textPlan(): TextPlan | null {
    if (this.plan === undefined) {
      const rows = this.rows instanceof TransformRows ? this.rows : null;
      this.plan = TextPlan.of(this.processors, rows, this.hasDispatcher);
    }
    return this.plan;
  }

  /** Runs `records` (which are changed in place) and returns their rows by table. */
  run(records: PipelineRecord[], options: RunOptions): RunResult {
    return this.runNested(records, options, 0);
  }

  private runNested(records: PipelineRecord[], options: RunOptions, depth: number): RunResult {
    const tables = new TableSet();
    const failures: RecordFailure[] = [];
    const routed = new Map<DispatchRule, Batch>();
    for (let i = 0; i < records.length; i++) {
      try {
        const rule = this.process(records[i] as PipelineRecord, tables, options.nowNanos);
        if (rule !== undefined) {
          let batch = routed.get(rule);
          if (batch === undefined) {
            batch = { records: [], indexes: [] };
            routed.set(rule, batch);
          }
          batch.records.push(records[i] as PipelineRecord);
          batch.indexes.push(i);
        }
        tables.commit();
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        tables.rollback();
        if (!options.skipError) throw err;
        failures.push({ index: i, message: err.message });
      }
    }
    const out = tables.result();
    for (const [rule, batch] of routed) {
      let sub: RunResult;
      try {
        if (depth >= DISPATCH_DEPTH_MAX)
          throw new RecordError(`Dispatcher: more than ${DISPATCH_DEPTH_MAX} nested dispatches`);
        const identity =
          this.identity ??
          (() => {
            throw new RecordError('Dispatcher: no identity pipeline for rules without a pipeline');
          });
        sub = rulePipeline(rule, options.resolve, identity).runNested(batch.records, options, depth + 1);
      } catch (err) {
        if (!(err instanceof RecordError) || !options.skipError) throw err;
        for (const index of batch.indexes) failures.push({ index, message: err.message });
        continue;
      }
      for (const f of sub.failures) failures.push({ index: batch.indexes[f.index] as number, message: f.message });
      for (const t of sub.tables)
        out.push({ ...t, tableSuffix: rule.tableSuffix + t.tableSuffix } satisfies OutputTable);
    }
    if (routed.size > 0) failures.sort((a, b) => a.index - b.index);
    return { tables: out, failures };
  }

  /**
   * Each processor's output for one record, in order, as JSON text (the dry run's `?trace=true`,
   * to see where a pattern stops matching). Stops at the first processor that fails, drops the
   * record or returns several; `record` is changed in place like in `run`.
   */
  traceProcessors(record: PipelineRecord): ProcessorStep[] {
    const steps: ProcessorStep[] = [];
    for (const p of this.processors) {
      let result: ReturnType<Processor['exec']>;
      try {
        result = p.exec(record);
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        steps.push({ processor: p.name, error: err.message });
        break;
      }
      if (result === DROP) {
        steps.push({ processor: p.name, dropped: true });
        break;
      }
      if (result !== undefined) {
        steps.push({ processor: p.name, outputJson: `[${result.map((r) => toJsonText(r)).join(',')}]` });
        break;
      }
      steps.push({ processor: p.name, outputJson: toJsonText(record) });
    }
    return steps;
  }

  /** Runs one record; returns the dispatcher rule it goes to, or undefined when its rows were added. */
  private process(record: PipelineRecord, tables: TableSet, nowNanos: () => bigint): DispatchRule | undefined {
    const processors = this.processors;
    let many: PipelineRecord[] | undefined;
    for (let j = 0; j < processors.length; j++) {
      const p = processors[j] as Processor;
      const result = p.exec(record);
      if (result === undefined) continue;
      if (result === DROP) return undefined;
      if (j !== processors.length - 1) {
        throw new RecordError(`Processor ${p.name}: an array result must come from the last processor`);
      }
      many = result;
    }
    if (many !== undefined) {
      // One-to-many results skip the dispatcher, as in GreptimeDB.
      for (const r of many) this.emit(r, tables, nowNanos);
      return undefined;
    }
    const rule = this.dispatcher?.match(record);
    if (rule !== undefined) return rule;
    this.emit(record, tables, nowNanos);
    return undefined;
  }

  private emit(record: PipelineRecord, tables: TableSet, nowNanos: () => bigint): void {
    let options: Record<string, string> | undefined;
    let suffix: string | undefined;
    if (hasHintKeys(record)) {
      ({ options, suffix } = takeHints(record));
    }
    if (suffix === undefined && this.suffix !== undefined) suffix = this.suffix.apply(record);
    const { columns, cells } = this.rows.make(record, nowNanos);
    tables.add(suffix ?? '', options, columns, cells);
  }
}

/**
 * Whether the record holds any hint key (HINT_KEYS or SUFFIX_KEY; test/pipeline/identity.test.ts
 * checks the two lists agree). Each key read by its own name: a site then sees one
 * record shape and V8 answers an absent key from its inline cache, where the loop over the names
 * was one lookup by a variable key each, seven a log line (a third of emitting a row).
 */
function hasHintKeys(record: PipelineRecord): boolean {
  return (
    record.greptime_auto_create_table !== undefined ||
    record.greptime_ttl !== undefined ||
    record.greptime_append_mode !== undefined ||
    record.greptime_merge_mode !== undefined ||
    record.greptime_physical_table !== undefined ||
    record.greptime_skip_wal !== undefined ||
    record.greptime_table_suffix !== undefined
  );
}

/** Removes the record's hint keys; their values as table options and the table suffix. */
function takeHints(record: PipelineRecord): {
  options: Record<string, string> | undefined;
  suffix: string | undefined;
} {
  let options: Record<string, string> | undefined;
  for (const key of HINT_KEYS) {
    const v = record[key];
    if (v === undefined) continue;
    delete record[key];
    if (v === null) continue;
    options ??= {};
    options[key.slice(HINT_PREFIX)] = hintText(v);
  }
  let suffix: string | undefined;
  const s = record[SUFFIX_KEY];
  if (s !== undefined) {
    delete record[SUFFIX_KEY];
    if (s !== null) suffix = hintText(s);
  }
  return { options, suffix };
}

function hintText(v: PipelineValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof PipelineTimestamp) return rfc3339(v);
  if (typeof v === 'object' && v !== null) return toJsonText(v);
  return String(v);
}
