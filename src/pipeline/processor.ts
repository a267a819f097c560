/**
 * The contract between the pipeline compiler and its processors (one file each in processors/).
 *
 * A processor is compiled once from its YAML options (`ProcessorOptions`) into an object whose
 * `exec` runs per record. Compile-time problems (a missing or unknown option, a bad pattern) throw
 * `PipelineError` through `options.fail`, which carries the YAML line and column of the option.
 * Run-time problems with one record throw `RecordError`: the caller fails the request, or skips
 * the record with `skip_error`.
 */
import type { PipelineRecord, PipelineValue } from './value.js';

/** A pipeline that cannot be compiled: the message, and where in the YAML when known. */
export class PipelineError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? message : `${message} at line ${line}, column ${column ?? 1}`);
    this.name = 'PipelineError';
  }
}

/** One record failed in a processor or transform; the others go on. */
export class RecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordError';
  }
}

/** `field: a` reads and writes `a`; `field: "a, b"` or `{key: a, rename_to: b}` reads a, writes b. */
export interface FieldSpec {
  input: string;
  /** Target key; equals `input` when no rename was given (see `renamed`). */
  output: string;
  renamed: boolean;
}

/** Where an option sits in the YAML text (1-based), when the compiler knows it. */
export type PositionOf = (key: string | null) => { line: number; column: number } | undefined;

/**
 * A processor's options as the YAML gave them (plain JS values), with typed readers that fail
 * with the option's position. `used` collects every key read, so that the compiler can refuse
 * options no processor understood.
 */
export class ProcessorOptions {
  readonly used = new Set<string>(['field', 'fields', 'ignore_missing']);
  readonly fields: FieldSpec[];
  readonly ignoreMissing: boolean;

  constructor(
    readonly processor: string,
    readonly raw: Readonly<Record<string, unknown>>,
    private readonly positionOf: PositionOf = () => undefined,
  ) {
    this.fields = this.readFields();
    this.ignoreMissing = this.boolean('ignore_missing') ?? false;
  }

  /** Throws a compile error naming this processor, at `key`'s position (or the processor's). */
  fail(message: string, key: string | null = null): never {
    const at = this.positionOf(key) ?? this.positionOf(null);
    throw new PipelineError(`Processor ${this.processor}: ${message}`, at?.line, at?.column);
  }

  has(key: string): boolean {
    this.used.add(key);
    return this.raw[key] !== undefined && this.raw[key] !== null;
  }

  string(key: string): string | undefined {
    this.used.add(key);
    const v = this.raw[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return this.fail(`option ${key} must be a string`, key);
  }

  requiredString(key: string): string {
    return this.string(key) ?? this.fail(`missing option: ${key}`, key);
  }

  boolean(key: string): boolean | undefined {
    this.used.add(key);
    const v = this.raw[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    return this.fail(`option ${key} must be a boolean`, key);
  }

  integer(key: string): number | undefined {
    this.used.add(key);
    const v = this.raw[key];
    if (v === undefined || v === null) return undefined;
    const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
    if (typeof n === 'number' && Number.isInteger(n)) return n;
    return this.fail(`option ${key} must be an integer`, key);
  }

  /** A list of strings; a single string counts as a one-element list. */
  strings(key: string): string[] | undefined {
    this.used.add(key);
    const v = this.raw[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return [v];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.map(String);
    return this.fail(`option ${key} must be a list of strings`, key);
  }

  /** Any value, unchecked (for processors with structured options). */
  value(key: string): unknown {
    this.used.add(key);
    return this.raw[key];
  }

  /** The fields, failing when the processor needs at least one and none was given. */
  requiredFields(): FieldSpec[] {
    if (this.fields.length === 0) this.fail('missing option: field or fields', 'field');
    return this.fields;
  }

  private readFields(): FieldSpec[] {
    const one = this.raw.field;
    const many = this.raw.fields;
    if (one !== undefined && one !== null && many !== undefined && many !== null) {
      this.fail('field and fields cannot both be set', 'fields');
    }
    if (one !== undefined && one !== null) return [this.fieldSpec(one, 'field')];
    if (many === undefined || many === null) return [];
    if (!Array.isArray(many)) return [this.fieldSpec(many, 'fields')];
    return many.map((f) => this.fieldSpec(f, 'fields'));
  }

  private fieldSpec(v: unknown, key: string): FieldSpec {
    if (typeof v === 'string') {
      const parts = v.split(',').map((s) => s.trim());
      const input = parts[0] ?? '';
      if (input === '' || parts.length > 2 || parts[1] === '') this.fail(`invalid field: ${JSON.stringify(v)}`, key);
      const output = parts[1] ?? input;
      return { input, output, renamed: parts.length === 2 };
    }
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.key !== 'string' || o.key === '') this.fail('a field map needs a string key', key);
      const rename = o.rename_to;
      if (rename !== undefined && rename !== null && typeof rename !== 'string') {
        this.fail('rename_to must be a string', key);
      }
      return { input: o.key, output: (rename as string | undefined) ?? o.key, renamed: typeof rename === 'string' };
    }
    return this.fail(`invalid field: ${JSON.stringify(v)}`, key);
  }
}

/**
 * What `exec` returns: nothing (the record was changed in place and goes on), `DROP` (the record
 * is filtered out), or several records (one-to-many, only `vrl`, only as the last processor).
 */
export const DROP = Symbol('drop');
export type ProcessorResult = undefined | typeof DROP | PipelineRecord[];

export interface Processor {
  readonly name: string;
  /** Set when the processor reads and writes no keys but these (see `ProcessorIo`). */
  readonly io?: ProcessorIo;
  exec(record: PipelineRecord): ProcessorResult;
}

/**
 * The only record keys a processor reads and the only ones it writes, declared by processors that
 * touch no others and always return undefined (change the record in place): a text plan
 * (text-plan.ts) then gives them a record of just the keys they read.
 */
export interface ProcessorIo {
  readonly reads: readonly string[];
  readonly writes: readonly string[];
}

/** The io of a processor that reads each field's input and writes its output, nothing else. */
export function fieldsIo(fields: readonly FieldSpec[]): ProcessorIo {
  return { reads: fields.map((f) => f.input), writes: fields.map((f) => f.output) };
}

/** Compiles a processor from its options; throws PipelineError (via `options.fail`). */
export type ProcessorFactory = (options: ProcessorOptions) => Processor;

/**
 * The common "missing field" handling: the value of `field.input`, or undefined when it is
 * missing or null and `ignore_missing` is set (the caller then skips this field).
 */
export function inputOf(
  name: string,
  options: { ignoreMissing: boolean },
  record: PipelineRecord,
  field: FieldSpec,
): PipelineValue | undefined {
  const v = record[field.input];
  if (v === undefined || v === null) {
    if (options.ignoreMissing) return undefined;
    throw new RecordError(`Processor ${name}: missing field: ${field.input}`);
  }
  return v;
}
