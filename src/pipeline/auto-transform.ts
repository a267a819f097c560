/**
 * Columns inferred from the data (reference §9.5): the leftover keys of version 2 pipelines, and
 * pipelines without a transform section ("auto-transform"), whose time index is the one field that
 * the `date`/`epoch` processors produce.
 */
import type { DataType } from '../shared/types.js';
import { type Cell, type OutputColumn, type RowMaker, TIMESTAMP_TYPES } from './output.js';
import { PipelineError, type Processor, RecordError } from './processor.js';
import type { TimeProcessor } from './processors/date.js';
import {
  compareCodePoints,
  type PipelineRecord,
  PipelineTimestamp,
  type PipelineValue,
  type TimeUnit,
  toJsonText,
  typeNameOf,
} from './value.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * The column type and cell a value gets when nothing declares it (null: no column): integer →
 * Int64, float → Float64, boolean, string, timestamp → TimestampNanosecond, object/array → Json.
 */
export function inferCell(v: PipelineValue): [DataType, Cell] | null {
  switch (typeof v) {
    case 'string':
      return ['String', v];
    case 'number':
      return Number.isInteger(v) && Number.isSafeInteger(v)
        ? ['Int64', v]
        : Number.isInteger(v)
          ? inferBig(BigInt(v))
          : ['Float64', v];
    case 'boolean':
      return ['Boolean', v];
    case 'bigint':
      return inferBig(v);
  }
  if (v === null) return null;
  if (v instanceof PipelineTimestamp) return ['TimestampNanosecond', v.nanos];
  return ['Json', toJsonText(v)];
}

function inferBig(v: bigint): [DataType, Cell] {
  if (v >= INT64_MIN && v <= INT64_MAX) return ['Int64', Number.isSafeInteger(Number(v)) ? Number(v) : v];
  if (v > INT64_MAX && v <= UINT64_MAX) return ['UInt64', v];
  return ['Float64', Number(v)];
}

const COLUMNS_CACHED_MAX = 10_000;
const fieldColumns = new Map<string, OutputColumn>();

/** A FIELD column; shared objects, since every row of a run names the same few. */
export function fieldColumn(name: string, type: DataType): OutputColumn {
  const key = `${type}\u0000${name}`;
  let c = fieldColumns.get(key);
  if (c === undefined) {
    if (fieldColumns.size >= COLUMNS_CACHED_MAX) fieldColumns.clear();
    c = { name, type, semantic: 'FIELD' };
    fieldColumns.set(key, c);
  }
  return c;
}

/** Appends the record's keys not in `consumed` (sorted, nulls skipped) to a row. */
export function inferLeftovers(
  record: PipelineRecord,
  consumed: ReadonlySet<string>,
  columns: OutputColumn[],
  cells: Cell[],
): { columns: OutputColumn[]; cells: Cell[] } {
  let extra: OutputColumn[] | undefined;
  const keys = Object.keys(record).sort(compareCodePoints);
  for (const key of keys) {
    if (consumed.has(key)) continue;
    const inferred = inferCell(record[key] ?? null);
    if (inferred === null) continue;
    extra ??= columns.slice();
    extra.push(fieldColumn(key, inferred[0]));
    cells.push(inferred[1]);
  }
  return { columns: extra ?? columns, cells };
}

/** The time index of an auto-transform pipeline: one field out of its date/epoch processors. */
export function autoTimeIndex(
  processors: readonly Processor[],
  at?: { line: number; column: number },
): { name: string; unit: TimeUnit } {
  const found: { name: string; unit: TimeUnit }[] = [];
  for (const p of processors) {
    if (p.name !== 'date' && p.name !== 'epoch') continue;
    const tp = p as TimeProcessor;
    if (tp.ignoreMissing) continue;
    for (const f of tp.fields) found.push({ name: f.output, unit: tp.unit });
  }
  const names = [...new Set(found.map((f) => f.name))];
  if (names.length !== 1) {
    throw new PipelineError(
      'Pipeline without transform needs exactly one time index field from date or epoch processors ' +
        `(without ignore_missing: true), found ${names.length === 0 ? 'none' : names.join(', ')}`,
      at?.line,
      at?.column,
    );
  }
  return found[found.length - 1] as { name: string; unit: TimeUnit };
}

/** Rows of a pipeline without a transform section: the time index first, then every other key. */
export class AutoRows implements RowMaker {
  readonly declared = null;
  private readonly timeColumn: OutputColumn;
  private readonly consumed: Set<string>;

  constructor(private readonly time: { name: string; unit: TimeUnit }) {
    this.timeColumn = { name: time.name, type: TIMESTAMP_TYPES[time.unit], semantic: 'TIMESTAMP' };
    this.consumed = new Set([time.name]);
  }

  make(record: PipelineRecord): { columns: OutputColumn[]; cells: Cell[] } {
    const v = record[this.time.name];
    if (v === undefined || v === null) throw new RecordError('Time index must be non null.');
    // A date/epoch output, or an integer some later processor put there (a count of the unit).
    const c =
      v instanceof PipelineTimestamp
        ? v.in(this.time.unit)
        : typeof v === 'bigint'
          ? v
          : typeof v === 'number' && Number.isInteger(v)
            ? BigInt(v)
            : undefined;
    if (c === undefined) {
      throw new RecordError(
        `Transform: cannot convert ${typeNameOf(v)} of field ${this.time.name} to ${this.timeColumn.type}`,
      );
    }
    return inferLeftovers(record, this.consumed, [this.timeColumn], [c]);
  }
}
