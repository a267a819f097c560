/**
 * Routing records to other tables (reference §9.6): `dispatcher` sends a record whose field equals
 * a rule's value to `<table><table_suffix>` through another pipeline; `table_suffix` templates
 * name the table of the records that stay. Both are compiled once from the YAML.
 */
import { PipelineError, RecordError } from './processor.js';
import type { PipelineRecord, PipelineValue } from './value.js';

type Position = { line: number; column: number } | undefined;

export interface DispatchRule {
  value: string | number | boolean;
  tableSuffix: string;
  /** Stored pipeline name; undefined → greptime_identity. */
  pipeline: string | undefined;
}

export class Dispatcher {
  constructor(
    readonly field: string,
    readonly rules: readonly DispatchRule[],
  ) {}

  /** The first rule whose value equals the record's (typed: the string "1" is not the integer 1). */
  match(record: PipelineRecord): DispatchRule | undefined {
    const v = record[this.field];
    if (v === undefined || v === null) return undefined;
    for (const rule of this.rules) if (sameValue(v, rule.value)) return rule;
    return undefined;
  }
}

function sameValue(v: PipelineValue, r: string | number | boolean): boolean {
  if (typeof v === 'bigint') return typeof r === 'number' && Number.isInteger(r) && v === BigInt(r);
  return v === r;
}

/** Compiles `dispatcher: {field, rules: [{value, table_suffix, pipeline?}]}`. */
export function compileDispatcher(raw: unknown, at: Position): Dispatcher {
  const fail = (message: string): never => {
    throw new PipelineError(`Dispatcher: ${message}`, at?.line, at?.column);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('must be a map');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'field' && k !== 'rules') fail(`unknown option: ${k}`);
  if (typeof o.field !== 'string' || o.field === '') fail('missing option: field');
  if (!Array.isArray(o.rules)) return fail('missing option: rules (a list)');
  const rules = o.rules.map((r: unknown, i): DispatchRule => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return fail(`rule ${i + 1} must be a map`);
    const rule = r as Record<string, unknown>;
    for (const k of Object.keys(rule)) {
      if (k !== 'value' && k !== 'table_suffix' && k !== 'pipeline') fail(`rule ${i + 1}: unknown option: ${k}`);
    }
    const value = rule.value;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return fail(`rule ${i + 1}: missing option: value (a scalar)`);
    }
    if (typeof rule.table_suffix !== 'string' || rule.table_suffix === '') {
      return fail(`rule ${i + 1}: missing option: table_suffix`);
    }
    const pipeline = rule.pipeline;
    if (pipeline !== undefined && pipeline !== null && typeof pipeline !== 'string') {
      return fail(`rule ${i + 1}: pipeline must be a name`);
    }
    return { value, tableSuffix: rule.table_suffix, pipeline: pipeline ?? undefined };
  });
  return new Dispatcher(o.field as string, rules);
}

/** The pipeline a rule names: the stored one through `resolve`, or identity when none is named. */
export function rulePipeline<P>(
  rule: DispatchRule,
  resolve: ((name: string) => P | undefined) | undefined,
  identity: () => P,
): P {
  if (rule.pipeline === undefined || rule.pipeline === 'greptime_identity') return identity();
  const p = resolve?.(rule.pipeline);
  if (p === undefined)
    throw new RecordError(`Pipeline not found: ${rule.pipeline} (dispatcher rule ${rule.tableSuffix})`);
  return p;
}

/**
 * `table_suffix: _${type}_${region}`: literal text with `${key}` replaced by the record's string
 * or integer value; any other value, or a missing key, means no suffix at all.
 */
export class SuffixTemplate {
  private readonly parts: string[] = [];
  private readonly keys: string[] = [];

  constructor(
    readonly source: string,
    at: Position,
  ) {
    const re = /\$\{([^}]*)\}/g;
    let last = 0;
    for (let m = re.exec(source); m !== null; m = re.exec(source)) {
      const key = (m[1] as string).trim();
      if (key === '') throw new PipelineError('table_suffix: a placeholder without a key', at?.line, at?.column);
      this.parts.push(source.slice(last, m.index));
      this.keys.push(key);
      last = m.index + m[0].length;
    }
    this.parts.push(source.slice(last));
  }

  apply(record: PipelineRecord): string | undefined {
    let out = this.parts[0] as string;
    for (let i = 0; i < this.keys.length; i++) {
      const v = record[this.keys[i] as string];
      if (typeof v === 'string') out += v;
      else if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) out += String(v);
      else return undefined;
      out += this.parts[i + 1] as string;
    }
    return out;
  }
}
