/**
 * A memtable string column kept as UTF-8 bytes in one growing buffer, with each row's start and
 * length, instead of one JS string per row.
 *
 * Why: a log table's memtable held millions of strings (paths, user agents, messages), every one
 * a heap object that each major GC marks again. Measured with the access-log pipeline: holding
 * no string values at all ran the ingest 45% faster at 57% of the peak RSS; the bytes here are
 * outside the V8 heap, so the collector never walks them. A value becomes a string again only
 * when a scan or a flush reads it.
 */

/** Arena bytes to start with; it doubles as rows arrive. */
const INITIAL_BYTES = 16 * 1024;

export class StringColumn {
  private bytes: Buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  private used = 0;
  private starts: Int32Array;
  private lengths: Int32Array;

  constructor(capacity: number) {
    this.starts = new Int32Array(capacity);
    this.lengths = new Int32Array(capacity);
  }

  /** Bytes of the arena in use (the memtable's size estimate counts them). */
  get byteLength(): number {
    return this.used;
  }

  /** Room for rows up to `capacity`, keeping the first `used` rows. */
  grow(capacity: number, used: number): void {
    const starts = new Int32Array(capacity);
    starts.set(this.starts.subarray(0, used));
    this.starts = starts;
    const lengths = new Int32Array(capacity);
    lengths.set(this.lengths.subarray(0, used));
    this.lengths = lengths;
  }

  /** Stores `value` as row `row`'s; returns the bytes it took. Each row is set at most once. */
  set(row: number, value: string): number {
    // A UTF-16 unit takes at most 3 UTF-8 bytes (a surrogate pair, two units, takes 4).
    const most = value.length * 3;
    if (this.used + most > this.bytes.length) this.reserve(this.used + most);
    const written = this.bytes.write(value, this.used, 'utf8');
    this.starts[row] = this.used;
    this.lengths[row] = written;
    this.used += written;
    return written;
  }

  get(row: number): string {
    const start = this.starts[row] as number;
    return this.bytes.toString('utf8', start, start + (this.lengths[row] as number));
  }

  private reserve(need: number): void {
    let size = this.bytes.length * 2;
    while (size < need) size *= 2;
    // Row starts are 32-bit: a memtable flushes long before 2 GiB of one column's text.
    if (size > 2 ** 31 - 1) throw new RangeError('memtable string column over 2 GiB');
    const bytes = Buffer.allocUnsafe(size);
    this.bytes.copy(bytes, 0, 0, this.used);
    this.bytes = bytes;
  }
}
