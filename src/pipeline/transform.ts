/**
 * The `transform` section (reference §9.4): which record keys become which columns, of which type,
 * with which index, and what happens when a value is missing or does not convert. Entries are
 * compiled once into `TransformColumn`s; `TransformRows` then builds each row with one `coerce`
 * per column. Version 2 adds the record's leftover keys after the declared columns.
 */
import type { DataType } from '../shared/types.js';
import { inferLeftovers } from './auto-transform.js';
import {
  type Cell,
  type ColumnIndex,
  type OutputColumn,
  type RowMaker,
  type Semantic,
  TIMESTAMP_TYPES,
} from './output.js';
import { PipelineError, type PositionOf, RecordError } from './processor.js';
import { timeUnitOf } from './processors/epoch.js';
import {
  NANOS_PER,
  type PipelineRecord,
  PipelineTimestamp,
  type PipelineValue,
  type TimeUnit,
  toJsonText,
  typeNameOf,
} from './value.js';

const UNIT_OF: Partial<Record<DataType, TimeUnit>> = {
  TimestampSecond: 's',
  TimestampMillisecond: 'ms',
  TimestampMicrosecond: 'us',
  TimestampNanosecond: 'ns',
};
const SIMPLE_TYPES: Record<string, DataType> = {
  int8: 'Int8',
  int16: 'Int16',
  int32: 'Int32',
  int64: 'Int64',
  uint8: 'UInt8',
  uint16: 'UInt16',
  uint32: 'UInt32',
  uint64: 'UInt64',
  float32: 'Float32',
  float64: 'Float64',
  boolean: 'Boolean',
  string: 'String',
  json: 'Json',
};
const INT_RANGE: Partial<Record<DataType, [bigint, bigint]>> = {
  Int8: [-128n, 127n],
  Int16: [-32768n, 32767n],
  Int32: [-2147483648n, 2147483647n],
  Int64: [-(2n ** 63n), 2n ** 63n - 1n],
  UInt8: [0n, 255n],
  UInt16: [0n, 65535n],
  UInt32: [0n, 4294967295n],
  UInt64: [0n, 2n ** 64n - 1n],
};

/** The time index of v1 pipelines without one: the time of ingestion. */
export const GREPTIME_TIMESTAMP = 'greptime_timestamp';

/** The unit of a timestamp type, or undefined for other types. */
export function unitOfType(type: DataType): TimeUnit | undefined {
  return UNIT_OF[type];
}

/** Returned by `coerce` for a value the type cannot hold. */
export const INVALID = Symbol('invalid');

/** INT_RANGE as doubles, for `smallInt` results (below 2^53, so every comparison is exact). */
const INT_RANGE_NUMBER: Partial<Record<DataType, [number, number]>> = Object.fromEntries(
  (Object.entries(INT_RANGE) as Array<[string, [bigint, bigint]]>).map(([type, [lo, hi]]) => [
    type,
    [Number(lo), Number(hi)],
  ]),
);

/** Digits at most (after a sign) that `smallInt` parses: 15 digits are always a safe integer. */
const SMALL_INT_DIGITS_MAX = 15;

/**
 * The integer `s` spells (`[+-]?\d+`, at most 15 digits), or undefined for anything else. What the
 * regular expression and BigInt of the general path find, without either: dissected log fields
 * (status, size, pid) are converted one a column a line.
 */
function smallInt(s: string): number | undefined {
  const n = s.length;
  let i = 0;
  let negative = false;
  if (n > 0) {
    const c = s.charCodeAt(0);
    if (c === 43 || c === 45) {
      negative = c === 45;
      i = 1;
    }
  }
  if (i === n || n - i > SMALL_INT_DIGITS_MAX) return undefined;
  let value = 0;
  for (; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    value = value * 10 + d;
  }
  // -0 is 0, as BigInt('-0') made it.
  return negative && value !== 0 ? -value : value;
}

/** A value converted to a column type per the coercion table of §9.4, or INVALID. */
export function coerce(v: PipelineValue, type: DataType): Cell | typeof INVALID {
  if (v === null) return null;
  // Strings into String and integer columns are most of a log pipeline's cells: decided here
  // before the general table (same answers).
  if (typeof v === 'string') {
    if (type === 'String') return v;
    const small = INT_RANGE_NUMBER[type];
    if (small !== undefined) {
      const n = smallInt(v);
      if (n !== undefined) return n >= small[0] && n <= small[1] ? n : INVALID;
    }
  }
  const range = INT_RANGE[type];
  const unit = UNIT_OF[type];
  if (typeof v === 'number' && Number.isInteger(v)) {
    if (range !== undefined) {
      if (Number.isSafeInteger(v)) return v >= Number(range[0]) && v <= Number(range[1]) ? v : INVALID;
      return intCell(BigInt(v), range);
    }
    if (unit !== undefined) return BigInt(v);
  } else if (typeof v === 'bigint') {
    if (range !== undefined) return intCell(v, range);
    if (unit !== undefined) return v;
  } else if (typeof v === 'number') {
    // Rust's `as`: truncate toward zero, saturate at the bounds, NaN becomes 0.
    if (range !== undefined) {
      if (Number.isNaN(v)) return 0;
      const t = Math.trunc(v);
      if (t <= Number(range[0])) return cellOf(range[0]);
      if (t >= Number(range[1])) return cellOf(range[1]);
      return Number.isSafeInteger(t) ? t : BigInt(t);
    }
  } else if (typeof v === 'boolean') {
    if (range !== undefined) return v ? 1 : 0;
  } else if (typeof v === 'string') {
    if (range !== undefined) return /^[+-]?\d+$/.test(v) ? intCell(BigInt(v), range) : INVALID;
  } else if (v instanceof PipelineTimestamp) {
    return unit === undefined ? INVALID : v.in(unit);
  } else {
    return type === 'Json' ? toJsonText(v) : INVALID;
  }
  switch (type) {
    case 'Float64':
    case 'Float32': {
      const f = typeof v === 'string' ? parseFloatStrict(v) : Number(v);
      if (f === undefined) return INVALID;
      return type === 'Float32' ? Math.fround(f) : f;
    }
    case 'Boolean':
      if (typeof v === 'string') return v === 'true' ? true : v === 'false' ? false : INVALID;
      return typeof v === 'boolean' ? v : typeof v === 'bigint' ? v !== 0n : v !== 0;
    case 'String':
      if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'inf' : '-inf';
      return String(v);
    default:
      return INVALID;
  }
}

function intCell(b: bigint, range: [bigint, bigint]): Cell | typeof INVALID {
  return b < range[0] || b > range[1] ? INVALID : cellOf(b);
}

function cellOf(b: bigint): number | bigint {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

/** Rust's `f64::from_str`: decimal or exponent forms, `inf`, `infinity`, `nan`; no whitespace. */
function parseFloatStrict(s: string): number | undefined {
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(s)) return Number(s);
  const m = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (m === null) return undefined;
  if ((m[2] as string).toLowerCase() === 'nan') return Number.NaN;
  return m[1] === '-' ? -Infinity : Infinity;
}

function zeroOf(type: DataType): Cell {
  if (UNIT_OF[type] !== undefined) return 0n;
  switch (type) {
    case 'Boolean':
      return false;
    case 'String':
      return '';
    case 'Json':
      return null;
    default:
      return 0;
  }
}

/** One declared column: where its value comes from and how failures are handled. */
export interface TransformColumn {
  /** Record key read; '' for the default `greptime_timestamp` (always "now"). */
  input: string;
  column: OutputColumn;
  onFailure: 'ignore' | 'default' | undefined;
  defaultCell: Cell | undefined;
  timeIndex: boolean;
}

/** A transform entry as the YAML gave it, with where its keys sit. */
export interface TransformEntry {
  raw: Record<string, unknown>;
  positionOf: PositionOf;
}

const ENTRY_KEYS = new Set(['field', 'fields', 'type', 'index', 'tag', 'on_failure', 'default']);
const FULLTEXT_DEFAULTS = {
  analyzer: 'English',
  backend: 'bloom',
  case_sensitive: 'false',
  false_positive_rate: '0.01',
  granularity: '10240',
};
const SKIPPING_DEFAULTS = { false_positive_rate: '0.01', granularity: '10240', type: 'BLOOM' };

/** Compiles the entries; v1 without a time index gets `greptime_timestamp` last. */
export function compileTransform(
  entries: TransformEntry[],
  version: 1 | 2,
  at?: { line: number; column: number },
): TransformColumn[] {
  const out: TransformColumn[] = [];
  const seen = new Set<string>();
  let timeIndex: TransformColumn | undefined;
  for (const entry of entries) {
    const fail = (message: string, key: string | null): never => {
      const at = entry.positionOf(key) ?? entry.positionOf(null);
      throw new PipelineError(`Transform: ${message}`, at?.line, at?.column);
    };
    for (const key of Object.keys(entry.raw)) if (!ENTRY_KEYS.has(key)) fail(`unknown option: ${key}`, key);
    const fields = readFields(entry.raw, fail);
    const typeName = entry.raw.type;
    if (typeof typeName !== 'string') fail('missing option: type', 'type');
    const type = parseType(typeName as string) ?? fail(`unsupported type: ${typeName}`, 'type');
    const { semantic, index, isTimeIndex } = readIndex(entry.raw.index, fail);
    if (index?.kind === 'fulltext' && type !== 'String') fail('fulltext index needs a string column', 'index');
    const tag = entry.raw.tag;
    if (tag !== undefined && tag !== null && typeof tag !== 'boolean') fail('tag must be a boolean', 'tag');
    const rawFailure = entry.raw.on_failure;
    if (rawFailure !== undefined && rawFailure !== null && rawFailure !== 'ignore' && rawFailure !== 'default') {
      fail(`invalid on_failure: ${String(rawFailure)} (expected ignore or default)`, 'on_failure');
    }
    let defaultCell: Cell | undefined;
    const rawDefault = entry.raw.default;
    if (rawDefault !== undefined && rawDefault !== null) {
      const c = typeof rawDefault === 'object' ? INVALID : coerce(rawDefault as PipelineValue, type);
      if (c === INVALID) fail(`invalid default for ${type}: ${JSON.stringify(rawDefault)}`, 'default');
      defaultCell = c as Cell;
    }
    const onFailure = (rawFailure ??
      (defaultCell !== undefined ? 'default' : undefined)) as TransformColumn['onFailure'];
    if (isTimeIndex) {
      if (UNIT_OF[type] === undefined) fail('the time index must have a time type (time, epoch, timestamp)', 'type');
      if (fields.length !== 1) fail('a time index entry takes exactly one field', 'index');
      if (timeIndex !== undefined) fail('only one time index is allowed', 'index');
    }
    for (const f of fields) {
      if (seen.has(f.output))
        fail(`duplicate output column: ${f.output}`, entry.raw.field != null ? 'field' : 'fields');
      seen.add(f.output);
      const column: OutputColumn = { name: f.output, type, semantic: tag === true && !isTimeIndex ? 'TAG' : semantic };
      if (index !== undefined) column.index = index;
      const tc: TransformColumn = { input: f.input, column, onFailure, defaultCell, timeIndex: isTimeIndex };
      if (isTimeIndex) timeIndex = tc;
      out.push(tc);
    }
  }
  if (timeIndex === undefined) {
    if (version === 2) {
      throw new PipelineError(
        'Transform: version 2 needs exactly one entry with index: timestamp',
        at?.line,
        at?.column,
      );
    }
    if (seen.has(GREPTIME_TIMESTAMP)) {
      throw new PipelineError(
        `Transform: ${GREPTIME_TIMESTAMP} is reserved for the default time index`,
        at?.line,
        at?.column,
      );
    }
    out.push({
      input: '',
      column: { name: GREPTIME_TIMESTAMP, type: 'TimestampNanosecond', semantic: 'TIMESTAMP' },
      onFailure: 'default',
      defaultCell: undefined,
      timeIndex: true,
    });
  }
  return out;
}

type Fail = (message: string, key: string | null) => never;

function readFields(raw: Record<string, unknown>, fail: Fail): { input: string; output: string }[] {
  const one = raw.field;
  const many = raw.fields;
  if (one != null && many != null) fail('field and fields cannot both be set', 'fields');
  const key = one != null ? 'field' : 'fields';
  const list = one != null ? [one] : Array.isArray(many) ? many : many != null ? [many] : [];
  if (list.length === 0) fail('missing option: field or fields', key);
  return list.map((v) => {
    if (typeof v === 'string') {
      const parts = v.split(',').map((s) => s.trim());
      if (parts[0] === '' || parts.length > 2 || parts[1] === '') fail(`invalid field: ${JSON.stringify(v)}`, key);
      return { input: parts[0] as string, output: (parts[1] ?? parts[0]) as string };
    }
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const rename = o.rename_to;
      if (typeof o.key !== 'string' || o.key === '') fail('a field map needs a string key', key);
      if (rename != null && typeof rename !== 'string') fail('rename_to must be a string', key);
      return { input: o.key as string, output: (rename as string | undefined) ?? (o.key as string) };
    }
    return fail(`invalid field: ${JSON.stringify(v)}`, key);
  });
}

/** `int32`, `json`, `time`, `epoch, ms`, `timestamp, nanosecond`... (case-insensitive). */
export function parseType(text: string): DataType | undefined {
  const [name = '', resolution, extra] = text.split(',').map((s) => s.trim().toLowerCase());
  if (extra !== undefined) return undefined;
  if (name === 'time' || name === 'timestamp' || name === 'epoch') {
    const unit = resolution === undefined ? 'ns' : timeUnitOf(resolution);
    return unit === undefined ? undefined : TIMESTAMP_TYPES[unit];
  }
  return resolution === undefined ? SIMPLE_TYPES[name] : undefined;
}

function readIndex(
  raw: unknown,
  fail: Fail,
): { semantic: Semantic; index: ColumnIndex | undefined; isTimeIndex: boolean } {
  if (raw === undefined || raw === null) return { semantic: 'FIELD', index: undefined, isTimeIndex: false };
  let kind: unknown = raw;
  let options: unknown;
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    const o = raw as Record<string, unknown>;
    for (const k of Object.keys(o)) if (k !== 'type' && k !== 'options') fail(`unknown index option: ${k}`, 'index');
    kind = o.type;
    options = o.options;
  }
  if (typeof kind !== 'string') return fail('index needs a type', 'index');
  kind = kind.toLowerCase();
  if (options != null && kind !== 'fulltext' && kind !== 'skipping') fail(`index ${kind} takes no options`, 'index');
  if (options != null && (typeof options !== 'object' || Array.isArray(options)))
    fail('index options must be a map', 'index');
  const given = (options ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'timestamp':
    case 'time':
      return { semantic: 'TIMESTAMP', index: undefined, isTimeIndex: true };
    case 'tag':
      return { semantic: 'TAG', index: undefined, isTimeIndex: false };
    case 'inverted':
      return { semantic: 'FIELD', index: { kind: 'inverted', options: {} }, isTimeIndex: false };
    case 'fulltext':
      return {
        semantic: 'FIELD',
        index: { kind, options: indexOptions(given, FULLTEXT_DEFAULTS, fail) },
        isTimeIndex: false,
      };
    case 'skipping':
      return {
        semantic: 'FIELD',
        index: { kind, options: indexOptions(given, SKIPPING_DEFAULTS, fail) },
        isTimeIndex: false,
      };
    default:
      return fail(`unknown index: ${String(kind)}`, 'index');
  }
}

/** Index options over their DDL defaults, each checked and written as SHOW CREATE TABLE does. */
function indexOptions(
  given: Record<string, unknown>,
  defaults: Record<string, string>,
  fail: Fail,
): Record<string, string> {
  const out = { ...defaults };
  for (const [k, v] of Object.entries(given)) {
    if (!(k in defaults)) fail(`unknown index option: ${k}`, 'index');
    const text = String(v).trim();
    let value: string | undefined;
    if (k === 'analyzer') value = /^english$/i.test(text) ? 'English' : /^chinese$/i.test(text) ? 'Chinese' : undefined;
    else if (k === 'backend') value = /^(bloom|tantivy)$/i.test(text) ? text.toLowerCase() : undefined;
    else if (k === 'case_sensitive') value = /^(true|false)$/i.test(text) ? text.toLowerCase() : undefined;
    else if (k === 'granularity') value = /^[1-9]\d*$/.test(text) ? text : undefined;
    else if (k === 'false_positive_rate') {
      const f = Number(text);
      value = text !== '' && f > 0 && f <= 1 ? String(f) : undefined;
    } else if (k === 'type') value = /^bloom$/i.test(text) ? 'BLOOM' : undefined;
    if (value === undefined) fail(`invalid index option ${k}: ${text}`, 'index');
    out[k] = value as string;
  }
  return out;
}

/** The value of one declared column for `record`, per its on_failure rules. */
export function evalColumn(tc: TransformColumn, record: PipelineRecord, nowNanos: () => bigint): Cell {
  const type = tc.column.type;
  const v = tc.input === '' ? undefined : record[tc.input];
  if (v === undefined || v === null) {
    if (tc.onFailure === 'default') {
      if (tc.defaultCell !== undefined) return tc.defaultCell;
      if (tc.timeIndex) return nowNanos() / NANOS_PER[UNIT_OF[type] as TimeUnit];
    }
    if (tc.timeIndex) throw new RecordError('Time index must be non null.');
    return null;
  }
  const c = coerce(v, type);
  if (c !== INVALID) return c;
  if (tc.onFailure === 'default') return tc.defaultCell ?? zeroOf(type);
  if (tc.onFailure === 'ignore' && !tc.timeIndex) return null;
  if (tc.onFailure === 'ignore') throw new RecordError('Time index must be non null.');
  const shown = typeof v === 'string' ? ` ${JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}...` : v)}` : '';
  throw new RecordError(`Transform: cannot convert ${typeNameOf(v)}${shown} of field ${tc.input} to ${type}`);
}

/** Rows of a pipeline with a transform section: declared columns, then (v2) the leftover keys. */
export class TransformRows implements RowMaker {
  readonly declared: OutputColumn[];
  private readonly consumed: Set<string>;

  constructor(
    readonly columns: TransformColumn[],
    readonly version: 1 | 2,
  ) {
    this.declared = columns.map((c) => c.column);
    this.consumed = new Set(columns.flatMap((c) => [c.input, c.column.name]));
  }

  make(record: PipelineRecord, nowNanos: () => bigint): { columns: OutputColumn[]; cells: Cell[] } {
    const cols = this.columns;
    const cells = new Array<Cell>(cols.length);
    for (let i = 0; i < cols.length; i++) cells[i] = evalColumn(cols[i] as TransformColumn, record, nowNanos);
    if (this.version === 1) return { columns: this.declared, cells };
    return inferLeftovers(record, this.consumed, this.declared, cells);
  }
}
