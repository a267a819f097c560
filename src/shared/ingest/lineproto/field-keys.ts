/**
 * Tag and field keys of a line: duplicates resolved (a repeated key keeps its first position and
 * its last value), and the scratch the scanner collects a point's field keys in.
 */
import type { FieldKind, FieldValue } from './types.js';

/** Keys beyond which duplicate detection switches from a linear scan to a Map. */
const LINEAR_KEYS_MAX = 16;

/** Adds or overwrites (last value wins) a tag; returns the index map once one is needed. */
export function upsertTag(
  keys: string[],
  values: string[],
  index: Map<string, number> | null,
  key: string,
  value: string,
): Map<string, number> | null {
  const at = findKey(keys, index, key);
  if (at >= 0) {
    values[at] = value;
    return index;
  }
  keys.push(key);
  values.push(value);
  return indexAfterPush(keys, index, key);
}

/** True when the first `count` of `scratchKinds` equal `kinds`. */
export function sameKinds(kinds: readonly FieldKind[], scratchKinds: readonly FieldKind[], count: number): boolean {
  if (kinds.length !== count) return false;
  for (let i = 0; i < count; i++) if (kinds[i] !== scratchKinds[i]) return false;
  return true;
}

/**
 * Copies the first `count` scratch keys and kinds into arrays of their own, applying "last value
 * wins" to repeated keys; `values` (parallel to the scratch) is compacted in place to match.
 */
export function dedupeFields(
  count: number,
  values: FieldValue[],
  scratchKeys: readonly string[],
  scratchKinds: readonly FieldKind[],
): { keys: string[]; kinds: FieldKind[] } {
  const keys: string[] = [];
  const kinds: FieldKind[] = [];
  let index: Map<string, number> | null = null;
  let n = 0;
  for (let i = 0; i < count; i++) {
    const key = scratchKeys[i] as string;
    const kind = scratchKinds[i] as FieldKind;
    const value = values[i] as FieldValue;
    const at = findKey(keys, index, key);
    if (at >= 0) {
      kinds[at] = kind;
      values[at] = value;
      continue;
    }
    keys.push(key);
    kinds.push(kind);
    values[n++] = value;
    index = indexAfterPush(keys, index, key);
  }
  values.length = n;
  return { keys, kinds };
}

function findKey(keys: string[], index: Map<string, number> | null, key: string): number {
  if (index !== null) return index.get(key) ?? -1;
  for (let i = 0; i < keys.length; i++) if (keys[i] === key) return i;
  return -1;
}

function indexAfterPush(keys: string[], index: Map<string, number> | null, key: string): Map<string, number> | null {
  if (index !== null) {
    index.set(key, keys.length - 1);
    return index;
  }
  if (keys.length <= LINEAR_KEYS_MAX) return null;
  const built = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) built.set(keys[i] as string, i);
  return built;
}
