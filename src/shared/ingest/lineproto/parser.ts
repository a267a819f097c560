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
import { yieldToEventLoop } from '../../yield.js';
import { copyBytes, SERIES_BYTE_CLASS } from './bytes.js';
import { dedupeFields, sameKinds, upsertTag } from './field-keys.js';
import { type LineCaches, SERIES_LENGTH_MAX, type SeriesEntry } from './line-caches.js';
import { fail, LineError, tooLong } from './line-error.js';
import { NAME_KEY, NAME_MEASUREMENT, NAME_TAG_VALUE, TokenScanner } from './token-scanner.js';
import type { FieldKind, FieldValue, LinePoint, ParsedBatch, Precision } from './types.js';

// Byte codes and classes as literals, not imports: see bytes.ts.
const TAB = 0x09;
const NEWLINE = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const HASH = 0x23;
const COMMA = 0x2c;
const EQUALS = 0x3d;
/** Byte classes of the tables in bytes.ts. */
const BYTE_PLAIN = 0;
const BYTE_STOP = 1;

export { LineCaches } from './line-caches.js';
export type { FieldKind, FieldValue, LinePoint, LineSeries, ParsedBatch, Precision } from './types.js';

/**
 * Parses a whole request body. Throws `InvalidArgument` on the first malformed line, so a caller
 * either gets every point or none. `precision` only matters for one rule here: with `m` or `h` a
 * line must carry its own timestamp (GreptimeDB cannot express "now" in those units).
 */
export function parseLineProtocol(
  body: Buffer,
  precision: Precision,
  caches: LineCaches,
  maxLineBytes: number = LINE_BYTES_MAX_DEFAULT,
): ParsedBatch {
  const scanner = new LineScanner(body, precision === 'm' || precision === 'h', maxLineBytes, caches);
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
  caches: LineCaches,
  maxLineBytes: number = LINE_BYTES_MAX_DEFAULT,
  sliceBytes: number = PARSE_SLICE_BYTES,
): Promise<ParsedBatch> {
  const scanner = new LineScanner(body, precision === 'm' || precision === 'h', maxLineBytes, caches);
  const points: LinePoint[] = [];
  while (!scanner.parseSome(points, sliceBytes)) await yieldToEventLoop();
  return { points };
}

/**
 * Field keys and kinds of the point being parsed (the first `count` entries are live). Reused
 * across points so that a point whose keys repeat allocates neither array. Module-local, written
 * for every field: imported bindings cost the scan (see bytes.ts).
 */
const scratchFieldKeys: string[] = [];
const scratchFieldKinds: FieldKind[] = [];
/**
 * Field values of the point being parsed, copied into an array of the exact length once the
 * fields end: a `[]` grown by `push` reserves 17 slots on its first push, and per point of one
 * field that was the largest allocation of line-protocol ingest.
 */
const scratchFieldValues: FieldValue[] = [];

function fieldValuesOf(count: number): FieldValue[] {
  if (count === 1) return [scratchFieldValues[0] as FieldValue];
  const values = new Array<FieldValue>(count);
  for (let i = 0; i < count; i++) values[i] = scratchFieldValues[i] as FieldValue;
  return values;
}

/** Raw byte range [start, end) of each scratch key in the body. */
const scratchKeyStarts: number[] = [];
const scratchKeyEnds: number[] = [];

const EMPTY_BYTES = new Uint8Array(0);
const EMPTY_KEYS: readonly string[] = [];
const EMPTY_KINDS: readonly FieldKind[] = [];
const EMPTY_ENDS = new Int32Array(0);

/**
 * The point loop over one body: recognises each line's series (cached by its bytes), predicts its
 * field keys from the series' previous line, and builds the point.
 */
class LineScanner extends TokenScanner {
  private readonly timestampRequired: boolean;
  /** Series of the previous point, whose field keys seed a new series' prediction. */
  private previousSeries: SeriesEntry | null = null;

  constructor(buf: Buffer, timestampRequired: boolean, maxLineBytes: number, caches: LineCaches) {
    super(buf, maxLineBytes, caches);
    this.timestampRequired = timestampRequired;
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
      scratchFieldValues[count] = this.scanFieldValue(key);
      scratchFieldKeys[count] = key;
      scratchFieldKinds[count] = this.valueKind;
      count++;
      if (this.pos < this.len && buf[this.pos] === COMMA) {
        this.pos++;
        continue;
      }
      break;
    }
    const fieldValues = fieldValuesOf(count);
    let fieldKeys = series.lastFieldKeys;
    let fieldKinds = series.lastFieldKinds;
    if (!(predicted && count === expectedKeys.length && sameKinds(fieldKinds, scratchFieldKinds, count))) {
      const fresh = dedupeFields(count, fieldValues, scratchFieldKeys, scratchFieldKinds);
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
    const caches = this.caches;
    if (guess !== null) {
      // Same bytes followed by a space: the same series text (its bytes end outside any escape).
      const end = start + guess.length;
      if (end < len && buf[end] === SPACE && caches.holds(guess, buf, start, end)) {
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
    const cacheable = pos < len && buf[pos] === SPACE && pos - start <= SERIES_LENGTH_MAX;
    // Keep the key a small integer so map lookups never box it.
    hash &= 0x3fffffff;
    if (cacheable) {
      const cached = caches.find(hash, buf, start, pos);
      if (cached !== undefined) {
        this.pos = pos;
        return cached;
      }
    }
    const entry = this.parseSeriesSlow();
    if (cacheable && this.pos === pos) caches.remember(hash, entry, buf, start, pos);
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
      tagKeys: this.caches.sharedKeyList(tagKeys),
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
      boundTable: undefined,
      boundKey: undefined,
      boundShard: undefined,
    };
  }
}
