/**
 * The fast path of an all-or-nothing OpenTSDB put: the body's bytes scanned in place, without
 * building a JavaScript object per point. A collector sends the same series every interval, so
 * a point's metric and tags are looked up by their bytes as sent (../byte-series-cache.ts); only
 * a new series is parsed and checked, by the same `checkPoint` as the general path. Per point
 * the scan then reads only the timestamp and the value.
 *
 * The scan takes the plain shape collectors send: an array of (or one) objects with exactly the
 * keys `metric`, `timestamp`, `value` and `tags` in any order, numeric timestamp and value,
 * string tag values, no escapes in strings. Anything else, and any point that fails a check,
 * answers null, and the caller parses the body with `JSON.parse` (put-points.ts), whose errors
 * and answers the scan never has to reproduce: for every body it takes, the two agree.
 */
import type { SeriesCache, SeriesEntry } from '../byte-series-cache.js';
import { hashBytes, seriesEntry } from '../byte-series-cache.js';
import { pointRuns, resolveSeries, type SeriesRuns } from '../series-inserts.js';
import { checkPoint, isPointError } from './put-points.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Seconds up to here, milliseconds above (put-points.ts), and the largest milliseconds. */
const SECONDS_MAX = 0xffffffff;
const MILLISECONDS_MAX = 9_999_999_999_999;
/** Powers of ten that are exact doubles: a decimal of ≤ 15 digits divided by one rounds once. */
const EXACT_POWERS = Array.from({ length: 23 }, (_, k) => 10 ** k);

const FIELD_METRIC = 1;
const FIELD_TIMESTAMP = 2;
const FIELD_VALUE = 4;
const FIELD_TAGS = 8;
const ALL_FIELDS = 15;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Signals a body the scan does not take; caught in `scanPutRuns` only. */
class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain();

class Scanner {
  pos = 0;
  /** Set by `point`: the point's byte ranges and numbers. */
  metricStart = 0;
  metricEnd = 0;
  tagsStart = 0;
  tagsEnd = 0;
  timestampMs = 0;
  value = 0;
  /** Metric then tags bytes of the current point, copied together: the series' cache key. */
  key: Buffer = Buffer.alloc(1024);
  keyLength = 0;
  /** The point just scanned is the guessed series (its key was not copied). */
  guessed = false;

  constructor(readonly b: Buffer) {}

  ws(): number {
    const b = this.b;
    let p = this.pos;
    let c = b[p];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++p];
    this.pos = p;
    return c ?? -1;
  }

  expect(byte: number): void {
    if (this.ws() !== byte) throw NOT_PLAIN;
    this.pos++;
  }

  /** A string without escapes or control characters; returns its end, past the closing quote. */
  string(): number {
    const b = this.b;
    if (this.ws() !== QUOTE) throw NOT_PLAIN;
    let p = this.pos + 1;
    for (;;) {
      const c = b[p];
      if (c === QUOTE) break;
      if (c === undefined || c === BACKSLASH || c < 0x20) throw NOT_PLAIN;
      p++;
    }
    this.pos = p + 1;
    return this.pos;
  }

  /** Whether `b[start, end)` is the quoted ASCII `name`. */
  isKey(start: number, end: number, name: string): boolean {
    if (end - start !== name.length + 2) return false;
    for (let i = 0; i < name.length; i++) if (this.b[start + 1 + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  /** A JSON number, strictly as JSON.parse reads it; returns its value. */
  number(): number {
    const b = this.b;
    this.ws();
    const start = this.pos;
    let p = start;
    let negative = false;
    if (b[p] === MINUS) {
      negative = true;
      p++;
    }
    let mantissa = 0;
    let digits = 0;
    let c = b[p] as number;
    if (c === ZERO) {
      p++;
      c = b[p] as number;
      if (c >= ZERO && c <= NINE) throw NOT_PLAIN;
    } else if (c > ZERO && c <= NINE) {
      while (c >= ZERO && c <= NINE) {
        mantissa = mantissa * 10 + (c - ZERO);
        digits++;
        c = b[++p] as number;
      }
    } else throw NOT_PLAIN;
    let scale = 0;
    if (c === DOT) {
      c = b[++p] as number;
      if (!(c >= ZERO && c <= NINE)) throw NOT_PLAIN;
      while (c >= ZERO && c <= NINE) {
        mantissa = mantissa * 10 + (c - ZERO);
        digits++;
        scale++;
        c = b[++p] as number;
      }
    }
    let simple = true;
    if (c === 0x65 || c === 0x45) {
      simple = false;
      c = b[++p] as number;
      if (c === PLUS || c === MINUS) c = b[++p] as number;
      if (!(c >= ZERO && c <= NINE)) throw NOT_PLAIN;
      while (c >= ZERO && c <= NINE) c = b[++p] as number;
    }
    this.pos = p;
    if (simple && digits <= 15) {
      const magnitude = scale === 0 ? mantissa : mantissa / (EXACT_POWERS[scale] as number);
      return negative ? -magnitude : magnitude;
    }
    return Number(b.toString('latin1', start, p));
  }

  /** `{}` or an object of string values; returns its end, past the closing brace. */
  tags(): number {
    this.expect(OPEN_OBJECT);
    if (this.ws() === CLOSE_OBJECT) return ++this.pos;
    for (;;) {
      this.string();
      this.expect(COLON);
      this.string();
      const c = this.ws();
      this.pos++;
      if (c === CLOSE_OBJECT) return this.pos;
      if (c !== COMMA) throw NOT_PLAIN;
    }
  }

  /**
   * One point object: its fields into this scanner's fields. `guess`: the series expected next;
   * when the point's metric came first and names it, its tags are compared with the guess's in
   * one call instead of being scanned (`guessed` then says the point is the guess's).
   */
  point(guess: SeriesEntry | undefined): void {
    this.expect(OPEN_OBJECT);
    this.guessed = false;
    let seen = 0;
    for (;;) {
      this.ws();
      const keyStart = this.pos;
      const keyEnd = this.string();
      this.expect(COLON);
      let field: number;
      if (this.isKey(keyStart, keyEnd, 'metric')) {
        field = FIELD_METRIC;
        this.ws();
        this.metricStart = this.pos;
        this.metricEnd = this.string();
      } else if (this.isKey(keyStart, keyEnd, 'timestamp')) {
        field = FIELD_TIMESTAMP;
        this.timestampMs = this.timestamp();
      } else if (this.isKey(keyStart, keyEnd, 'value')) {
        field = FIELD_VALUE;
        this.value = this.number();
        if (!Number.isFinite(this.value)) throw NOT_PLAIN;
      } else if (this.isKey(keyStart, keyEnd, 'tags')) {
        field = FIELD_TAGS;
        this.ws();
        this.tagsStart = this.pos;
        this.tagsEnd = (seen & FIELD_METRIC) !== 0 && guess !== undefined ? this.guessedTags(guess) : -1;
        if (this.tagsEnd < 0) this.tagsEnd = this.tags();
      } else throw NOT_PLAIN;
      if ((seen & field) !== 0) throw NOT_PLAIN;
      seen |= field;
      const c = this.ws();
      this.pos++;
      if (c === CLOSE_OBJECT) break;
      if (c !== COMMA) throw NOT_PLAIN;
    }
    if (seen !== ALL_FIELDS) throw NOT_PLAIN;
    if (!this.guessed) this.keyOfPoint();
  }

  /**
   * The end of the tags object at `pos` when the point is `guess`'s series: its key is the
   * metric (quotes included, so a prefix match is the whole metric) followed by the tags bytes,
   * and bytes equal to a complete object read before are that object. -1 when not.
   */
  private guessedTags(guess: SeriesEntry): number {
    const key = guess.bytes;
    const metricLength = this.metricEnd - this.metricStart;
    const tagsLength = key.length - metricLength;
    const end = this.pos + tagsLength;
    if (tagsLength <= 0 || end > this.b.length) return -1;
    if (key.compare(this.b, this.metricStart, this.metricEnd, 0, metricLength) !== 0) return -1;
    if (key.compare(this.b, this.pos, end, metricLength) !== 0) return -1;
    this.guessed = true;
    this.pos = end;
    return end;
  }

  /** A timestamp as put-points.ts reads a number: positive integer, seconds or milliseconds. */
  timestamp(): number {
    const b = this.b;
    this.ws();
    let p = this.pos;
    let c = b[p] as number;
    if (!(c > ZERO && c <= NINE)) throw NOT_PLAIN;
    let n = 0;
    while (c >= ZERO && c <= NINE) {
      n = n * 10 + (c - ZERO);
      c = b[++p] as number;
    }
    if (c === DOT || c === 0x65 || c === 0x45 || n > MILLISECONDS_MAX) throw NOT_PLAIN;
    this.pos = p;
    return n <= SECONDS_MAX ? n * 1000 : n;
  }

  private keyOfPoint(): void {
    const metricLength = this.metricEnd - this.metricStart;
    const length = metricLength + this.tagsEnd - this.tagsStart;
    if (this.key.length < length) this.key = Buffer.alloc(Math.max(length, this.key.length * 2));
    this.b.copy(this.key, 0, this.metricStart, this.metricEnd);
    this.b.copy(this.key, metricLength, this.tagsStart, this.tagsEnd);
    this.keyLength = length;
  }
}

/** Runs with room for `n` points, grown as the scan finds more. */
class RunsBuilder {
  series: SeriesEntry[] = [];
  timestamps: Float64Array;
  values: Float64Array;

  constructor(capacity: number) {
    this.timestamps = new Float64Array(capacity);
    this.values = new Float64Array(capacity);
  }

  push(entry: SeriesEntry, timestampMs: number, value: number): void {
    const i = this.series.length;
    if (i === this.timestamps.length) {
      const timestamps = new Float64Array(i * 2 + 16);
      timestamps.set(this.timestamps);
      this.timestamps = timestamps;
      const values = new Float64Array(i * 2 + 16);
      values.set(this.values);
      this.values = values;
    }
    this.series.push(entry);
    this.timestamps[i] = timestampMs;
    this.values[i] = value;
  }

  runs(): SeriesRuns {
    return pointRuns(this.series, this.timestamps, this.values);
  }
}

/**
 * The points of `body` as runs, one point each, their series resolved through `cache` (for
 * database `db` and `shards` shards); null when the body is not in the plain shape or a point
 * fails a check, and the general path must answer.
 */
export function scanPutRuns(body: Buffer, cache: SeriesCache, db: string, shards: number): SeriesRuns | null {
  const scan = new Scanner(body);
  // A point of a typical collector is 200 bytes or more.
  const out = new RunsBuilder(Math.min(body.length >> 7, 1 << 16) + 1);
  try {
    const first = scan.ws();
    const array = first === OPEN_ARRAY;
    if (array) {
      scan.pos++;
      if (scan.ws() === CLOSE_ARRAY) {
        scan.pos++;
        return scan.ws() === -1 ? out.runs() : null;
      }
    }
    let previous: SeriesEntry | undefined;
    for (;;) {
      scan.ws();
      const pointStart = scan.pos;
      const guess = previous?.next;
      scan.point(guess);
      let entry: SeriesEntry | null;
      if (scan.guessed) {
        entry = guess as SeriesEntry;
        cache.touch(entry);
      } else entry = seriesOf(scan, cache, previous, pointStart, db, shards, out.series.length);
      if (entry === null) return null;
      if (previous !== undefined && previous.next !== entry) previous.next = entry;
      previous = entry;
      out.push(entry, scan.timestampMs, scan.value);
      if (!array) break;
      const c = scan.ws();
      scan.pos++;
      if (c === CLOSE_ARRAY) break;
      if (c !== COMMA) return null;
    }
    return scan.ws() === -1 ? out.runs() : null;
  } catch (err) {
    if (err instanceof NotPlain) return null;
    throw err;
  }
}

/** The series of the point just scanned (it ends at `scan.pos`), or null if it fails a check. */
function seriesOf(
  scan: Scanner,
  cache: SeriesCache,
  previous: SeriesEntry | undefined,
  pointStart: number,
  db: string,
  shards: number,
  index: number,
): SeriesEntry | null {
  const key = scan.key;
  const length = scan.keyLength;
  // Senders repeat their series in order: the successor of the previous series first.
  const guess = previous?.next;
  if (guess !== undefined && cache.matches(guess, key, 0, length)) {
    cache.touch(guess);
    return guess;
  }
  const hash = hashBytes(new DataView(key.buffer, key.byteOffset, key.byteLength), 0, length);
  const known = cache.get(hash, key, 0, length);
  if (known !== undefined) return known;
  // A new series: checked as the general path checks it, from the point parsed in full.
  let datapoint: unknown;
  try {
    datapoint = JSON.parse(utf8.decode(scan.b.subarray(pointStart, scan.pos)));
  } catch {
    return null;
  }
  const checked = checkPoint(datapoint, index);
  if (isPointError(checked)) return null;
  const entry = seriesEntry(resolveSeries(db, checked.metric, [...checked.tags], shards), key, 0, length);
  cache.add(entry);
  return entry;
}
