/**
 * InfluxDB line protocol → points. A hand-written scanner over the request bytes: no regexes, no
 * per-character string building. What repeats from line to line is recognised by its bytes and
 * reused: whole series (measurement + tag set, via a series cache), field keys (predicted from the
 * series' previous line), short names (intern cache) and timestamps. See README.md for the
 * caches and the grammar decisions.
 *
 * Grammar (reference §1.1, conformance README §3.2):
 *
 *   line      = measurement *( "," tagkey "=" tagvalue ) SP+ field *( "," field ) [ SP+ timestamp ] SP*
 *   field     = fieldkey "=" ( float | int "i" | uint "u" | bool | '"' string '"' )
 *   timestamp = ["-"] 1*DIGIT        ; raw, in the request precision
 *
 * Any malformed line rejects the whole body with `InvalidArgument`
 * `Failed to parse InfluxDB line protocol: line <n>: <reason>`, n being the 1-based physical line
 * on which the point starts.
 */

import { LINE_BYTES_MAX_DEFAULT } from '../../config.js';
import { InvalidArgument } from '../../errors.js';
import type { StorageKeyHolder } from '../../insert.js';
import { countRejection } from '../../rejections.js';
import { yieldToEventLoop } from '../../yield.js';
import type { SeriesBindingBase } from '../direct-parts.js';

/** Timestamp unit of a write request (`precision=` query parameter). */
export type Precision = 'ns' | 'us' | 'ms' | 's' | 'm' | 'h';

/** The five line-protocol value types. */
export type FieldKind = 'float' | 'integer' | 'uinteger' | 'string' | 'boolean';

/** A field value: float → number, integer/uinteger → bigint, string → string, boolean → boolean. */
export type FieldValue = number | bigint | string | boolean;

/**
 * One parsed point. Tags and fields are parallel arrays (key i ↔ value i); keys are unique within
 * a point (a repeated key keeps its first position and its last value). The key, kind and tag
 * value arrays are shared between points of the same series, hence read-only.
 */
export interface LinePoint {
  measurement: string;
  tagKeys: readonly string[];
  tagValues: readonly string[];
  fieldKeys: readonly string[];
  fieldKinds: readonly FieldKind[];
  fieldValues: FieldValue[];
  /** The raw integer written on the line, unscaled; null when the line has none. */
  timestamp: bigint | null;
  /** 1-based physical line on which the point starts. */
  line: number;
  /**
   * The parser's record of the point's series, shared by its points and kept across requests
   * while the series is cached: the ingest path keeps the series' shard and storage key on it.
   * Absent on points built by hand.
   */
  series?: LineSeries | undefined;
}

/** What the write path may keep on a parsed series between requests. */
export interface LineSeries extends StorageKeyHolder {
  /**
   * Its tag tuple and shard for `tupleLayout` (shard count, database, table and tag columns;
   * see lineproto/to-inserts.ts): both are rebuilt whenever the layout differs.
   */
  tuple?: Array<string | null> | undefined;
  shard?: number | undefined;
  tupleLayout?: string | undefined;
  /** Its index in the insert being built, valid while `stamp` is that insert's. */
  stamp?: number | undefined;
  stampIndex?: number | undefined;
  /** How the direct path writes the series, for one catalog generation (point-parts.ts). */
  binding?: SeriesBindingBase | undefined;
}

/** The points of one request body, in body order. */
export interface ParsedBatch {
  points: LinePoint[];
}

/**
 * Parses a whole request body. Throws `InvalidArgument` on the first malformed line, so a caller
 * either gets every point or none. `precision` only matters for one rule here: with `m` or `h` a
 * line must carry its own timestamp (GreptimeDB cannot express "now" in those units).
 */
export function parseLineProtocol(
  body: Buffer,
  precision: Precision,
  maxLineBytes: number = LINE_BYTES_MAX_DEFAULT,
): ParsedBatch {
  const scanner = new LineScanner(body, precision === 'm' || precision === 'h', maxLineBytes);
  return { points: scanner.parseAll() };
}

/** Bytes parsed per slice by `parseLineProtocolSliced`: about a millisecond of work. */
export const PARSE_SLICE_BYTES = 256 * 1024;

/**
 * Same result as `parseLineProtocol`, but parses in slices of `sliceBytes` and yields to the event
 * loop between them, so that one large body never holds the router's loop for long (the /health
 * latency under load depends on it).
 */
export async function parseLineProtocolSliced(
  body: Buffer,
  precision: Precision,
  maxLineBytes: number = LINE_BYTES_MAX_DEFAULT,
  sliceBytes: number = PARSE_SLICE_BYTES,
): Promise<ParsedBatch> {
  const scanner = new LineScanner(body, precision === 'm' || precision === 'h', maxLineBytes);
  const points: LinePoint[] = [];
  while (!scanner.parseSome(points, sliceBytes)) await yieldToEventLoop();
  return { points };
}

// Bytes the scanner dispatches on.
const TAB = 0x09;
const NEWLINE = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const HASH = 0x23;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const EQUALS = 0x3d;
const UPPER_E = 0x45;
const UPPER_F = 0x46;
const UPPER_T = 0x54;
const BACKSLASH = 0x5c;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_I = 0x69;
const LOWER_T = 0x74;
const LOWER_U = 0x75;

/** Which escapes a name position honours: measurements do not unescape `\=`. */
const NAME_MEASUREMENT = 0;
const NAME_KEY = 1;
const NAME_TAG_VALUE = 2;

/**
 * Intern cache: direct-mapped, keyed by an FNV-1a hash of the raw bytes, holding ASCII strings of
 * up to INTERN_LENGTH_MAX bytes. A hit is verified byte by byte, so a collision only costs a miss.
 * It lives for the process: TSBS-like traffic repeats the same few thousand names in every request.
 */
const INTERN_SLOTS = 8192;
const INTERN_LENGTH_MAX = 64;
const internStrings: Array<string | undefined> = new Array<string | undefined>(INTERN_SLOTS).fill(undefined);
const internHashes = new Int32Array(INTERN_SLOTS);
/** The bytes of each slot's string at slot × INTERN_LENGTH_MAX: hits compare bytes with bytes. */
const internBytes = new Uint8Array(INTERN_SLOTS * INTERN_LENGTH_MAX);

/**
 * Byte classes for name scanning, one table per position so the loop does a single lookup per
 * byte. Keys (tag and field keys) also stop at `=`; measurements and tag values do not.
 */
const BYTE_PLAIN = 0;
const BYTE_STOP = 1;
const BYTE_ESCAPE = 2;
const VALUE_BYTE_CLASS = byteClasses([COMMA, SPACE, NEWLINE]);
const KEY_BYTE_CLASS = byteClasses([COMMA, SPACE, NEWLINE, EQUALS]);

/** Series scanning stops at the first unescaped space (or a newline). */
const SERIES_BYTE_CLASS = byteClasses([SPACE, NEWLINE]);

/**
 * A parsed measurement + tag set, cached by its raw bytes. Its arrays are shared by every point
 * of the series (hence read-only), as are the field keys and kinds last seen with it.
 */
interface SeriesEntry extends LineSeries {
  /** The slab generation its bytes were copied in (-1: not in the slab, never guessed). */
  generation: number;
  /**
   * The series on the line after this one, last time: collectors send their series in the same
   * order every time, so this guess, confirmed by comparing bytes, spares most lines the hash.
   */
  next: SeriesEntry | null;
  /** Where the raw bytes of the series text sit in seriesSlab; compared on every hit. */
  offset: number;
  length: number;
  measurement: string;
  tagKeys: readonly string[];
  tagValues: readonly string[];
  lastFieldKeys: readonly string[];
  lastFieldKinds: readonly FieldKind[];
  /** Raw bytes of lastFieldKeys, back to back, and the end offset of each. */
  lastFieldKeyBytes: Uint8Array;
  lastFieldKeyEnds: Int32Array;
}

/**
 * Series cache keyed by hash (a colliding series replaces the entry). Process-wide like the intern
 * cache. A map rather than a direct-mapped table: slot collisions among a few thousand hot series
 * would make them evict each other on every line. The raw bytes of all entries live back to back
 * in one slab (a small typed array per entry costs more than parsing the series); when the slab
 * or the map is full the whole cache is dropped and refilled.
 */
// Sized for a collector's working set: with fewer entries than active series (a scrape of 10,000
// single-field series, say) every line missed and the cache was dropped every few requests.
const SERIES_ENTRIES_MAX = 131_072;
const SERIES_LENGTH_MAX = 1024;
const SERIES_SLAB_BYTES_MAX = 64 * 1024 * 1024;
const seriesEntries = new Map<number, SeriesEntry>();
/** Grows by doubling up to SERIES_SLAB_BYTES_MAX, so a small working set stays small. */
let seriesSlab = Buffer.alloc(256 * 1024);
let seriesSlabUsed = 0;
/** Series held by the parser's series cache (for `/metrics`). */
export function cachedSeriesCount(): number {
  return seriesEntries.size;
}

/** Bumped when the slab is reused from the start: older entries' bytes are gone. */
let slabGeneration = 0;

/**
 * Tag-key lists shared by every series with the same keys in the same order, so that the insert
 * builder recognises a repeated key layout by identity (bounded; it starts over when full).
 */
const keyLists = new Map<string, readonly string[]>();
function sharedKeyList(keys: string[]): readonly string[] {
  let id = '';
  for (const k of keys) id += `${k.length}:${k}`;
  const known = keyLists.get(id);
  if (known !== undefined) return known;
  if (keyLists.size >= 16_384) keyLists.clear();
  keyLists.set(id, keys);
  return keys;
}
const EMPTY_BYTES = new Uint8Array(0);
const EMPTY_KEYS: readonly string[] = [];
const EMPTY_KINDS: readonly FieldKind[] = [];
const EMPTY_ENDS = new Int32Array(0);

function byteClasses(stops: number[]): Uint8Array {
  const classes = new Uint8Array(256);
  for (const b of stops) classes[b] = BYTE_STOP;
  classes[BACKSLASH] = BYTE_ESCAPE;
  return classes;
}

/** 10^k as exact doubles, for the fast decimal path (exact up to 10^22). */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

/** Internal: carries a reason up to the point loop, which adds the line number. */
class LineError extends Error {}

function fail(reason: string): never {
  throw new LineError(reason);
}

/** `ingest.line_max_bytes` crossed: counted as a refusal by limit, then failed like any bad line. */
function tooLong(maxLineBytes: number): never {
  countRejection('line_length');
  fail(`line exceeds ${maxLineBytes} bytes (ingest.line_max_bytes)`);
}

/**
 * Scanner state for one body. Methods advance `pos`; token results come back as return values
 * (strings, numbers) so nothing is allocated per token beyond the values themselves.
 */
class LineScanner {
  private readonly buf: Buffer;
  private readonly len: number;
  private readonly timestampRequired: boolean;
  private readonly maxLineBytes: number;
  private pos = 0;
  /** Physical line number of `pos`. */
  private line = 1;
  /** Byte offset at which the current point starts (for the length limit). */
  private pointStart = 0;
  /** Scratch for names and strings with escapes, grown on demand. */
  private scratch: Buffer = Buffer.allocUnsafe(256);
  /** Last timestamp token, reused when the next line carries the same bytes (common in batches). */
  private lastTsStart = 0;
  private lastTsLength = -1;
  private lastTs = 0n;
  /** Series of the previous point, whose field keys seed a new series' prediction. */
  private previousSeries: SeriesEntry | null = null;

  constructor(buf: Buffer, timestampRequired: boolean, maxLineBytes: number) {
    this.buf = buf;
    this.len = buf.length;
    this.timestampRequired = timestampRequired;
    this.maxLineBytes = maxLineBytes;
  }

  parseAll(): LinePoint[] {
    const points: LinePoint[] = [];
    this.parseSome(points, Number.POSITIVE_INFINITY);
    return points;
  }

  /**
   * Parses up to `budgetBytes` more bytes' worth of points (always at least one), appending them
   * to `points`. Returns true once the whole body is parsed. Lets a caller parse a large body in
   * slices and give the event loop a turn between them.
   */
  parseSome(points: LinePoint[], budgetBytes: number): boolean {
    const buf = this.buf;
    const len = this.len;
    const stopAt = this.pos + budgetBytes;
    while (this.pos < len && this.pos < stopAt) {
      // Skip blank space between points: spaces, tabs, newlines, CRLF.
      let c = buf[this.pos] as number;
      if (c === NEWLINE) {
        this.pos++;
        this.line++;
        continue;
      }
      if (c === SPACE || c === TAB) {
        this.pos++;
        continue;
      }
      if (c === CR && this.pos + 1 < len && buf[this.pos + 1] === NEWLINE) {
        this.pos++;
        continue;
      }
      const startLine = this.line;
      const start = this.pos;
      try {
        if (c === HASH) {
          // A comment runs to the end of its physical line, quotes and all.
          const nl = buf.indexOf(NEWLINE, start);
          this.pos = nl < 0 ? len : nl;
          if (this.pos - start > this.maxLineBytes) tooLong(this.maxLineBytes);
          continue;
        }
        this.pointStart = start;
        const point = this.parsePoint(startLine);
        if (this.pos - start > this.maxLineBytes) tooLong(this.maxLineBytes);
        points.push(point);
        // parsePoint leaves pos at the end of the body or on the line's terminator.
        if (this.pos < len) {
          c = buf[this.pos] as number;
          if (c === NEWLINE) {
            this.pos++;
            this.line++;
          } else {
            // CR LF: parsePoint already checked the LF follows.
            this.pos += 2;
            this.line++;
          }
        }
      } catch (err) {
        if (err instanceof LineError) {
          throw new InvalidArgument(`Failed to parse InfluxDB line protocol: line ${startLine}: ${err.message}`);
        }
        throw err;
      }
    }
    return this.pos >= len;
  }

  /** True when `pos` is at the end of the line: end of body, LF, or CR LF. */
  private atLineEnd(): boolean {
    const pos = this.pos;
    if (pos >= this.len) return true;
    const c = this.buf[pos];
    return c === NEWLINE || (c === CR && pos + 1 < this.len && this.buf[pos + 1] === NEWLINE);
  }

  private skipSpaces(): void {
    const buf = this.buf;
    let pos = this.pos;
    while (pos < this.len && buf[pos] === SPACE) pos++;
    this.pos = pos;
  }

  private parsePoint(startLine: number): LinePoint {
    const buf = this.buf;
    const series = this.parseSeries();

    if (this.pos >= this.len || buf[this.pos] !== SPACE) fail('no field set');
    this.skipSpaces();
    if (this.atLineEnd()) fail('no field set');

    // Keys and kinds go to scratch first: when they repeat the previous point's of this series
    // (the usual case) the point shares those arrays instead of allocating its own. While keys
    // keep matching the previous point's raw key bytes, they are recognised by a plain byte
    // comparison instead of being scanned, hashed and interned.
    const fieldValues: FieldValue[] = [];
    const expectedKeys = series.lastFieldKeys;
    const expectedBytes = series.lastFieldKeyBytes;
    const expectedEnds = series.lastFieldKeyEnds;
    let predicted = expectedEnds.length > 0;
    let count = 0;
    for (;;) {
      const keyStart = this.pos;
      let key: string;
      if (
        predicted &&
        count < expectedEnds.length &&
        this.skipExpectedKey(
          expectedBytes,
          count === 0 ? 0 : (expectedEnds[count - 1] as number),
          expectedEnds[count] as number,
        )
      ) {
        key = expectedKeys[count] as string;
      } else {
        predicted = false;
        key = this.scanName(NAME_KEY);
        if (this.pos >= this.len || buf[this.pos] !== EQUALS) {
          if (key.length === 0)
            fail(keyStart > 0 && buf[keyStart - 1] === COMMA ? "empty field after ','" : 'empty field key');
          fail(`field '${key}' has no '=' and value`);
        }
        if (key.length === 0) fail('empty field key');
      }
      scratchKeyStarts[count] = keyStart;
      scratchKeyEnds[count] = this.pos;
      this.pos++;
      fieldValues.push(this.scanFieldValue(key));
      scratchFieldKeys[count] = key;
      scratchFieldKinds[count] = fieldKind;
      count++;
      if (this.pos < this.len && buf[this.pos] === COMMA) {
        this.pos++;
        continue;
      }
      break;
    }
    let fieldKeys = series.lastFieldKeys;
    let fieldKinds = series.lastFieldKinds;
    if (!(predicted && count === expectedKeys.length && sameKindsAsScratch(fieldKinds, count))) {
      const fresh = dedupeFields(count, fieldValues);
      fieldKeys = fresh.keys;
      fieldKinds = fresh.kinds;
      series.lastFieldKeys = fieldKeys;
      series.lastFieldKinds = fieldKinds;
      if (fieldKeys.length === count) {
        this.rememberKeyBytes(series, count);
      } else {
        // Repeated keys: raw key i no longer lines up with key i, so predict nothing.
        series.lastFieldKeyBytes = EMPTY_BYTES;
        series.lastFieldKeyEnds = EMPTY_ENDS;
      }
    }

    this.previousSeries = series;

    let timestamp: bigint | null = null;
    if (this.pos < this.len && buf[this.pos] === SPACE) {
      this.skipSpaces();
      if (!this.atLineEnd()) {
        timestamp = this.scanTimestamp();
        this.skipSpaces();
      }
    }
    if (!this.atLineEnd())
      fail(`unexpected text after the ${timestamp === null ? 'field set' : 'timestamp'}: '${this.preview()}'`);
    if (timestamp === null && this.timestampRequired) {
      fail('a timestamp is required with precision m or h');
    }
    return {
      measurement: series.measurement,
      tagKeys: series.tagKeys,
      tagValues: series.tagValues,
      fieldKeys,
      fieldKinds,
      fieldValues,
      timestamp,
      line: startLine,
      series,
    };
  }

  /**
   * True (and `pos` moved past the key) when the bytes at `pos` are exactly `expected[from, to)`
   * followed by `=`. Those bytes formed a whole key before, so they decode to the same string.
   */
  private skipExpectedKey(expected: Uint8Array, from: number, to: number): boolean {
    const buf = this.buf;
    const pos = this.pos;
    const length = to - from;
    if (pos + length >= this.len || buf[pos + length] !== EQUALS) return false;
    for (let k = 0; k < length; k++) if (buf[pos + k] !== expected[from + k]) return false;
    this.pos = pos + length;
    return true;
  }

  /** Stores the raw bytes of the point's `count` field keys (from scratch offsets) on the series. */
  private rememberKeyBytes(series: SeriesEntry, count: number): void {
    let total = 0;
    for (let i = 0; i < count; i++) total += (scratchKeyEnds[i] as number) - (scratchKeyStarts[i] as number);
    const bytes = new Uint8Array(total);
    const ends = new Int32Array(count);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const from = scratchKeyStarts[i] as number;
      const to = scratchKeyEnds[i] as number;
      copyBytes(this.buf, from, to, bytes, at);
      at += to - from;
      ends[i] = at;
    }
    series.lastFieldKeyBytes = bytes;
    series.lastFieldKeyEnds = ends;
  }

  /**
   * The measurement and tag set at `pos`, leaving `pos` on the byte after them. Series repeat
   * from line to line, so their raw bytes (up to the first unescaped space) key a cache of parsed
   * series; a hit skips all name scanning, interning and duplicate-tag checks.
   */
  private parseSeries(): SeriesEntry {
    const previous = this.previousSeries;
    const entry = this.findSeries(previous?.next ?? null);
    if (previous !== null && previous.next !== entry) previous.next = entry;
    return entry;
  }

  private findSeries(guess: SeriesEntry | null): SeriesEntry {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos;
    if (guess !== null && guess.generation === slabGeneration) {
      // Same bytes followed by a space: the same series text (its bytes end outside any escape).
      const end = start + guess.length;
      if (
        end < len &&
        buf[end] === SPACE &&
        seriesSlab.compare(buf, start, end, guess.offset, guess.offset + guess.length) === 0
      ) {
        this.pos = end;
        return guess;
      }
    }
    let pos = start;
    let hash = 0x811c9dc5 | 0;
    while (pos < len) {
      const c = buf[pos] as number;
      const byteClass = SERIES_BYTE_CLASS[c];
      if (byteClass !== BYTE_PLAIN) {
        if (byteClass === BYTE_STOP) break;
        // Escaped byte: hash both, so `a\ b` and `a\\ b` differ. A trailing backslash is left
        // to the full parse, which reports it.
        hash = Math.imul(hash ^ c, 0x01000193);
        pos++;
        if (pos >= len) break;
      }
      hash = Math.imul(hash ^ (buf[pos] as number), 0x01000193);
      pos++;
    }
    const length = pos - start;
    const cacheable = pos < len && buf[pos] === SPACE && length <= SERIES_LENGTH_MAX;
    // Keep the key a small integer so map lookups never box it.
    hash &= 0x3fffffff;
    if (cacheable) {
      const cached = seriesEntries.get(hash);
      if (cached !== undefined && cached.length === length) {
        const offset = cached.offset;
        // memcmp: series texts run to a few hundred bytes, a JS byte loop was the parser's top cost.
        if (seriesSlab.compare(buf, start, pos, offset, offset + length) === 0) {
          this.pos = pos;
          return cached;
        }
      }
    }
    const entry = this.parseSeriesSlow();
    if (cacheable && this.pos === pos) {
      if (seriesSlabUsed + length > seriesSlab.length && seriesSlab.length < SERIES_SLAB_BYTES_MAX) {
        const grown = Buffer.alloc(seriesSlab.length * 2);
        grown.set(seriesSlab.subarray(0, seriesSlabUsed));
        seriesSlab = grown;
      }
      if (seriesEntries.size >= SERIES_ENTRIES_MAX || seriesSlabUsed + length > seriesSlab.length) {
        seriesEntries.clear();
        seriesSlabUsed = 0;
        slabGeneration++;
      }
      copyBytes(buf, start, pos, seriesSlab, seriesSlabUsed);
      entry.offset = seriesSlabUsed;
      entry.length = length;
      entry.generation = slabGeneration;
      seriesSlabUsed += length;
      seriesEntries.set(hash, entry);
    }
    return entry;
  }

  private parseSeriesSlow(): SeriesEntry {
    const buf = this.buf;
    const measurement = this.scanName(NAME_MEASUREMENT);
    if (measurement.length === 0) fail('empty measurement name');
    const tagKeys: string[] = [];
    const tagValues: string[] = [];
    let tagIndex: Map<string, number> | null = null;
    while (this.pos < this.len && buf[this.pos] === COMMA) {
      this.pos++;
      const key = this.scanName(NAME_KEY);
      if (this.pos >= this.len || buf[this.pos] !== EQUALS) {
        fail(key.length === 0 ? 'empty tag key' : `tag key '${key}' has no '=' and value`);
      }
      if (key.length === 0) fail('empty tag key');
      this.pos++;
      const value = this.scanName(NAME_TAG_VALUE);
      if (value.length === 0) fail(`empty tag value for tag key '${key}'`);
      tagIndex = upsertTag(tagKeys, tagValues, tagIndex, key, value);
    }
    // A new series most likely carries the same fields as the point before it (one measurement
    // at a time, many hosts), so it starts from that point's key prediction.
    const previous = this.previousSeries;
    return {
      generation: -1,
      next: null,
      offset: 0,
      length: 0,
      measurement,
      tagKeys: sharedKeyList(tagKeys),
      tagValues,
      lastFieldKeys: previous === null ? EMPTY_KEYS : previous.lastFieldKeys,
      lastFieldKinds: previous === null ? EMPTY_KINDS : previous.lastFieldKinds,
      lastFieldKeyBytes: previous === null ? EMPTY_BYTES : previous.lastFieldKeyBytes,
      lastFieldKeyEnds: previous === null ? EMPTY_ENDS : previous.lastFieldKeyEnds,
      // Present from the start, so every record keeps one shape (fast property access).
      storageKey: undefined,
      tuple: undefined,
      shard: undefined,
      tupleLayout: undefined,
      stamp: undefined,
      stampIndex: undefined,
      binding: undefined,
    };
  }

  /** Up to 20 bytes from `pos` for error messages. */
  private preview(): string {
    let end = this.pos;
    while (end < this.len && end - this.pos < 20 && this.buf[end] !== NEWLINE) end++;
    return this.buf.toString('utf8', this.pos, end);
  }

  /**
   * Scans a measurement, tag key, tag value or field key, leaving `pos` on the byte that ended it
   * (`,`, ` `, `=` for keys, a newline, or the end of the body). Backslash escapes `\,` `\ ` `\\`
   * (and `\=` outside measurements) become the escaped byte; any other `\x` stays two bytes.
   */
  private scanName(mode: number): string {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos;
    const classes = mode === NAME_KEY ? KEY_BYTE_CLASS : VALUE_BYTE_CLASS;
    let pos = start;
    let hash = 0x811c9dc5 | 0;
    let high = 0;
    let escaped = false;
    while (pos < len) {
      const c = buf[pos] as number;
      const byteClass = classes[c];
      if (byteClass !== BYTE_PLAIN) {
        if (byteClass === BYTE_STOP) break;
        // A backslash: the next byte is taken as is (unescaped later), unless there is none.
        if (pos + 1 >= len || buf[pos + 1] === NEWLINE) {
          fail('Measurements, tag keys and values, and field keys may not end with a backslash');
        }
        escaped = true;
        pos += 2;
        continue;
      }
      high |= c;
      hash = Math.imul(hash ^ c, 0x01000193);
      pos++;
    }
    this.pos = pos;
    if (escaped) return this.unescapeName(start, pos, mode);
    const length = pos - start;
    if (length === 0) return '';
    if (high >= 0x80 || length > INTERN_LENGTH_MAX) return buf.toString('utf8', start, pos);
    const slot = hash & (INTERN_SLOTS - 1);
    const cached = internStrings[slot];
    const base = slot * INTERN_LENGTH_MAX;
    if (cached !== undefined && internHashes[slot] === hash && cached.length === length) {
      let k = 0;
      while (k < length && internBytes[base + k] === buf[start + k]) k++;
      if (k === length) return cached;
    }
    const s = buf.toString('latin1', start, pos);
    internStrings[slot] = s;
    internHashes[slot] = hash;
    copyBytes(buf, start, pos, internBytes, base);
    return s;
  }

  /** Slow path of scanName: copies [start, end) into scratch without the escaping backslashes. */
  private unescapeName(start: number, end: number, mode: number): string {
    const buf = this.buf;
    const out = this.scratchOf(end - start);
    let n = 0;
    for (let pos = start; pos < end; pos++) {
      const c = buf[pos] as number;
      if (c === BACKSLASH) {
        const next = buf[pos + 1] as number;
        if (next === COMMA || next === SPACE || next === BACKSLASH || (next === EQUALS && mode !== NAME_MEASUREMENT)) {
          out[n++] = next;
          pos++;
          continue;
        }
        // Unknown escape: keep the backslash and the byte after it, which is never a separator.
        out[n++] = c;
        out[n++] = next;
        pos++;
        continue;
      }
      out[n++] = c;
    }
    return out.toString('utf8', 0, n);
  }

  private scratchOf(size: number): Buffer {
    if (this.scratch.length < size) this.scratch = Buffer.allocUnsafe(Math.max(size, this.scratch.length * 2));
    return this.scratch;
  }

  /**
   * Scans one field value at `pos` and returns it; its kind is left in `fieldKind`. Leaves `pos`
   * on the byte after the value.
   */
  private scanFieldValue(key: string): FieldValue {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos;
    if (start < len && buf[start] === QUOTE) {
      fieldKind = 'string';
      return this.scanString();
    }
    // Fast path: a plain decimal `-?\d+(\.\d+)?` of at most 15 digits, ending at a separator,
    // is a float computed in the same pass. Everything else takes the general path below.
    let pos = start;
    const negative = pos < len && buf[pos] === MINUS;
    if (negative) pos++;
    let mantissa = 0;
    const intStart = pos;
    while (pos < len) {
      const d = (buf[pos] as number) - DIGIT_0;
      if (d < 0 || d > 9) break;
      mantissa = mantissa * 10 + d;
      pos++;
    }
    if (pos > intStart) {
      let fracDigits = 0;
      let fractionOk = true;
      if (pos < len && buf[pos] === DOT) {
        pos++;
        const fracStart = pos;
        while (pos < len) {
          const d = (buf[pos] as number) - DIGIT_0;
          if (d < 0 || d > 9) break;
          mantissa = mantissa * 10 + d;
          pos++;
        }
        fracDigits = pos - fracStart;
        fractionOk = fracDigits > 0;
      }
      const c = pos < len ? (buf[pos] as number) : NEWLINE;
      if (
        fractionOk &&
        pos - intStart - (fracDigits > 0 ? 1 : 0) <= 15 &&
        (c === COMMA || c === SPACE || c === NEWLINE || c === CR)
      ) {
        this.pos = pos;
        fieldKind = 'float';
        const v = fracDigits === 0 ? mantissa : mantissa / (POW10[fracDigits] as number);
        return negative ? -v : v;
      }
    }
    let end = start;
    while (end < len) {
      const c = buf[end];
      if (c === COMMA || c === SPACE || c === NEWLINE || c === CR) break;
      end++;
    }
    this.pos = end;
    if (end === start) fail(`empty field value for field key '${key}'`);
    const first = buf[start] as number;
    const last = buf[end - 1] as number;
    if (last === LOWER_I) {
      fieldKind = 'integer';
      return this.parseInteger(start, end - 1, false);
    }
    if (last === LOWER_U) {
      fieldKind = 'uinteger';
      return this.parseInteger(start, end - 1, true);
    }
    if ((first >= DIGIT_0 && first <= DIGIT_9) || first === MINUS || first === DOT || first === PLUS) {
      fieldKind = 'float';
      return this.parseFloat(start, end);
    }
    if (first === LOWER_T || first === UPPER_T || first === LOWER_F || first === UPPER_F) {
      const b = parseBoolean(buf, start, end);
      if (b !== null) {
        fieldKind = 'boolean';
        return b;
      }
      fail(`invalid boolean value '${this.text(start, end)}' (accepted: t T true True TRUE f F false False FALSE)`);
    }
    fail(`invalid field value '${this.text(start, end)}': strings must be double-quoted`);
  }

  private text(start: number, end: number): string {
    return this.buf.toString('utf8', start, Math.min(end, start + 64));
  }

  /**
   * A double-quoted string at `pos`. Only `\"` and `\\` are escapes; every other backslash is
   * literal. Newlines inside the quotes belong to the value (and advance the line count).
   */
  private scanString(): string {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos + 1;
    let pos = start;
    let high = 0;
    let escaped = false;
    let newlines = 0;
    for (;;) {
      if (pos >= len) fail('unterminated string field value');
      const c = buf[pos] as number;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const next = buf[pos + 1];
        if (next === QUOTE || next === BACKSLASH) {
          escaped = true;
          pos += 2;
          continue;
        }
      } else if (c === NEWLINE) {
        newlines++;
      }
      high |= c;
      pos++;
    }
    this.pos = pos + 1;
    this.line += newlines;
    if (pos - this.pointStart > this.maxLineBytes) tooLong(this.maxLineBytes);
    if (escaped) {
      const out = this.scratchOf(pos - start);
      let n = 0;
      for (let i = start; i < pos; i++) {
        const c = buf[i] as number;
        if (c === BACKSLASH) {
          const next = buf[i + 1] as number;
          if (next === QUOTE || next === BACKSLASH) {
            out[n++] = next;
            i++;
            continue;
          }
        }
        out[n++] = c;
      }
      return out.toString('utf8', 0, n);
    }
    return buf.toString(high < 0x80 ? 'latin1' : 'utf8', start, pos);
  }

  /** `-?\d+` (signed) or `\d+` (unsigned) in [start, end), range-checked to i64 / u64. */
  private parseInteger(start: number, end: number, unsigned: boolean): bigint {
    const buf = this.buf;
    let pos = start;
    const negative = buf[pos] === MINUS;
    if (negative) {
      if (unsigned) fail(`negative unsigned integer value '${this.text(start, end + 1)}'`);
      pos++;
    }
    const digitsStart = pos;
    let value = 0;
    while (pos < end) {
      const d = (buf[pos] as number) - DIGIT_0;
      if (d < 0 || d > 9) {
        fail(`Unable to parse ${unsigned ? 'unsigned ' : ''}integer value '${this.text(start, end + 1)}'`);
      }
      value = value * 10 + d;
      pos++;
    }
    const digits = end - digitsStart;
    if (digits === 0)
      fail(`Unable to parse ${unsigned ? 'unsigned ' : ''}integer value '${this.text(start, end + 1)}'`);
    if (digits <= 15) return BigInt(negative ? -value : value);
    const big = BigInt(this.buf.toString('latin1', start, end));
    if (unsigned ? big > U64_MAX : big < I64_MIN || big > I64_MAX) {
      fail(`${unsigned ? 'unsigned integer' : 'integer'} value '${this.text(start, end + 1)}' out of range`);
    }
    return big;
  }

  /**
   * `-?\d+(\.\d+)?([eE][+-]?\d+)?` in [start, end). Up to 15 significant digits without exponent
   * take the exact fast path (integer mantissa ÷ exact power of ten: one correctly rounded
   * operation); anything else goes through `Number()`, which accepts exactly this shape too.
   */
  private parseFloat(start: number, end: number): number {
    const buf = this.buf;
    let pos = start;
    const negative = buf[pos] === MINUS;
    if (negative) pos++;
    let mantissa = 0;
    const intStart = pos;
    while (pos < end) {
      const d = (buf[pos] as number) - DIGIT_0;
      if (d < 0 || d > 9) break;
      mantissa = mantissa * 10 + d;
      pos++;
    }
    const intDigits = pos - intStart;
    if (intDigits === 0) this.invalidNumber(start, end);
    let fracDigits = 0;
    if (pos < end && buf[pos] === DOT) {
      pos++;
      const fracStart = pos;
      while (pos < end) {
        const d = (buf[pos] as number) - DIGIT_0;
        if (d < 0 || d > 9) break;
        mantissa = mantissa * 10 + d;
        pos++;
      }
      fracDigits = pos - fracStart;
      if (fracDigits === 0) this.invalidNumber(start, end);
    }
    let exponent = false;
    if (pos < end && (buf[pos] === LOWER_E || buf[pos] === UPPER_E)) {
      exponent = true;
      pos++;
      if (pos < end && (buf[pos] === PLUS || buf[pos] === MINUS)) pos++;
      const expStart = pos;
      while (pos < end && (buf[pos] as number) >= DIGIT_0 && (buf[pos] as number) <= DIGIT_9) pos++;
      if (pos === expStart) this.invalidNumber(start, end);
    }
    if (pos !== end) this.invalidNumber(start, end);
    if (!exponent && intDigits + fracDigits <= 15) {
      const v = fracDigits === 0 ? mantissa : mantissa / (POW10[fracDigits] as number);
      return negative ? -v : v;
    }
    const v = Number(buf.toString('latin1', start, end));
    if (!Number.isFinite(v)) fail(`float value '${this.text(start, end)}' out of range`);
    return v;
  }

  private invalidNumber(start: number, end: number): never {
    fail(`Unable to parse floating-point value '${this.text(start, end)}'`);
  }

  /** `-?\d+` up to the next space or line end, range-checked to i64. */
  private scanTimestamp(): bigint {
    const buf = this.buf;
    const len = this.len;
    const start = this.pos;
    let pos = start;
    const negative = buf[pos] === MINUS;
    if (negative) pos++;
    const digitsStart = pos;
    while (pos < len) {
      const c = buf[pos] as number;
      if (c < DIGIT_0 || c > DIGIT_9) break;
      pos++;
    }
    const digits = pos - digitsStart;
    if (pos < len) {
      const c = buf[pos];
      if (c !== SPACE && c !== NEWLINE && c !== CR) {
        let end = pos;
        while (end < len && buf[end] !== SPACE && buf[end] !== NEWLINE) end++;
        fail(`Unable to parse timestamp value '${this.text(start, end)}': a timestamp is a whole number`);
      }
    }
    if (digits === 0) fail(`Unable to parse timestamp value '${this.text(start, pos)}'`);
    this.pos = pos;
    const length = pos - start;
    if (length === this.lastTsLength) {
      const last = this.lastTsStart;
      let k = 0;
      while (k < length && buf[last + k] === buf[start + k]) k++;
      if (k === length) return this.lastTs;
    }
    let ts: bigint;
    if (digits <= 15) {
      let v = 0;
      for (let i = digitsStart; i < pos; i++) v = v * 10 + ((buf[i] as number) - DIGIT_0);
      ts = BigInt(negative ? -v : v);
    } else {
      ts = BigInt(buf.toString('latin1', start, pos));
      if (ts < I64_MIN || ts > I64_MAX) fail(`timestamp '${this.text(start, pos)}' out of the int64 range`);
    }
    this.lastTsStart = start;
    this.lastTsLength = length;
    this.lastTs = ts;
    return ts;
  }
}

/**
 * Kind of the value scanFieldValue returned last. A module-level register instead of a returned
 * pair, so the hot loop allocates nothing for it.
 */
let fieldKind: FieldKind = 'float';

const TRUE_WORDS = ['t', 'T', 'true', 'True', 'TRUE'];
const FALSE_WORDS = ['f', 'F', 'false', 'False', 'FALSE'];

function parseBoolean(buf: Buffer, start: number, end: number): boolean | null {
  const length = end - start;
  if (length > 5) return null;
  if (matchesAny(buf, start, length, TRUE_WORDS)) return true;
  if (matchesAny(buf, start, length, FALSE_WORDS)) return false;
  return null;
}

function matchesAny(buf: Buffer, start: number, length: number, words: string[]): boolean {
  for (const w of words) {
    if (w.length !== length) continue;
    let k = 0;
    while (k < length && w.charCodeAt(k) === buf[start + k]) k++;
    if (k === length) return true;
  }
  return false;
}

/**
 * Copies source[from, to) to target[at...]. A plain loop: the names copied here are short, and
 * Buffer#copy's per-call overhead dominates at these sizes.
 */
function copyBytes(source: Uint8Array, from: number, to: number, target: Uint8Array, at: number): void {
  for (let i = from; i < to; i++) target[at++] = source[i] as number;
}

/** Keys beyond which duplicate detection switches from a linear scan to a Map. */
const LINEAR_KEYS_MAX = 16;

/** Adds or overwrites (last value wins) a tag; returns the index map once one is needed. */
function upsertTag(
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

/**
 * Field keys and kinds of the point being parsed (the first `count` entries are live). Reused
 * across points so that a point whose keys repeat allocates neither array.
 */
const scratchFieldKeys: string[] = [];
const scratchFieldKinds: FieldKind[] = [];

/** Raw byte range [start, end) of each scratch key in the body. */
const scratchKeyStarts: number[] = [];
const scratchKeyEnds: number[] = [];

/** True when the first `count` scratch kinds equal `kinds`. */
function sameKindsAsScratch(kinds: readonly FieldKind[], count: number): boolean {
  if (kinds.length !== count) return false;
  for (let i = 0; i < count; i++) if (kinds[i] !== scratchFieldKinds[i]) return false;
  return true;
}

/**
 * Copies the scratch keys and kinds into arrays of their own, applying "last value wins" to
 * repeated keys; `values` (parallel to the scratch) is compacted in place to match.
 */
function dedupeFields(count: number, values: FieldValue[]): { keys: string[]; kinds: FieldKind[] } {
  const keys: string[] = [];
  const kinds: FieldKind[] = [];
  let index: Map<string, number> | null = null;
  let n = 0;
  for (let i = 0; i < count; i++) {
    const key = scratchFieldKeys[i] as string;
    const kind = scratchFieldKinds[i] as FieldKind;
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
