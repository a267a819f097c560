/**
 * Series identity inside a shard. A series is a table plus its non-null tags; within one table it
 * is named by a key string built from the tags sorted by column id:
 *
 *   key = concat over tags of `${columnId},${value.length}:${value}`
 *
 * The length prefix makes the key unambiguous whatever characters a value holds, so the key can be
 * parsed back into tags and two different tag sets never share a key. Keys compare as JS strings
 * (UTF-16 code units); that order is the series order of scans and of segment files, so it must
 * never change for format version 1.
 */
import assert from 'node:assert';

/** Tags of one series, parallel arrays sorted by column id. */
export interface SeriesTags {
  ids: number[];
  values: string[];
}

/** Builds the key of a tag set whose ids are already sorted ascending. */
export function seriesKeyOf(ids: readonly number[], values: readonly string[]): string {
  let key = '';
  for (let i = 0; i < ids.length; i++) {
    const value = values[i] as string;
    key += `${ids[i]},${value.length}:${value}`;
  }
  return key;
}

/**
 * Where each tag of a tuple enters its key: the positions of `tagIds` in ascending id order.
 * Computed once per batch, then `seriesKeyOfTuple` per series.
 */
export function keyOrderOf(tagIds: readonly number[]): Array<{ id: number; position: number }> {
  return tagIds.map((id, position) => ({ id, position })).sort((a, b) => a.id - b.id);
}

/** The key of a tag tuple (`tuple[p]`: value of tag `tagIds[p]`, null = absent). */
export function seriesKeyOfTuple(
  order: ReadonlyArray<{ id: number; position: number }>,
  tuple: ReadonlyArray<string | null>,
): string {
  let key = '';
  for (const { id, position } of order) {
    const value = tuple[position];
    if (value !== null && value !== undefined) key += `${id},${value.length}:${value}`;
  }
  return key;
}

function malformed(at: number): never {
  assert.fail(`malformed series key at ${at}`);
}

/** The value of the last number `numberUntil` read (a result without an allocation). */
let numberRead = 0;

/** Reads the decimal digits of `key` from `pos` up to the char code `stop`; returns where it is. */
function numberUntil(key: string, pos: number, stop: number): number {
  let n = 0;
  let at = pos;
  for (; at < key.length; at++) {
    const c = key.charCodeAt(at);
    if (c === stop) break;
    // The message is made only on failure: a template per character was most of a key's parse.
    if (c < 48 || c > 57) malformed(at);
    n = n * 10 + (c - 48);
  }
  if (at <= pos || at >= key.length) malformed(pos);
  numberRead = n;
  return at;
}

const COMMA = 44;
const COLON = 58;

/**
 * Calls `visit` with each tag of a key in key order, as the column id and where its value lies in
 * the key (`key.slice(start, end)`): the one parser of keys, by char codes, with no string made
 * (the tag filter hashes values in place).
 */
export function forEachTagSpan(key: string, visit: (id: number, start: number, end: number) => void): void {
  let pos = 0;
  while (pos < key.length) {
    pos = numberUntil(key, pos, COMMA) + 1;
    const id = numberRead;
    pos = numberUntil(key, pos, COLON) + 1;
    const end = pos + numberRead;
    if (end > key.length) malformed(pos);
    visit(id, pos, end);
    pos = end;
  }
}

/** Calls `visit` with each tag of a key in key order (a flush walks every key of a memtable through it). */
export function forEachTag(key: string, visit: (id: number, value: string) => void): void {
  forEachTagSpan(key, (id, start, end) => visit(id, key.slice(start, end)));
}

/** Parses a key back into its tags; the inverse of `seriesKeyOf`. */
export function parseSeriesKey(key: string): SeriesTags {
  const ids: number[] = [];
  const values: string[] = [];
  forEachTag(key, (id, value) => {
    ids.push(id);
    values.push(value);
  });
  return { ids, values };
}

/** The tags of a key as the `seriesFilter` of a scan wants them. */
export function tagMapOf(tags: SeriesTags): Map<number, string> {
  const map = new Map<number, string>();
  for (let i = 0; i < tags.ids.length; i++) map.set(tags.ids[i] as number, tags.values[i] as string);
  return map;
}

/** Compares two keys in series order. */
export function compareSeriesKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
