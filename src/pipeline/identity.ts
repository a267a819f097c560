/**
 * `greptime_identity` (reference §7): no processors, no transform. Each record is flattened
 * (nested objects → `a.b.c` keys down to `max_nested_levels`, deeper objects and all arrays → JSON
 * text) and every key becomes a FIELD column of the inferred type, after the time index: the
 * ingestion time as `greptime_timestamp`, or the `custom_time_index` field.
 */
import { fieldColumn, inferCell } from './auto-transform.js';
import { type Cell, type OutputColumn, type RowMaker, TIMESTAMP_TYPES } from './output.js';
import { Pipeline } from './pipeline.js';
import { PipelineError, RecordError } from './processor.js';
import { timeUnitOf } from './processors/epoch.js';
import { compileStrftime, parseStrftime, type StrftimeFormat } from './strftime.js';
import { GREPTIME_TIMESTAMP } from './transform.js';
import {
  compareCodePoints,
  isRecord,
  NANOS_PER,
  type PipelineRecord,
  PipelineTimestamp,
  type PipelineValue,
  type TimeUnit,
  toJsonText,
  typeNameOf,
} from './value.js';

export const DEFAULT_MAX_NESTED_LEVELS = 10;

export interface IdentityOptions {
  /** Objects nested deeper than this are kept as JSON text (default 10). */
  maxNestedLevels?: number | undefined;
  /** `<field>;epoch;<s|ms|us|ns>` or `<field>;datestr;<strftime>`. */
  customTimeIndex?: string | undefined;
  /** A missing or bad custom time index value becomes "now" instead of failing the record. */
  ignoreErrors?: boolean | undefined;
  /**
   * Every column but these (and the time index) is a tag, and these are Float64 when numeric:
   * remote write through the identity pipeline, where labels are the series and only the value
   * is a field (reference ingest §2.4).
   */
  tagsExcept?: readonly string[] | undefined;
}

type CustomTime = { field: string; unit: TimeUnit; format: StrftimeFormat | undefined };

/** The identity pipeline; throws PipelineError for a malformed `customTimeIndex`. */
export function identityPipeline(options: IdentityOptions = {}): Pipeline {
  const custom = options.customTimeIndex === undefined ? undefined : parseCustomTimeIndex(options.customTimeIndex);
  const rows = new IdentityRows(
    options.maxNestedLevels ?? DEFAULT_MAX_NESTED_LEVELS,
    custom,
    options.ignoreErrors ?? false,
    options.tagsExcept === undefined ? undefined : new Set(options.tagsExcept),
  );
  const pipeline: Pipeline = new Pipeline({
    version: 1,
    processors: [],
    rows,
    hasTransform: false,
    identity: () => pipeline,
  });
  return pipeline;
}

function parseCustomTimeIndex(text: string): CustomTime {
  const first = text.indexOf(';');
  const second = first < 0 ? -1 : text.indexOf(';', first + 1);
  const field = text.slice(0, first).trim();
  const kind = text.slice(first + 1, second).trim();
  const arg = text.slice(second + 1).trim();
  const bad = (why: string): never => {
    throw new PipelineError(`invalid custom_time_index ${JSON.stringify(text)}: ${why}`);
  };
  if (second < 0 || field === '') return bad('expected <field>;epoch;<unit> or <field>;datestr;<format>');
  if (kind === 'epoch') {
    const unit = timeUnitOf(arg) ?? bad(`unknown resolution ${arg}`);
    return { field, unit, format: undefined };
  }
  if (kind !== 'datestr') return bad(`unknown kind ${kind} (expected epoch or datestr)`);
  try {
    return { field, unit: 'ns', format: compileStrftime(arg) };
  } catch (err) {
    return bad((err as Error).message);
  }
}

/** Flattens `record` into `out`: `a.b.c` keys, arrays and objects at `max` levels as JSON text. */
function flatten(record: PipelineRecord, prefix: string, level: number, max: number, out: PipelineRecord): void {
  for (const key of Object.keys(record)) {
    const v = record[key] as PipelineValue;
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (Array.isArray(v)) out[name] = toJsonText(v);
    else if (isRecord(v)) {
      if (level >= max) out[name] = toJsonText(v);
      else flatten(v, name, level + 1, max, out);
    } else out[name] = v;
  }
}

class IdentityRows implements RowMaker {
  readonly declared = null;
  private readonly timeColumn: OutputColumn;

  constructor(
    private readonly maxLevels: number,
    private readonly custom: CustomTime | undefined,
    private readonly ignoreErrors: boolean,
    private readonly fieldsOnly: ReadonlySet<string> | undefined,
  ) {
    this.timeColumn = {
      name: custom?.field ?? GREPTIME_TIMESTAMP,
      type: TIMESTAMP_TYPES[custom?.unit ?? 'ns'],
      semantic: 'TIMESTAMP',
    };
  }

  make(record: PipelineRecord, nowNanos: () => bigint): { columns: OutputColumn[]; cells: Cell[] } {
    let flat: PipelineRecord = record;
    for (const key in record) {
      if (isRecord(record[key]) || Array.isArray(record[key])) {
        flat = {};
        flatten(record, '', 1, this.maxLevels, flat);
        break;
      }
    }
    const time = this.custom === undefined ? nowNanos() : this.customTime(flat[this.custom.field], nowNanos);
    const timeName = this.timeColumn.name;
    const columns: OutputColumn[] = [this.timeColumn];
    const cells: Cell[] = [time];
    for (const key of Object.keys(flat).sort(compareCodePoints)) {
      if (key === timeName) continue;
      let inferred = inferCell(flat[key] ?? null);
      if (inferred === null) continue;
      // Sample values are doubles, however integral one looks (JS numbers do not say).
      if (this.fieldsOnly?.has(key) && (inferred[0] === 'Int64' || inferred[0] === 'UInt64')) {
        inferred = ['Float64', Number(inferred[1])];
      }
      const column = fieldColumn(key, inferred[0]);
      columns.push(this.fieldsOnly === undefined || this.fieldsOnly.has(key) ? column : { ...column, semantic: 'TAG' });
      cells.push(inferred[1]);
    }
    return { columns, cells };
  }

  private customTime(v: PipelineValue | undefined, nowNanos: () => bigint): bigint {
    const custom = this.custom as CustomTime;
    const t = customTimeValue(custom, v);
    if (t !== undefined) return t;
    if (this.ignoreErrors) return nowNanos() / NANOS_PER[custom.unit];
    if (v === undefined || v === null) throw new RecordError(`Custom time index field ${custom.field} is missing`);
    const shown = typeof v === 'string' ? ` ${JSON.stringify(v)}` : '';
    const want = custom.format === undefined ? `an epoch in ${custom.unit}` : `a date like ${custom.format.source}`;
    throw new RecordError(`Custom time index field ${custom.field}: ${typeNameOf(v)}${shown} is not ${want}`);
  }
}

function customTimeValue(custom: CustomTime, v: PipelineValue | undefined): bigint | undefined {
  if (v instanceof PipelineTimestamp) return v.in(custom.unit);
  if (custom.format !== undefined) return typeof v === 'string' ? parseStrftime(custom.format, v) : undefined;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return BigInt(v);
  return undefined;
}
