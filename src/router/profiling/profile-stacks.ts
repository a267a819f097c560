/**
 * Reads a pprof `Profile` back as plain stacks, the common input of the text and flame graph
 * renderers. It checks every reference on the way, so a decoded profile that is not really one
 * (`/debug/prof/mem/symbol` accepts any upload) fails here rather than rendering nonsense.
 */
import type { Profile } from 'pprof-format';
import { type Frame, THREAD_LABEL } from './pprof-builder.js';

export interface Stack {
  /** Root first. */
  frames: Frame[];
  value: number;
  /** The `thread` label, '' when the sample has none. */
  thread: string;
}

export interface ProfileStacks {
  /** The sample type the values are of, e.g. `cpu` / `nanoseconds`. */
  type: string;
  unit: string;
  stacks: Stack[];
  total: number;
}

/** Reads the stacks of `profile` for its default sample type (pprof's rule: else the last). */
export function readStacks(profile: Profile): ProfileStacks {
  const strings = profile.stringTable.strings;
  const str = (index: number | bigint): string => {
    const s = strings[Number(index)];
    if (s === undefined) throw new Error(`string index ${index} out of range`);
    return s;
  };
  if (profile.sampleType.length === 0) throw new Error('profile has no sample types');
  if (strings[0] !== '') throw new Error('string table does not start with ""');
  const defaultType = Number(profile.defaultSampleType);
  let valueIndex = profile.sampleType.length - 1;
  if (defaultType !== 0) {
    const found = profile.sampleType.findIndex((t) => Number(t.type) === defaultType);
    if (found >= 0) valueIndex = found;
  }
  const sampleType = profile.sampleType[valueIndex];
  if (sampleType === undefined) throw new Error('profile has no sample types');

  const functions = new Map(profile.function.map((f) => [Number(f.id), f]));
  const frames = new Map<number, Frame[]>();
  for (const location of profile.location) {
    // A location holds its inlined frames innermost first.
    const list = location.line.map((line) => {
      const fn = functions.get(Number(line.functionId));
      if (fn === undefined) throw new Error(`location ${location.id} names unknown function ${line.functionId}`);
      return { name: str(fn.name), file: str(fn.filename), line: Number(line.line) };
    });
    frames.set(Number(location.id), list);
  }
  const threadKey = strings.indexOf(THREAD_LABEL);
  const stacks: Stack[] = [];
  let total = 0;
  for (const sample of profile.sample) {
    if (sample.value.length !== profile.sampleType.length) throw new Error('sample value count mismatch');
    const value = Number(sample.value[valueIndex]);
    const stack: Frame[] = [];
    for (let i = sample.locationId.length - 1; i >= 0; i--) {
      const list = frames.get(Number(sample.locationId[i]));
      if (list === undefined) throw new Error(`sample names unknown location ${sample.locationId[i]}`);
      for (let j = list.length - 1; j >= 0; j--) stack.push(list[j] as Frame);
    }
    const label = sample.label.find((l) => threadKey > 0 && Number(l.key) === threadKey);
    stacks.push({ frames: stack, value, thread: label ? str(label.str) : '' });
    total += value;
  }
  return { type: str(sampleType.type), unit: str(sampleType.unit), stacks, total };
}

/** A value in its unit, for people: `12.3ms`, `4.5MiB`, `17`. */
export function formatValue(value: number, unit: string): string {
  if (unit === 'nanoseconds') {
    if (value >= 1e9) return `${(value / 1e9).toFixed(2)}s`;
    return `${(value / 1e6).toFixed(2)}ms`;
  }
  if (unit === 'bytes') {
    if (value >= 1024 ** 3) return `${(value / 1024 ** 3).toFixed(2)}GiB`;
    if (value >= 1024 ** 2) return `${(value / 1024 ** 2).toFixed(2)}MiB`;
    if (value >= 1024) return `${(value / 1024).toFixed(2)}KiB`;
    return `${value}B`;
  }
  return String(value);
}
