/**
 * A dissect pattern matched on a line's UTF-8 bytes instead of its string: the same scan as
 * `matchSimple` in dissect.ts (a key ends at the first occurrence of its delimiter's first
 * character, `->` skips repeats of it), giving each key's byte range. Only for patterns whose
 * literal text is ASCII: an ASCII byte never occurs inside a multi-byte UTF-8 sequence, so on
 * valid UTF-8 the bytes give the very ranges the characters would.
 */
import type { DissectPattern } from './dissect.js';

export interface BytePattern {
  prefix: Uint8Array;
  /** Per key: its delimiter's bytes (empty after the last key). */
  delimiters: Uint8Array[];
  padded: boolean[];
  keyCount: number;
}

/** The pattern in bytes, or undefined when its literal text is not all ASCII or it appends keys. */
export function bytePatternOf(p: DissectPattern): BytePattern | undefined {
  if (p.appendNames.length > 0) return undefined;
  const ascii = (s: string): Uint8Array | undefined => {
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) return undefined;
      out[i] = c;
    }
    return out;
  };
  const prefix = ascii(p.prefix);
  const delimiters: Uint8Array[] = [];
  for (const d of p.delimiters) {
    const bytes = ascii(d);
    if (bytes === undefined) return undefined;
    delimiters.push(bytes);
  }
  if (prefix === undefined) return undefined;
  return { prefix, delimiters, padded: p.keys.map((k) => k.padded), keyCount: p.keys.length };
}

function occursAt(b: Uint8Array, end: number, delim: Uint8Array, at: number): boolean {
  if (at + delim.length > end) return false;
  for (let i = 0; i < delim.length; i++) if (b[at + i] !== delim[i]) return false;
  return true;
}

/**
 * Matches `b[start, end)`; on a match, key k's value is `b[starts[k], ends[k])`. The scan never
 * leaves the line, so a delimiter missing from it costs one pass over the line.
 */
export function matchBytes(
  p: BytePattern,
  b: Uint8Array,
  start: number,
  end: number,
  starts: Int32Array,
  ends: Int32Array,
): boolean {
  const prefix = p.prefix;
  if (start + prefix.length > end) return false;
  for (let i = 0; i < prefix.length; i++) if (b[start + i] !== prefix[i]) return false;
  let pos = start + prefix.length;
  for (let k = 0; k < p.keyCount; k++) {
    const delim = p.delimiters[k] as Uint8Array;
    starts[k] = pos;
    if (delim.length === 0) {
      ends[k] = end;
      pos = end;
      continue;
    }
    const first = delim[0] as number;
    let at = pos;
    while (at < end && b[at] !== first) at++;
    if (at === end) return false;
    ends[k] = at;
    if (p.padded[k]) {
      // The delimiter starts at the last place in the run of padding where it still matches.
      let last = at;
      while (last + 1 < end && b[last + 1] === first) last++;
      const firstAt = at;
      for (at = last; at > firstAt && !occursAt(b, end, delim, at); at--);
    }
    if (delim.length > 1 && !occursAt(b, end, delim, at)) return false;
    pos = at + delim.length;
  }
  return pos === end;
}
